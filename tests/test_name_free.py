"""Name-free clinical notes: negatives for names in train, a held-out part never trained on."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from spacy_pii.generator.corpus import read_jsonl
from spacy_pii.generator.name_free import (
    NAME_FREE_FILES,
    SOURCE_PREFIX,
    load_name_free,
    name_free_split,
)

REPO = Path(__file__).resolve().parents[1]
EXTERNAL = REPO / "corpus" / "external"
SHIPPED = EXTERNAL / NAME_FREE_FILES[0]


def _write(folder: Path, docs: list[dict]) -> None:
    text = "".join(json.dumps(d) + "\n" for d in docs)
    (folder / NAME_FREE_FILES[0]).write_text(text, encoding="utf-8")


def _note(doc_id: str, text: str = "Pt resting.\nFoley to gravity.") -> dict:
    return {"text": text, "spans": [], "meta": {"source": "name_free/test", "doc_id": doc_id}}


def test_the_split_is_fixed_by_the_id_and_holds_out_about_three_tenths():
    splits = Counter(name_free_split(f"note-{i}") for i in range(4000))
    assert 0.27 < splits["held_out"] / 4000 < 0.33
    assert name_free_split("note-7") == name_free_split("note-7")


def test_train_and_held_out_never_share_a_document(tmp_path):
    _write(tmp_path, [_note(f"note-{i}") for i in range(60)])
    train = {d["meta"]["doc_id"] for d in load_name_free(tmp_path, "train")}
    held = {d["meta"]["doc_id"] for d in load_name_free(tmp_path, "held_out")}
    assert train and held
    assert not train & held
    assert len(train | held) == 60


def test_a_long_note_is_cut_into_pieces_for_training_and_kept_whole_when_held_out(tmp_path):
    long_text = "\n".join(f"Line {i}: vitals stable, no acute events overnight." for i in range(80))
    ids = [f"long-{i}" for i in range(40)]
    _write(tmp_path, [_note(doc_id, long_text) for doc_id in ids])
    train = load_name_free(tmp_path, "train")
    held = load_name_free(tmp_path, "held_out")
    assert all(len(d["text"]) <= 1300 for d in train)
    assert len(train) > sum(name_free_split(i) == "train" for i in ids)
    assert all(d["text"] == long_text for d in held)


def test_a_document_with_spans_is_refused(tmp_path):
    doc = _note("note-1")
    doc["spans"] = [{"start": 0, "end": 2, "label": "PERSON"}]
    _write(tmp_path, [doc])
    with pytest.raises(ValueError, match="holds spans"):
        load_name_free(tmp_path, "train")
    with pytest.raises(ValueError, match="split"):
        load_name_free(tmp_path, "dev")


def test_no_file_means_no_documents(tmp_path):
    assert load_name_free(tmp_path, "train") == []


def test_the_shipped_notes_share_no_line_with_the_clinical_precision_set():
    notes = list(read_jsonl(SHIPPED))
    assert len(notes) > 1000
    assert all(d["meta"]["source"].startswith(SOURCE_PREFIX) and not d["spans"] for d in notes)
    precision = REPO / "corpus" / "precision" / "clinical.jsonl"
    scored = {
        line.strip()
        for d in read_jsonl(precision)
        for line in d["text"].splitlines()
        if line.strip()
    }
    lines = {line.strip() for d in notes for line in d["text"].splitlines() if line.strip()}
    assert not lines & scored
