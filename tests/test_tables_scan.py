"""Table scans: header cues, the mergeable sample, column decisions, readers and bad input."""

from __future__ import annotations

import json
import re

import pytest

from spacy_pii.errors import ConfigError, TableError
from spacy_pii.tables import (
    RULES,
    from_pandas,
    header_matcher,
    normalise_header,
    open_table,
    rows_source,
    scan_table,
)
from spacy_pii.tables.headers import parse_lexicon
from spacy_pii.tables.sampling import TableSampler, row_priority

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
_PHONE = re.compile(r"\+\d[\d ]{9,14}\d")
NAMES = frozenset({"Ada", "Grace", "Alan", "Lovelace", "Hopper", "Turing"})


def stub_detector(texts):
    """Emails, "+"-prefixed phones, and a fixed list of names: enough to test decisions."""
    out = []
    for text in texts:
        spans = [(m.start(), m.end(), "EMAIL") for m in _EMAIL.finditer(text)]
        spans += [(m.start(), m.end(), "PHONE") for m in _PHONE.finditer(text)]
        spans += [
            (m.start(), m.end(), "PERSON") for m in re.finditer(r"\w+", text) if m.group() in NAMES
        ]
        out.append(sorted(spans))
    return out


@pytest.mark.parametrize(
    ("header", "type_", "strength", "role"),
    [
        ("first_name", "PERSON", "strong", None),
        ("FirstName", "PERSON", "strong", None),
        ("E-Mail", "EMAIL", "strong", None),
        ("Telefon", "PHONE", "strong", None),
        ("Geburtsdatum", "DATE_OF_BIRTH", "strong", None),
        ("Prénom", "PERSON", "strong", None),
        ("apellidos", "PERSON", "strong", None),
        ("Nachname", "PERSON", "strong", None),
        ("nom", "PERSON", "weak", None),
        ("billing_phone_number", "PHONE", "strong", None),
        ("CustomerID", None, None, "key"),
        ("order_number", None, None, "key"),
        ("customer_notes", None, None, "free_text"),
        ("created_at", None, None, None),
    ],
)
def test_header_cues_across_languages(header, type_, strength, role):
    cue = header_matcher().cue(header)
    assert (cue.type, cue.strength, cue.role) == (type_, strength, role)


def test_header_normalisation():
    assert normalise_header("E-Mail Adresse") == "e_mail_adresse"
    assert normalise_header("dateOfBirth") == "date_of_birth"
    assert normalise_header("Straße") == "strasse"


def test_lexicon_rejects_unknown_types_and_unnormalised_terms():
    with pytest.raises(ConfigError, match="taxonomy lacks"):
        parse_lexicon({"version": "x", "types": {"SHOE": {"shape": "."}}, "roles": {}})
    with pytest.raises(ConfigError, match="not normalised"):
        parse_lexicon(
            {"version": "x", "types": {"EMAIL": {"shape": ".", "strong": {"en": ["E-Mail"]}}},
             "roles": {}}
        )  # fmt: skip


def test_sample_merges_exactly_whatever_the_split():
    rows = [(f"v{i}", None if i % 7 == 0 else f"w{i}") for i in range(3000)]
    whole = TableSampler(2, 50, seed=3, track_kinds=False)
    whole.add_rows(rows, 0)
    for cut in (1, 999, 2500):
        left = TableSampler(2, 50, seed=3, track_kinds=False)
        right = TableSampler(2, 50, seed=3, track_kinds=False)
        left.add_rows(rows[:cut], 0)
        right.add_rows(rows[cut:], cut)
        right.merge(left)
        for merged, reference in zip(right.columns, whole.columns, strict=True):
            assert merged.sample() == reference.sample()
            assert (merged.rows, merged.empty) == (reference.rows, reference.empty)
    assert whole.columns[1].empty == len(range(0, 3000, 7))


def test_sample_depends_on_the_seed_only():
    assert row_priority(1, 5) == row_priority(1, 5) != row_priority(2, 5)


