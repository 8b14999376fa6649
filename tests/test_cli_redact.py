"""``spacy-pii redact``: order, resume after a real kill, bad lines, values, vault, n_process."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import spacy_pii
import spacy_pii.pipeline.pii_rules as rules_module
from spacy_pii.io.cli import app
from spacy_pii.io.stream import (
    StreamFailed,
    StreamOptions,
    StreamStats,
    iter_lines,
    load_redaction_pipeline,
    parse_line,
    redact_file,
    resume_point,
)

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "examples" / "sample.txt"
EMAIL = "ada.lovelace@example.com"
CARD = "4111 1111 1111 1111"  # the Visa test PAN, Luhn-valid
runner = CliRunner()


def _run(*args: object, input: bytes | None = None):
    return runner.invoke(app, ["redact", *map(str, args)], input=input)


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def _texts(n: int) -> list[str]:
    # Short, varied texts; every third carries an e-mail, every fifth a card number.
    texts = []
    for i in range(n):
        parts = [f"Ticket {i}: customer wrote in about order {i * 7 % 1000}."]
        if i % 3 == 0:
            parts.append(f"Reply to user{i}@example.com please.")
        if i % 5 == 0:
            parts.append(f"Card {CARD} was declined.")
        texts.append(" ".join(parts))
    return texts


def _write_jsonl(path: Path, texts: list[str]) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for i, text in enumerate(texts):
            fh.write(json.dumps({"id": f"r{i}", "text": text}) + "\n")
    return path


# -- the README command ------------------------------------------------------------------------


def test_sample_text_prints_one_redacted_record_per_line():
    result = _run(SAMPLE, "--format", "text", "--model", "rules", "-o", "-")
    assert result.exit_code == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["line"] for r in records] == [1, 2, 3]
    assert "<PHONE_1>" in records[0]["text"] and "<EMAIL_1>" in records[1]["text"]
    assert [s["label"] for s in records[1]["spans"]] == ["EMAIL", "PAYMENT", "PAYMENT"]
    for value in (EMAIL, CARD, "+44 20 7946 0958", "203.0.113.42", "Tr0ub4dor"):
        assert value not in result.stdout
    assert "3 lines: 3 redacted, 0 not processed" in result.stderr


def test_format_follows_the_extension_or_must_be_given(tmp_path):
    unknown = tmp_path / "notes.log"
    unknown.write_text("mail ada@example.com\n")
    result = _run(unknown, "--model", "rules")
    assert result.exit_code == 2 and "--format" in result.stderr
    as_text = tmp_path / "notes.txt"
    as_text.write_text("mail ada@example.com\n")
    result = _run(as_text, "--model", "rules")
    assert result.exit_code == 0 and json.loads(result.stdout)["text"] == "mail <EMAIL_1>"


# -- values, kept fields, vault ----------------------------------------------------------------


@pytest.fixture
def contact_file(tmp_path) -> Path:
    return _write_jsonl(
        tmp_path / "in.jsonl",
        [f"Email {EMAIL}, card {CARD}.", "Nothing here.", "password=hunter2secret ok"],
    )


def test_values_never_leave_without_include_values(tmp_path, contact_file):
    out = tmp_path / "out.jsonl"
    result = _run(contact_file, "-o", out, "--model", "rules", "--keep", "id")
    assert result.exit_code == 0, result.stderr
    written = out.read_text("utf-8")
    for value in (EMAIL, CARD, "4111", "hunter2secret"):
        assert value not in written and value not in result.stderr
    first = _records(out)[0]
    assert first == {
        "line": 1,
        "id": "r0",
        "text": "Email <EMAIL_1>, card <PAYMENT_1>.",
        "spans": [
            {"start": 6, "end": 30, "label": "EMAIL", "score": None, "detector": "rules.email"},
            {"start": 37, "end": 56, "label": "PAYMENT", "score": 1.0, "detector": "rules.card"},
        ],
    }
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]


def test_include_values_adds_values_but_never_a_secret(tmp_path, contact_file):
    out = tmp_path / "out.jsonl"
    assert _run(contact_file, "-o", out, "--model", "rules", "--include-values").exit_code == 0
    records = _records(out)
    assert [s["value"] for s in records[0]["spans"]] == [EMAIL, CARD]
    assert [s["value"] for s in records[2]["spans"]] == [None]  # a SECRET's value is never written
    assert "hunter2secret" not in out.read_text("utf-8")


def test_vault_is_written_only_when_asked_and_restores_the_text(tmp_path, contact_file):
    out, vault = tmp_path / "out.jsonl", tmp_path / "vault.jsonl"
    assert _run(contact_file, "-o", out, "--model", "rules", "--vault", vault).exit_code == 0
    assert vault.stat().st_mode & 0o777 == 0o600
    entries = _records(vault)
    assert entries == [{"line": 1, "vault": {"<EMAIL_1>": EMAIL, "<PAYMENT_1>": CARD}}]
    restored = spacy_pii.restore(_records(out)[0]["text"], entries[0]["vault"])
    assert restored.text == f"Email {EMAIL}, card {CARD}."
    assert EMAIL not in out.read_text("utf-8")


def test_keyed_hash_needs_its_key_and_is_stable(tmp_path, contact_file, monkeypatch):
    ops = '{"EMAIL": "hash"}'
    monkeypatch.delenv("SPACY_PII_TEST_KEY", raising=False)
    result = _run(
        contact_file, "--model", "rules", "--operators", ops, "--key-env", "SPACY_PII_TEST_KEY"
    )
    assert result.exit_code == 2 and "SPACY_PII_TEST_KEY" in result.stderr
    monkeypatch.setenv("SPACY_PII_TEST_KEY", "k-1")
    first = _run(
        contact_file, "--model", "rules", "--operators", ops, "--key-env", "SPACY_PII_TEST_KEY"
    )
    again = _run(
        contact_file, "--model", "rules", "--operators", ops, "--key-env", "SPACY_PII_TEST_KEY"
    )
    assert first.exit_code == 0 and first.stdout == again.stdout
    assert "<EMAIL_h:" in first.stdout and "k-1" not in first.stdout


# -- bad input ---------------------------------------------------------------------------------

# One bad line of each kind; each carries a marker value that must never be echoed anywhere.
BAD_LINES = [
    (b'{"text": "ok leak0@example.com"}', None),
    (b'{"text": "bad utf8 \xff\xfe leak1@example.com"}', "invalid_utf8"),
    (b'{"text": "no closing brace leak2@example.com"', "invalid_json"),
    (b'{"body": "wrong field leak3@example.com"}', "missing_field"),
    (b'{"text": ["leak4@example.com"]}', "field_not_string"),
    (b"   ", "blank_line"),
    (b'"leak6@example.com"', "not_an_object"),
    (b'{"text": "lone \\ud800 surrogate leak7@example.com"}', None),
]
MARKERS = [f"leak{i}" for i in range(len(BAD_LINES))]


@pytest.fixture
def bad_file(tmp_path) -> Path:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"\n".join(raw for raw, _ in BAD_LINES) + b"\n")
    return path


def test_bad_lines_are_reported_by_number_and_kind_never_by_content(tmp_path, bad_file):
    out = tmp_path / "out.jsonl"
    result = _run(bad_file, "-o", out, "--model", "rules")
    assert result.exit_code == 0, result.stderr
    records = _records(out)
    assert [r["line"] for r in records] == list(range(1, len(BAD_LINES) + 1))
    assert [r.get("error") for r in records] == [kind for _, kind in BAD_LINES]
    assert records[7]["text"] == "lone \ufffd surrogate <EMAIL_1>"
    assert records[7]["spans"][0]["start"] == len("lone \ufffd surrogate ")
    assert "8 lines: 2 redacted, 6 not processed" in result.stderr
    assert "invalid_utf8: 1 (line 2)" in result.stderr
    assert "field_not_string: 1 (line 5)" in result.stderr
    assert "lone surrogates replaced with U+FFFD in 1 lines" in result.stderr
    for marker in MARKERS:
        assert marker not in out.read_text("utf-8") and marker not in result.output


def test_on_error_fail_stops_at_the_first_bad_line_with_exit_2(tmp_path, bad_file):
    out = tmp_path / "out.jsonl"
    result = _run(bad_file, "-o", out, "--model", "rules", "--on-error", "fail")
    assert result.exit_code == 2
    assert "line 2: invalid_utf8" in result.stderr
    assert [r["line"] for r in _records(out)] == [1]
    assert not any(marker in result.output for marker in MARKERS)


def test_a_line_longer_than_max_length_is_an_error_record_not_a_crash(tmp_path):
    nlp = load_redaction_pipeline("rules")
    nlp.max_length = 100
    source = tmp_path / "long.txt"
    # 99 characters fit; 101 do not; 10,000 exceed the byte bound and are never decoded.
    source.write_text("a" * 99 + "\n" + "b" * 101 + "\n" + "c" * 10_000 + "\nmail x@example.com\n")
    out = tmp_path / "out.jsonl"
    stats = redact_file(nlp, source, out, StreamOptions(fmt="text"), progress=False)
    assert [r.get("error") for r in _records(out)] == [None, "too_long", "too_long", None]
    assert stats.errors == {"too_long": 2} and stats.first_lines == {"too_long": [2, 3]}


def test_window_chars_takes_a_line_over_max_length_with_the_spans_of_a_whole_run(tmp_path):
    line = " ".join(
        f"Row {i}: mail user{i}@example.com or call (212) 555-01{i % 90 + 10}." for i in range(40)
    )
    source = tmp_path / "long.txt"
    source.write_text("short x@example.com\n" + line + "\n")
    nlp = load_redaction_pipeline("rules")
    whole = tmp_path / "whole.jsonl"
    redact_file(nlp, source, whole, StreamOptions(fmt="text"), progress=False)
    nlp.max_length = 500  # the long line is over it, the short one is not
    refused = tmp_path / "refused.jsonl"
    redact_file(nlp, source, refused, StreamOptions(fmt="text"), progress=False)
    assert [r.get("error") for r in _records(refused)] == [None, "too_long"]
    windowed = tmp_path / "windowed.jsonl"
    opts = StreamOptions(fmt="text", window_chars=300)
    stats = redact_file(nlp, source, windowed, opts, progress=False)
    assert stats.errors == {}
    assert _records(windowed) == _records(whole)
    assert len(_records(windowed)[1]["spans"]) == 80


def test_window_chars_flag_reaches_the_stream(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("mail ada@example.com\n")
    out = tmp_path / "out.jsonl"
    result = _run(source, "-o", out, "--model", "rules", "--window-chars", "50")
    assert result.exit_code == 0, result.stderr
    assert _records(out)[0]["spans"][0]["label"] == "EMAIL"
    assert _run(source, "--model", "rules", "--window-chars", "0").exit_code == 2


def test_max_length_bounds_each_line_from_the_command_line(tmp_path):
    source = _write_jsonl(tmp_path / "in.jsonl", ["short " + EMAIL, "(" * 500 + ")" * 500])
    out = tmp_path / "out.jsonl"
    result = _run(source, "-o", out, "--model", "rules", "--max-length", 100)
    assert result.exit_code == 0, result.output
    first, second = _records(out)
    assert first["spans"][0]["label"] == "EMAIL"
    assert second == {"line": 2, "error": "too_long"}


def test_iter_lines_bounds_memory_and_keeps_line_count(tmp_path):
    path = tmp_path / "x.bin"
    path.write_bytes(b"short\n" + b"x" * 5000 + b"\nlast-without-newline")
    with path.open("rb") as fh:
        assert list(iter_lines(fh, 100)) == [b"short\n", None, b"last-without-newline"]


@pytest.mark.parametrize(
    ("raw", "fmt", "expected"),
    [
        (b'\xef\xbb\xbf{"text": "bom"}\n', "jsonl", "bom"),
        (b"windows line\r\n", "text", "windows line"),
        (b"\xed\xa0\x80 encoded surrogate\n", "text", "invalid_utf8"),
    ],
    ids=["utf8-bom-on-line-1", "crlf-line-ending", "rfc3629-encoded-surrogate-is-invalid"],
)
def test_parse_line_decodes_strictly(raw, fmt, expected):
    text, (_, error, _) = parse_line(raw, 1, StreamOptions(fmt=fmt), 1000, StreamStats())
    assert (error or text) == expected


# -- pipeline errors ---------------------------------------------------------------------------


def test_a_failing_detector_never_lets_raw_text_through(tmp_path, monkeypatch):
    original = rules_module.find_hits

    def flaky(text, *args, **kwargs):
        if "BOOM" in text:
            raise RuntimeError("detector failure")
        return original(text, *args, **kwargs)

    # pii_rules catches, calls the error handler and returns the doc without spans: without
    # the failure mark its text would come out as if nothing were found.
    monkeypatch.setattr(rules_module, "find_hits", flaky)
    source = tmp_path / "in.txt"
    source.write_text(f"mail {EMAIL}\nBOOM mail {EMAIL}\nok\n")
    out = tmp_path / "out.jsonl"
    nlp = load_redaction_pipeline("rules")
    stats = redact_file(nlp, source, out, StreamOptions(fmt="text"), progress=False)
    assert [r.get("error") for r in _records(out)] == [None, "pipeline_error", None]
    assert EMAIL not in out.read_text("utf-8") and stats.first_lines == {"pipeline_error": [2]}
    with pytest.raises(StreamFailed, match="line 2: pipeline_error"):
        redact_file(nlp, source, out, StreamOptions(fmt="text", on_error="fail"), progress=False)


def test_a_dropped_doc_becomes_an_error_record_in_its_place(tmp_path):
    from spacy.language import Language

    @Language.component("test_stream_dropper")
    def dropper(doc):
        if "DROP" in doc.text:
            raise ValueError("dropped")
        return doc

    nlp = load_redaction_pipeline("rules")
    nlp.add_pipe("test_stream_dropper", first=True)
    source = tmp_path / "in.txt"
    source.write_text("a\nDROP 1\nb\nDROP 2\n")
    out = tmp_path / "out.jsonl"
    redact_file(nlp, source, out, StreamOptions(fmt="text", batch_size=2), progress=False)
    assert [(r["line"], r.get("error")) for r in _records(out)] == [
        (1, None),
        (2, "pipeline_error"),
        (3, None),
        (4, "pipeline_error"),
    ]


# -- order: n_process, stdin/stdout ------------------------------------------------------------


def test_n_process_2_gives_the_same_output_as_1(tmp_path):
    texts = _texts(300)
    source = _write_jsonl(tmp_path / "in.jsonl", texts)
    with source.open("ab") as fh:
        fh.write(b"not json\n")
    single, double = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    args = ("--model", "rules", "--batch-size", "16", "--keep", "id")
    assert _run(source, "-o", single, *args).exit_code == 0
    assert _run(source, "-o", double, *args, "--n-process", "2").exit_code == 0
    assert double.read_bytes() == single.read_bytes()
    assert len(_records(double)) == 301 and _records(double)[-1]["error"] == "invalid_json"


def test_stdin_to_stdout_in_a_real_process(tmp_path):
    payload = "".join(json.dumps({"text": t}) + "\n" for t in _texts(20)).encode()
    done = subprocess.run(
        [sys.executable, "-m", "spacy_pii.io.cli", "redact", "-", "--model", "rules"],
        input=payload,
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    records = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [r["line"] for r in records] == list(range(1, 21))
    assert "user0@example.com" not in done.stdout.decode() and CARD not in done.stdout.decode()
    assert b"20 lines: 20 redacted" in done.stderr


# -- resume ------------------------------------------------------------------------------------


def _cli(*args: object) -> list[str]:
    return [sys.executable, "-m", "spacy_pii.io.cli", "redact", *map(str, args)]


def _children(pid: int) -> list[int]:
    """Child process ids, read from /proc (Linux); empty elsewhere."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _count_lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_resume_after_sigkill_has_no_missing_or_duplicate_line(tmp_path):
    # Only the killed run (two worker processes) needs its own process; the reference and
    # the resumed run (one process) go through the same CLI in this one, to stay fast.
    total = 3000
    source = _write_jsonl(tmp_path / "in.jsonl", _texts(total))
    common = ("--model", "rules", "--batch-size", "25", "--keep", "id")
    reference, reference_vault = tmp_path / "ref.jsonl", tmp_path / "ref.vault.jsonl"
    assert _run(source, "-o", reference, "--vault", reference_vault, *common).exit_code == 0

    out, vault = tmp_path / "out.jsonl", tmp_path / "vault.jsonl"
    proc = subprocess.Popen(
        _cli(source, "-o", out, "--vault", vault, *common, "--n-process", "2"),
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 180
    while _count_lines(out) < 200 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.005)
    assert proc.poll() is None, "the run ended before it could be killed; use more texts"
    workers = _children(proc.pid)
    assert len(workers) == 2 or not Path("/proc").is_dir()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed_at = _count_lines(out)
    assert 200 <= killed_at < total
    # SIGKILL runs no cleanup in the main process; its workers must notice and leave.
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in workers)

    resumed = _run(source, "-o", out, "--vault", vault, *common, "--resume")
    assert resumed.exit_code == 0, resumed.stderr
    assert f"resumed after line {killed_at}" in resumed.stderr
    got, want = out.read_text("utf-8").splitlines(), reference.read_text("utf-8").splitlines()
    assert [json.loads(line)["line"] for line in got] == list(range(1, total + 1))
    assert got == want
    assert vault.read_bytes() == reference_vault.read_bytes()


