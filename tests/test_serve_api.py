"""The demo API: response shapes, every refusal, the no-echo rule and the body guard."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import warnings
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the demo extra (fastapi) is not installed")
pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx")

with warnings.catch_warnings():
    # Starlette announces a successor to httpx; the TestClient still runs on httpx.
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

import spacy
from spacy.language import Language
from spacy.tokens import SpanGroup

import spacy_pii
from spacy_pii.pipeline.displacy_colors import DISPLACY_COLORS
from spacy_pii.serve import protocol
from spacy_pii.serve.app import create_app
from spacy_pii.serve.pipelines import PipelineRegistry, model_slots

REPO = Path(__file__).resolve().parents[1]
CANARY = "Zq7canaryXw"  # a string no message, hint or log line may ever contain
TICKET = (
    "From: Ada Lovelace <ada.lovelace@example.com>\n"
    "Card 4111 1111 1111 1111, password=Tr0ub4dor&3, IP 192.168.0.7"
)
CLINICAL = "Patient: John Smith, male, date of birth 14/03/1985, ZIP 02139."


@Language.component("test_serve_guess_username")
def _guess_username(doc):
    """A stand-in model: calls every e-mail token a USERNAME with score 0.4."""
    spans = [doc[i : i + 1] for i, token in enumerate(doc) if "@" in token.text]
    for span in spans:
        span.label_ = "USERNAME"
    group = SpanGroup(doc, name="pii_ner", spans=spans)
    group.attrs["scores"] = [0.4] * len(group)
    group.attrs["detectors"] = ["test.guess"] * len(group)
    group.attrs["kinds"] = ["model"] * len(group)
    doc.spans["pii_ner"] = group
    return doc


@Language.component("test_serve_explode")
def _explode(doc):
    raise RuntimeError(doc.text)  # a failure whose message is the text itself


def _guessing_pipeline():
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_rules")
    nlp.add_pipe("test_serve_guess_username")
    nlp.add_pipe("pii_merge")
    return nlp


def _exploding_pipeline():
    nlp = spacy.blank("en")
    nlp.add_pipe("test_serve_explode")
    nlp.add_pipe("pii_merge")
    return nlp


class _Loader:
    """Loads by name; ``slow`` waits for a gate, ``broken`` fails, the rest come from here."""

    def __init__(self) -> None:
        self.gate = threading.Event()

    def __call__(self, source: str):
        if source == "slow":
            self.gate.wait(60)
            return spacy_pii.load("rules")
        if source == "broken":
            raise OSError(f"cannot read /home/{CANARY}/model")
        if source == "guess":
            return _guessing_pipeline()
        if source == "explode":
            return _exploding_pipeline()
        return spacy_pii.load(source)


@pytest.fixture(scope="module")
def loader():
    return _Loader()


@pytest.fixture(scope="module")
def app(loader):
    slots = [
        ("rules", "rules"),
        ("guess", "guess"),
        ("explode", "explode"),
        ("broken", "broken"),
        ("slow", "slow"),
    ]
    return create_app(PipelineRegistry(slots, loader=loader), max_chars=400)


@pytest.fixture(scope="module")
def client(app):
    with TestClient(app, raise_server_exceptions=False) as test_client:
        registry = app.state.service.registry
        deadline = time.monotonic() + 60
        while registry.slots["explode"].state != "ready" and time.monotonic() < deadline:
            time.sleep(0.05)
        yield test_client


def _detect(client, **body):
    return client.post("/api/detect", json={"pipeline": "rules", **body})


def _server_log(caplog) -> str:
    """What the service logged; the test client's own request log (httpx) is not ours."""
    return "\n".join(
        f"{record.name} {record.getMessage()}"
        for record in caplog.records
        if not record.name.startswith(("httpx", "httpcore"))
    )


def _refusal(response, status: int, error: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"ok", "error", "message", "hint"}
    assert body["ok"] is False and body["error"] == error and body["message"]
    return body


# -- shapes -----------------------------------------------------------------------------------


def test_health_reports_limits(client):
    body = client.get("/api/health").json()
    assert body["ok"] is True and body["status"] == "ok"
    assert body["max_chars"] == 400
    assert body["max_body_bytes"] == protocol.body_limit_for(400)
    assert body["taxonomy_version"] == spacy_pii.load_taxonomy().version


