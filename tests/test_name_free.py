"""Name-free clinical notes: a fixed held-out part, scored for false names."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from spacy_pii.generator.corpus import read_jsonl, write_jsonl
from spacy_pii.generator.name_free import (
    NAME_FREE_FILE,
    SOURCE_PREFIX,
    is_held_out,
    load_name_free_held_out,
)

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "corpus" / "external" / NAME_FREE_FILE


def _note(doc_id: str, text: str = "Pt resting.\nFoley to gravity.") -> dict:
    return {"text": text, "spans": [], "meta": {"source": "name_free/test", "doc_id": doc_id}}


def test_the_split_is_fixed_by_the_id_and_holds_out_about_three_tenths():
    held = Counter(is_held_out(f"note-{i}") for i in range(4000))
    assert 0.27 < held[True] / 4000 < 0.33
    assert is_held_out("note-7") == is_held_out("note-7")


def test_only_the_held_out_documents_are_loaded_and_kept_whole(tmp_path):
    long_text = "\n".join(f"Line {i}: vitals stable, no acute events overnight." for i in range(80))
    ids = [f"note-{i}" for i in range(60)]
    write_jsonl(tmp_path / NAME_FREE_FILE, [_note(doc_id, long_text) for doc_id in ids])
    held = load_name_free_held_out(tmp_path)
    assert {d["meta"]["doc_id"] for d in held} == {i for i in ids if is_held_out(i)}
    assert held and all(d["text"] == long_text for d in held)


def test_a_document_with_spans_is_refused_and_a_missing_file_is_an_error(tmp_path):
    doc = _note("note-1")
    doc["spans"] = [{"start": 0, "end": 2, "label": "PERSON"}]
    write_jsonl(tmp_path / NAME_FREE_FILE, [doc])
    with pytest.raises(ValueError, match="holds spans"):
        load_name_free_held_out(tmp_path)
    with pytest.raises(FileNotFoundError):
        load_name_free_held_out(tmp_path / "missing")


def test_the_shipped_notes_share_no_line_with_the_clinical_precision_set():
    notes = list(read_jsonl(SHIPPED))
    assert len(notes) > 1000
    assert all(d["meta"]["source"].startswith(SOURCE_PREFIX) and not d["spans"] for d in notes)
    assert len({d["text"] for d in notes}) == len(notes)
    precision = REPO / "corpus" / "precision" / "clinical.jsonl"
    scored = {
        line.strip()
        for d in read_jsonl(precision)
        for line in d["text"].splitlines()
        if line.strip()
    }
    lines = {line.strip() for d in notes for line in d["text"].splitlines() if line.strip()}
    assert not lines & scored