def test_resume_point_cuts_partial_lines_and_a_vault_that_ran_ahead(tmp_path):
    out, vault = tmp_path / "out.jsonl", tmp_path / "vault.jsonl"
    out.write_bytes(
        b'{"line": 1, "text": "a"}\n{"line": 2, "error": "invalid_json"}\n{"line": 3, "te'
    )
    vault.write_bytes(
        b'{"line": 1, "vault": {}}\n{"line": 3, "vault": {}}\n{"line": 4, "vault": {}}\n{"li'
    )
    assert resume_point(out, vault) == 2
    assert out.read_bytes().endswith(b'"invalid_json"}\n')
    assert vault.read_bytes() == b'{"line": 1, "vault": {}}\n'
    assert resume_point(tmp_path / "absent.jsonl") == 0


def test_resume_needs_an_output_file(contact_file):
    result = _run(contact_file, "--model", "rules", "--resume")
    assert result.exit_code == 2 and "output file" in result.stderr


def test_resuming_a_finished_run_adds_nothing(tmp_path, contact_file):
    out = tmp_path / "out.jsonl"
    assert _run(contact_file, "-o", out, "--model", "rules").exit_code == 0
    before = out.read_bytes()
    result = _run(contact_file, "-o", out, "--model", "rules", "--resume")
    assert result.exit_code == 0 and out.read_bytes() == before
    assert "resumed after line 3" in result.stderr