def test_pipelines_report_state_while_one_is_still_loading(client):
    rows = {row["name"]: row for row in client.get("/api/pipelines").json()["pipelines"]}
    assert list(rows) == ["rules", "guess", "explode", "broken", "slow"]
    assert rows["rules"]["ready"] is True and rows["rules"]["components"] == [
        "pii_rules",
        "pii_merge",
    ]
    assert rows["broken"] == {**rows["broken"], "ready": False, "state": "failed"}
    assert rows["broken"]["error"] == "OSError"  # the type only: the message named a path
    assert rows["slow"]["ready"] is False and rows["slow"]["state"] in ("loading", "waiting")


def test_types_are_the_taxonomy_rows_in_displacy_colours(client):
    taxonomy = spacy_pii.load_taxonomy()
    rows = client.get("/api/types").json()["types"]
    assert [row["type"] for row in rows] == list(taxonomy.types)
    for row in rows:
        spec = taxonomy.types[row["type"]]
        assert (row["class"], row["rank"], row["severity"], row["default"]) == (
            spec.class_,
            spec.rank,
            spec.severity,
            spec.default,
        )
        assert row["color"] == DISPLACY_COLORS[row["type"]]
    assert {row["type"] for row in rows if not row["default"]} == {
        "DATE_OF_BIRTH",
        "ORG",
        "LOCATION",
    }


def test_detect_gives_exact_spans_mask_vault_and_secrets_never_stored(client):
    body = _detect(client, text=TICKET).json()
    assert body["ok"] is True and body["pipeline"] == "rules" and body["chars"] == len(TICKET)
    found = {(row["type"], row["text"]) for row in body["spans"]}
    assert found == {
        ("EMAIL", "ada.lovelace@example.com"),
        ("PAYMENT", "4111 1111 1111 1111"),
        ("SECRET", "Tr0ub4dor&3"),
        ("IP_ADDRESS", "192.168.0.7"),
    }
    for row in body["spans"]:
        assert TICKET[row["start"] : row["end"]] == row["text"]
        assert set(row) == {"type", "start", "end", "text", "score", "detector"}
    masked, vault = spacy_pii.redact(spacy_pii.load("rules")(TICKET))
    assert (body["masked"], body["vault"]) == (masked, vault)
    assert "<SECRET>" in body["masked"] and "Tr0ub4dor&3" not in json.dumps(body["vault"])
    secret = next(row for row in body["spans"] if row["type"] == "SECRET")
    assert body["never_stored"] == [
        {"type": "SECRET", "start": secret["start"], "end": secret["end"]}
    ]
    assert body["findings"] == []


def test_detect_reports_quasi_identifier_findings(client):
    body = _detect(client, text=CLINICAL).json()
    expected = [finding.to_dict() for finding in spacy_pii.find_combinations(CLINICAL)]
    assert body["findings"] == expected and expected[0]["risk"] == "high"


def test_type_filter_runs_inside_the_merge(client):
    text = "write to ada@example.com today"
    both = _detect(client, text=text, pipeline="guess").json()
    assert [(row["type"], row["detector"]) for row in both["spans"]] == [("EMAIL", "rules.email")]
    # Without EMAIL, the span that EMAIL had beaten in the overlap resolution comes through.
    no_email = _detect(client, text=text, pipeline="guess", types=["USERNAME"]).json()
    assert [(row["type"], row["score"]) for row in no_email["spans"]] == [("USERNAME", 0.4)]
    assert no_email["types"] == ["USERNAME"] and no_email["masked"] == "write to <USERNAME_1> today"


def test_score_floor_and_drop_unscored(client):
    text = "write to ada@example.com today"
    floor = _detect(client, text=text, pipeline="guess", types=["USERNAME"], min_score=0.5)
    assert floor.json()["spans"] == []
    kept = _detect(client, text=TICKET, min_score=1.0).json()["spans"]
    # A validator's 1.0 clears any floor; a shape-only match has no score and survives it.
    assert {row["type"] for row in kept} == {"EMAIL", "PAYMENT", "SECRET", "IP_ADDRESS"}
    dropped = _detect(client, text=TICKET, drop_unscored=True).json()["spans"]
    assert {row["type"] for row in dropped} == {"PAYMENT", "IP_ADDRESS"}