def _table(n=400):
    columns = ["id", "first_name", "email", "contact_id", "name", "notes", "qty", "email_verified"]
    first = ["Joy", "Mark", "Grace", "Ada", "Bob", "Li", "José", "Anne-Marie"]
    rows = []
    for i in range(n):
        rows.append(
            (
                str(i),
                first[i % len(first)],
                f"user{i}@example.com",
                f"+44 20 7946 {i:04d}",
                f"Widget {i % 9}",
                f"Customer called about order {i}; Ada Lovelace will follow up next week.",
                str(i % 17),
                "true" if i % 2 else "false",
            )
        )
    return columns, rows


def test_column_decisions_and_their_rules():
    columns, rows = _table()
    scan = scan_table(rows_source(columns, rows), stub_detector, sample_size=200)
    got = {c.name: (c.decision, c.rule, c.pii_type) for c in scan.columns}
    assert got["id"] == ("clean", "key", None)
    # Names with no grammar: the header is the evidence, and it is marked as such.
    assert got["first_name"][0:1] == ("pii",) and got["first_name"][2] == "PERSON"
    assert got["email"] == ("pii", "header+cells", "EMAIL")
    assert got["contact_id"] == ("pii", "cells-override-header", "PHONE")
    assert got["name"] == ("clean", "no-evidence", None)
    assert got["notes"] == ("pii", "free-text", "PERSON")
    assert got["qty"] == ("clean", "no-evidence", None)
    assert got["email_verified"] == ("clean", "header-contradicted", None)
    assert {c.rule for c in scan.columns} <= set(RULES)
    assert scan.column("notes").policy == "spans"
    assert scan.column("id").role == "key" and scan.column("id").policy == "keep"


def test_header_only_types_get_no_score_and_sampled_shares_get_intervals():
    rows = [(f"19{50 + i % 40}-0{1 + i % 9}-1{i % 10}", f"a{i}@example.com") for i in range(900)]
    scan = scan_table(rows_source(["geburtsdatum", "mail"], rows), stub_detector, sample_size=100)
    dob = scan.column("geburtsdatum")
    assert (dob.decision, dob.rule) == ("pii", "header+shape")
    (evidence,) = dob.types
    assert evidence.source == "header" and evidence.share is None and evidence.interval is None
    assert evidence.shape_share == 1.0
    email = scan.column("mail").types[0]
    assert email.share == 1.0 and email.interval is not None and email.interval[0] > 0.95
    assert dob.sampled and dob.examined == 100


def test_full_pass_has_no_interval_and_equals_sample_when_sample_covers_all():
    columns, rows = _table(120)
    sampled = scan_table(rows_source(columns, rows), stub_detector, sample_size=500)
    full = scan_table(rows_source(columns, rows), stub_detector, full=True)
    for a, b in zip(sampled.columns, full.columns, strict=True):
        assert (a.decision, a.rule, a.examined) == (b.decision, b.rule, b.examined)
        assert all(t.interval is None for t in b.types)


def test_scan_is_seeded():
    columns, rows = _table(2000)
    one = scan_table(rows_source(columns, rows), stub_detector, sample_size=50, seed=7)
    two = scan_table(rows_source(columns, rows), stub_detector, sample_size=50, seed=7)
    assert one.to_dict() == two.to_dict()


def test_report_json_holds_no_cell_value():
    columns, rows = _table(300)
    scan = scan_table(rows_source(columns, rows), stub_detector, sample_size=100)
    text = scan.to_json()
    for row in rows:
        for cell in row:
            if re.search(r"[A-Za-z]{2}", cell) and cell not in ("true", "false"):
                assert cell not in text
    shapes = [s["shape"] for c in scan.to_dict()["columns"] for s in c["shapes"]]
    assert "xxxxdd@xxxxxxx.xxx" in shapes