def test_summary_lists_the_first_lines_of_a_kind_and_counts_the_rest():
    stats = StreamStats(redacted=3)
    for line in range(1, 13):
        stats.add_error("invalid_json", line)
    assert stats.summary() == [
        "15 lines: 3 redacted, 12 not processed",
        "  invalid_json: 12 (line 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ... (2 more))",
    ]


# -- no silent failure --------------------------------------------------------------------


def test_a_fake_operator_with_an_unknown_locale_exits_2_before_the_first_line(
    tmp_path, contact_file, monkeypatch
):
    monkeypatch.setenv("SPACY_PII_KEY", "k" * 32)
    out = tmp_path / "out.jsonl"
    operators = json.dumps({"EMAIL": {"operator": "fake", "locale": "xx_XX"}})
    result = _run(contact_file, "-o", out, "--model", "rules", "--operators", operators)
    assert result.exit_code == 2
    assert "locale 'xx_XX'" in result.stderr
    assert not out.exists() or out.read_text() == ""


def test_a_missing_model_path_exits_2_with_one_line(tmp_path, contact_file):
    result = _run(contact_file, "--model", tmp_path / "no-such-model")
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0
    assert "Traceback" not in result.output and "no pipeline" in result.stderr


def test_resume_stops_when_the_vault_lost_records_the_output_needs(tmp_path):
    source = _write_jsonl(tmp_path / "in.jsonl", [f"mail user{i}@example.com" for i in range(6)])
    out, vault = tmp_path / "out.jsonl", tmp_path / "vault.jsonl"
    first = _run(source, "-o", out, "--model", "rules", "--vault", vault, "--batch-size", 2)
    assert first.exit_code == 0, first.stderr
    # Half the vault is lost (a copy cut short, a disk that lied about a write).
    lines = vault.read_bytes().splitlines(keepends=True)
    vault.write_bytes(b"".join(lines[:3]))
    resumed = _run(
        source, "-o", out, "--model", "rules", "--vault", vault, "--resume", "--batch-size", 2
    )
    assert resumed.exit_code == 2
    assert "vault ends at line 3" in resumed.stderr and "disagree" in resumed.stderr
    assert vault.read_bytes() == b"".join(lines[:3])  # nothing appended to either
    assert len(_records(out)) == 6