def test_operators_change_the_mask(client):
    partial = _detect(client, text=TICKET, operators={"PAYMENT": "partial"}).json()
    assert "***************1111" in partial["masked"]
    assert not any(key.startswith("<PAYMENT") for key in partial["vault"])
    hashed = _detect(client, text=TICKET, operators={"EMAIL": "hash"}).json()
    assert "<EMAIL_h:" in hashed["masked"]
    again = _detect(client, text=TICKET, operators={"EMAIL": "hash"}).json()
    assert again["masked"] == hashed["masked"]  # one key for the life of the service


def test_restore_reports_resolved_unresolved_and_unknown(client):
    detect = _detect(client, text=TICKET).json()
    answer = "Wrote to <email_1> and < IP ADDRESS 1 >; cc <PERSON_9>, <SECRET>, bob@example.org"
    body = client.post(
        "/api/restore", json={"text": answer, "vault": detect["vault"], "pipeline": "rules"}
    ).json()
    assert body["ok"] is True and body["clean"] is False
    assert body["text"].startswith("Wrote to ada.lovelace@example.com and 192.168.0.7;")
    assert body["resolved"] == ["<EMAIL_1>", "<IP_ADDRESS_1>"]
    assert body["unresolved"] == ["<PERSON_9>", "<SECRET>"]
    start = answer.index("bob@")
    assert body["unknown"] == [
        {"type": "EMAIL", "start": start, "end": len(answer), "text": "bob@example.org"}
    ]
    round_trip = client.post(
        "/api/restore", json={"text": detect["masked"], "vault": detect["vault"]}
    ).json()
    assert round_trip["text"] == TICKET.replace("Tr0ub4dor&3", "<SECRET>")
    assert round_trip["unknown"] == [] and round_trip["pipeline"] is None


# -- refusals ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"text": 5}, "invalid_request"),
        ({"text": "x", "min_score": 1.5}, "invalid_request"),
        ({"text": "x", "min_score": "0.5"}, "invalid_request"),
        ({"text": "x", "colour": "red"}, "invalid_request"),
        ({"pipeline": "rules"}, "invalid_request"),
        ({"text": "x", "types": ["EMAIL", "PASSPORT"]}, "unknown_type"),
        ({"text": "x", "operators": {"PASSPORT": "hash"}}, "unknown_type"),
        ({"text": "x", "operators": {"EMAIL": "shred"}}, "bad_operator"),
        ({"text": "x", "operators": {"SECRET": "hash"}}, "bad_operator"),
        ({"text": "x", "pipeline": "nope"}, "unknown_pipeline"),
        ({"text": "x", "pipeline": "slow"}, "pipeline_not_ready"),
        ({"text": "x", "pipeline": "broken"}, "pipeline_not_ready"),
        ({"text": "x" * 401}, "text_too_long"),
    ],
)
def test_detect_refusals(client, body, error):
    response = client.post("/api/detect", json={"pipeline": "rules", **body})
    _refusal(response, 422, error)


def test_an_unknown_type_is_named_only_when_shaped_like_one(client):
    named = _refusal(_detect(client, text="x", types=["PASSPORT"]), 422, "unknown_type")
    assert "'PASSPORT'" in named["message"]
    unnamed = _refusal(_detect(client, text="x", types=["Passport no."]), 422, "unknown_type")
    assert "Passport" not in unnamed["message"]


def test_pipeline_not_ready_says_what_to_do(client):
    body = _refusal(_detect(client, text="x", pipeline="slow"), 422, "pipeline_not_ready")
    assert "/api/pipelines" in body["hint"]


@pytest.mark.parametrize(
    "raw",
    [b"{bad", b"[1, 2]", b'{"text": NaN}', b"\xff\xfe", b"[" * 5000 + b"]" * 5000],
    ids=["syntax", "not-object", "nan", "not-utf8", "deep"],
)
def test_malformed_bodies(client, raw):
    response = client.post("/api/detect", content=raw, headers={"content-type": "application/json"})
    expected = "invalid_request" if raw == b"[1, 2]" else "malformed_json"
    _refusal(response, 422, expected)