def test_csv_tsv_jsonl_and_pandas_readers(tmp_path):
    pd = pytest.importorskip("pandas")
    (tmp_path / "t.csv").write_text("id;E-Mail\n1;ada@example.com\n2;bob@example.org\n")
    (tmp_path / "t.tsv").write_text("id\temail\n1\tada@example.com\n")
    records = [{"id": 1, "customer": {"email": "ada@example.com", "tags": ["a"]}}, {"id": "x"}]
    (tmp_path / "t.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    csv_scan = scan_table(tmp_path / "t.csv", stub_detector)
    assert csv_scan.column("E-Mail").decision == "pii" and csv_scan.rows == 2
    assert scan_table(tmp_path / "t.tsv", stub_detector).column("email").decision == "pii"
    source = open_table(tmp_path / "t.jsonl")
    assert source.columns == ["id", "customer.email", "customer.tags"]
    json_scan = scan_table(source, stub_detector)
    assert json_scan.column("customer.email").pii_type == "EMAIL"
    assert json_scan.column("id").kinds == {"int": 1, "str": 1}  # mixed types, reported
    frame = pd.DataFrame({"email": ["ada@example.com", None], "n": [1.0, float("nan")]})
    frame_scan = scan_table(from_pandas(frame), stub_detector)
    assert frame_scan.column("email").empty == 1 and frame_scan.column("n").empty == 1


def test_parquet_reader(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = pa.table({"email": ["ada@example.com"] * 5, "age": list(range(5))})
    pq.write_table(table, tmp_path / "t.parquet")
    scan = scan_table(tmp_path / "t.parquet", stub_detector)
    assert scan.column("email").decision == "pii" and scan.column("age").kinds == {"int": 5}


def test_bad_input_gets_typed_errors_without_cell_values(tmp_path):
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b\nsecretvalue1,x,extra\nsecretvalue2\n")
    scan = scan_table(ragged, stub_detector)
    assert scan.ragged_rows == 2 and scan.rows == 2
    with pytest.raises(TableError, match="data row 1 has 3 cells") as err:
        scan_table(open_table(ragged, strict=True), stub_detector)
    assert "secretvalue" not in str(err.value)
    bad_utf8 = tmp_path / "bad.csv"
    bad_utf8.write_bytes(b"a,b\nJos\xe9 Garc\xeda,1\n")
    with pytest.raises(TableError, match="not valid utf-8") as err:
        scan_table(bad_utf8, stub_detector)
    assert "Jos" not in str(err.value)
    huge = tmp_path / "huge.csv"
    huge.write_text("a\n" + "Z" * 10_000_001 + "\n")
    with pytest.raises(TableError, match="size limit") as err:
        scan_table(huge, stub_detector)
    assert "ZZZ" not in str(err.value)
    big_ok = tmp_path / "big.csv"
    big_ok.write_text("notes\n" + "word " * 100_000 + "ada@example.com\n")
    assert scan_table(big_ok, stub_detector).column("notes").examined == 1
    with pytest.raises(TableError, match="not JSON"):
        (tmp_path / "x.jsonl").write_text('{"a": 1}\n{oops\n')
        scan_table(tmp_path / "x.jsonl", stub_detector)


def test_full_pass_row_limit_is_refused_before_work(tmp_path):
    calls = []

    def counting(texts):
        calls.append(len(texts))
        return stub_detector(texts)

    source = rows_source(["a"], [("x",)] * 50)
    source.row_count = 1_000_000_000  # a billion rows, declared up front (Parquet metadata)
    with pytest.raises(TableError, match="exceeds the limit"):
        scan_table(source, counting, full=True)
    assert calls == []
    streamed = tmp_path / "t.csv"  # a CSV's length is known only by reading it
    streamed.write_text("a\n" + "x\n" * 5000)
    with pytest.raises(TableError, match="reached 10 rows"):
        scan_table(streamed, counting, full=True, max_full_rows=10)
    assert scan_table(source, counting).rows == 50  # sampling has no row limit
    with pytest.raises(ConfigError):
        scan_table(source, counting, sample_size=0)


def test_model_types_do_not_override_a_header_and_categories_stay_clean():
    def everything_a_name(texts):
        return [[(0, len(text), "PERSON")] for text in texts]

    rows = [(f"{i} rue de la Paix", ("Vertrieb", "Einkauf", "IT")[i % 3], f"Ort {i}")
            for i in range(200)]  # fmt: skip
    scan = scan_table(rows_source(["adresse", "Abteilung", "ville"], rows), everything_a_name)
    assert (scan.column("adresse").decision, scan.column("adresse").pii_type) == ("pii", "ADDRESS")
    assert (scan.column("Abteilung").decision, scan.column("Abteilung").rule) == (
        "clean",
        "categorical",
    )
    assert (scan.column("ville").decision, scan.column("ville").rule) == (
        "maybe",
        "quasi-identifier",
    )