def test_resume_with_an_agreeing_vault_goes_on(tmp_path):
    source = _write_jsonl(tmp_path / "in.jsonl", [f"mail user{i}@example.com" for i in range(4)])
    out, vault = tmp_path / "out.jsonl", tmp_path / "vault.jsonl"
    assert _run(source, "-o", out, "--model", "rules", "--vault", vault).exit_code == 0
    result = _run(source, "-o", out, "--model", "rules", "--vault", vault, "--resume")
    assert result.exit_code == 0, result.stderr
    assert "resumed after line 4" in result.stderr and "at most the batch" in result.stderr


def test_output_and_vault_are_synced_at_each_batch_boundary(tmp_path, monkeypatch):
    import spacy_pii.io.stream as stream_module

    synced: list[int] = []
    real_fsync = stream_module.os.fsync

    def counting_fsync(descriptor: int) -> None:
        synced.append(descriptor)
        real_fsync(descriptor)

    monkeypatch.setattr(stream_module.os, "fsync", counting_fsync)
    source = _write_jsonl(tmp_path / "in.jsonl", [f"mail user{i}@example.com" for i in range(6)])
    out, vault = tmp_path / "out.jsonl", tmp_path / "vault.jsonl"
    nlp = load_redaction_pipeline("rules")
    redact_file(nlp, source, out, StreamOptions(batch_size=2), vault=vault, progress=False)
    # Three batches, each syncing the vault and then the output.
    assert len(synced) == 6 and len(set(synced)) == 2