def test_restore_refusals(client):
    too_long = {"text": "x" * 401, "vault": {}}
    _refusal(client.post("/api/restore", json=too_long), 422, "text_too_long")
    big_vault = {"text": "x", "vault": {f"<EMAIL_{i}>": "y" * 90 for i in range(10)}}
    _refusal(client.post("/api/restore", json=big_vault), 422, "vault_too_large")
    wrong_vault = {"text": "x", "vault": {"<EMAIL_1>": 3}}
    _refusal(client.post("/api/restore", json=wrong_vault), 422, "invalid_request")
    not_ready = {"text": "x", "vault": {}, "pipeline": "slow"}
    _refusal(client.post("/api/restore", json=not_ready), 422, "pipeline_not_ready")


def test_wrong_media_type_path_and_method(client):
    plain = client.post(
        "/api/detect", content=b'{"text": "x"}', headers={"content-type": "text/plain"}
    )
    _refusal(plain, 415, "unsupported_media_type")
    _refusal(client.get("/api/nothing"), 404, "not_found")
    _refusal(client.get("/api/detect"), 405, "method_not_allowed")


def test_internal_failure_is_named_by_type_only(client, caplog):
    caplog.set_level(logging.DEBUG)
    response = _detect(client, text=f"text {CANARY} here", pipeline="explode")
    body = _refusal(response, 500, "internal")
    assert "RuntimeError" in body["message"]
    assert CANARY not in response.text and CANARY not in _server_log(caplog)


# -- the body guard ---------------------------------------------------------------------------


def test_declared_oversized_body_is_refused_before_it_is_read(client, monkeypatch):
    parsed = []
    monkeypatch.setattr(protocol, "parse_json", lambda body: parsed.append(body) or {})
    limit = protocol.body_limit_for(400)
    body = b"{" + b"x" * limit  # malformed too: a parse would answer 422, not 413
    response = client.post(
        "/api/detect", content=body, headers={"content-type": "application/json"}
    )
    _refusal(response, 413, "body_too_large")
    assert str(limit) in response.json()["message"] and parsed == []


def test_streamed_body_is_cut_at_the_limit(app, monkeypatch):
    # Straight through ASGI: the test client would buffer a streamed body before sending it.
    parsed = []
    monkeypatch.setattr(protocol, "parse_json", lambda body: parsed.append(body) or {})
    pulled = []
    sent: list[dict] = []

    async def receive() -> dict:
        pulled.append(1)  # an endless body without Content-Length
        return {"type": "http.request", "body": b"x" * 65_536, "more_body": True}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/detect",
        "raw_path": b"/api/detect",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    asyncio.run(app(scope, receive, send))
    assert sent[0]["status"] == 413
    assert json.loads(sent[1]["body"])["error"] == "body_too_large"
    assert parsed == [] and len(pulled) == protocol.body_limit_for(400) // 65_536 + 1


def test_a_body_within_the_limit_with_a_long_text_is_parsed_then_refused(client):
    body = json.dumps({"text": "é" * 1000}).encode()
    assert len(body) < protocol.body_limit_for(400)
    response = client.post(
        "/api/detect", content=body, headers={"content-type": "application/json"}
    )
    assert "1000 characters" in _refusal(response, 422, "text_too_long")["message"]


# -- no echo ----------------------------------------------------------------------------------


ECHO_CASES = [
    ("detect", {"text": f"{CANARY} " * 80}),
    ("detect", {"text": CANARY, "min_score": CANARY}),
    ("detect", {"text": CANARY, "types": [CANARY]}),
    ("detect", {"text": CANARY, "pipeline": CANARY}),
    ("detect", {"text": CANARY, "types": [f"{CANARY} with spaces"]}),
    ("detect", {"text": CANARY, "pipeline": f"{CANARY}/../x"}),
    ("detect", {"text": CANARY, "operators": {"EMAIL": CANARY}}),
    ("detect", {"text": CANARY, "operators": {f"{CANARY}": "hash"}}),
    ("detect", {"text": CANARY, CANARY: 1}),
    ("detect", {"text": CANARY, "pipeline": "slow"}),
    ("restore", {"text": CANARY, "vault": {CANARY: 1}}),
    ("restore", {"text": CANARY, "vault": {"<EMAIL_1>": CANARY * 80}}),
]


@pytest.mark.parametrize(("path", "body"), ECHO_CASES)
def test_no_refusal_or_log_line_echoes_the_request(client, caplog, path, body):
    caplog.set_level(logging.DEBUG)
    response = client.post(f"/api/{path}", json=body)
    assert response.status_code == 422
    assert CANARY not in response.text
    assert CANARY not in _server_log(caplog)


def test_malformed_json_with_the_canary_is_not_echoed(client, caplog):
    caplog.set_level(logging.DEBUG)
    response = client.post(
        "/api/detect",
        content=f'{{"text": "{CANARY}", }}'.encode(),
        headers={"content-type": "application/json"},
    )
    _refusal(response, 422, "malformed_json")
    assert CANARY not in response.text and CANARY not in _server_log(caplog)


def test_request_log_leaves_the_query_string_out(client, caplog):
    caplog.set_level(logging.DEBUG)
    assert client.get(f"/api/types?text={CANARY}").status_code == 200
    assert "GET /api/types 200" in _server_log(caplog) and CANARY not in _server_log(caplog)


def test_successful_requests_log_counts_not_text(client, caplog):
    caplog.set_level(logging.DEBUG)
    text = f"{CANARY} mail ada@example.com"
    detect = _detect(client, text=text).json()
    client.post("/api/restore", json={"text": detect["masked"], "vault": detect["vault"]})
    log = _server_log(caplog)
    assert "detect: pipeline=rules" in log and "restore:" in log
    assert CANARY not in log and "ada@example.com" not in log


# -- the page and the command -----------------------------------------------------------------


def test_page_and_assets_are_served_with_a_strict_policy(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "connect-src 'self'" in policy
    for asset in ("/static/app.js", "/static/style.css"):
        assert client.get(asset).status_code == 200
    script = client.get("/static/app.js").text
    assert "innerHTML" not in script and "http://" not in script and "https://" not in script


def test_model_option_names():
    assert model_slots(["/srv/models/en_pii_x/", "custom=./p", "en_pii_x", "rules"]) == [
        ("en_pii_x", "/srv/models/en_pii_x/"),
        ("custom", "./p"),
        ("en_pii_x-2", "en_pii_x"),
        ("rules-2", "rules"),
    ]


def test_import_spacy_pii_does_not_import_fastapi():
    code = "import sys, spacy_pii; print([m for m in ('fastapi', 'uvicorn') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_serve_command_serves_the_page_on_localhost():
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "spacy_pii", "serve", "--port", str(port), "--max-chars", "1000"],
        cwd=REPO,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        health = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{base}/api/health", timeout=2) as response:
                    health = json.load(response)
                break
            except OSError:
                time.sleep(0.2)
        assert health is not None and health["max_chars"] == 1000
        with urllib.request.urlopen(f"{base}/?q={CANARY}", timeout=5) as response:
            assert "spacy-pii" in response.read().decode()
        with urllib.request.urlopen(f"{base}/api/pipelines", timeout=5) as response:
            names = [row["name"] for row in json.load(response)["pipelines"]]
        assert names == ["rules", "default"]
        # A page on another origin that resolves its name to 127.0.0.1 (DNS rebinding)
        # sends its own Host header: refused.
        rebound = urllib.request.Request(f"{base}/api/health", headers={"Host": "evil.example"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(rebound, timeout=5)
        assert refused.value.code == 400
    finally:
        process.terminate()
        output = process.communicate(timeout=30)[0].decode()
    assert f"http://127.0.0.1:{port}/" in output
    assert "GET /api/pipelines 200" in output and CANARY not in output


def test_a_language_code_serves_that_languages_pipeline():
    # `spacy-pii serve --model de`: the slot's source is the code, loaded by spacy_pii.load.
    slots = model_slots(["de"])
    assert slots == [("de", "de")]
    app = create_app(PipelineRegistry(slots), max_chars=400)
    text = "Frau Schneider wohnt in der Hauptstraße 5, Handy 0171 2345678."
    with TestClient(app, raise_server_exceptions=False) as test_client:
        registry = app.state.service.registry
        deadline = time.monotonic() + 120
        while registry.slots["de"].state not in ("ready", "failed") and time.monotonic() < deadline:
            time.sleep(0.05)
        body = test_client.post("/api/detect", json={"pipeline": "de", "text": text}).json()
    found = {(row["type"], row["text"]) for row in body["spans"]}
    assert {("ADDRESS", "Hauptstraße 5"), ("PHONE", "0171 2345678")} <= found
    assert ("PERSON", "Schneider") in found
