"""The multilingual corpora: row validation, label folding, fixed held-out tails, pieces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.errors import UnknownLabel
from spacy_pii.evaluation.documents import CorpusLineError
from spacy_pii.generator.multilingual import (
    ML_SOURCES,
    MlSource,
    build_ml_corpus,
    fold_row,
    held_out_tail,
    parse_row,
    split_for_training,
)
from spacy_pii.generator.script_copies import cyrillic_copy, original_set

FOLD = load_taxonomy().fold
MEDDOCAN = MlSource("meddocan_es", "es", "meddocan", "m.jsonl", "train")


def _line(text: str, *spans: tuple[str, str], doc_id: str = "d1", lang: str = "es") -> str:
    out = []
    for value, label in spans:
        start = text.index(value)
        out.append({"start": start, "end": start + len(value), "label": label})
    return json.dumps({"text": text, "spans": out, "meta": {"doc_id": doc_id, "lang": lang}})


def _values(doc: dict) -> list[tuple[str, str]]:
    return [(doc["text"][s["start"] : s["end"]], s["label"]) for s in doc["spans"]]


def test_meddocan_labels_fold_to_public_types():
    text = "Nombre: Ernesto. Apellidos: Rivera Bueno. NHC: 368503. Madrid. Tel: 967 597 100."
    row = parse_row(
        _line(
            text,
            ("Ernesto", "NOMBRE_SUJETO_ASISTENCIA"),
            ("Rivera Bueno", "NOMBRE_SUJETO_ASISTENCIA"),
            ("368503", "ID_SUJETO_ASISTENCIA"),
            ("Madrid", "TERRITORIO"),
            ("967 597 100", "NUMERO_TELEFONO"),
        ),
        1,
    )
    assert _values(fold_row(row, FOLD, MEDDOCAN)) == [
        ("Ernesto", "PERSON"),
        ("Rivera Bueno", "PERSON"),
        ("368503", "GOV_ID"),
        ("967 597 100", "PHONE"),
    ]


def test_germeval_part_labels_drop_and_per_folds():
    source = MlSource("germeval_de", "de", "germeval", "g.jsonl", "train")
    text = "Die Merkel-Regierung und Angela Merkel in Berlin"
    row = parse_row(
        _line(
            text,
            ("Merkel-Regierung", "PERpart"),
            ("Angela Merkel", "PER"),
            ("Berlin", "LOC"),
            lang="de",
        ),
        1,
    )
    assert _values(fold_row(row, FOLD, source)) == [("Angela Merkel", "PERSON")]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("{not json", "not valid JSON"),
        (
            json.dumps(
                {
                    "text": "abc",
                    "spans": [{"start": 1, "end": 9, "label": "PER"}],
                    "meta": {"doc_id": "a", "lang": "de"},
                }
            ),
            "outside the text",
        ),
        (
            json.dumps(
                {
                    "text": "abcdef",
                    "spans": [
                        {"start": 2, "end": 5, "label": "PER"},
                        {"start": 3, "end": 6, "label": "PER"},
                    ],
                    "meta": {"doc_id": "a", "lang": "de"},
                }
            ),
            "overlaps",
        ),
        (json.dumps({"text": "secret words", "spans": []}), "meta"),
    ],
)
def test_bad_rows_raise_a_typed_error_without_the_text(line, reason):
    with pytest.raises(CorpusLineError) as caught:
        parse_row(line, 7)
    assert caught.value.line == 7
    assert reason in str(caught.value)
    assert "secret words" not in str(caught.value)


def test_an_unknown_label_is_an_error_not_a_drop():
    row = parse_row(_line("Ada here", ("Ada", "NOT_A_LABEL_ANYWHERE")), 1)
    with pytest.raises(UnknownLabel):
        fold_row(row, FOLD, MEDDOCAN)


def test_held_out_tail_is_the_last_fifth_rounded_up():
    assert held_out_tail(10) == 8
    assert held_out_tail(11) == 8
    assert held_out_tail(1) == 0


def test_europeana_tail_is_dev_and_never_train(tmp_path: Path):
    lines = [
        _line(f"Herr Name{i} kam.", (f"Name{i}", "PER"), doc_id=f"p{i}", lang="de")
        for i in range(10)
    ]
    (tmp_path / "e.jsonl").write_text("\n".join(lines) + "\n")
    source = MlSource("europeana_x", "de", "europeana", "e.jsonl", "tail")
    corpus = build_ml_corpus(tmp_path, FOLD, [source])
    assert corpus.held_out_ids == {"e.jsonl": ["p8", "p9"]}
    assert [d["meta"]["doc_id"] for d in corpus.dev["europeana_x"]] == ["p8", "p9"]
    assert {d["meta"]["doc_id"] for d in corpus.train} == {f"p{i}" for i in range(8)}


def test_training_pieces_never_cut_a_span():
    text = ("Ein Satz hier. " * 120) + "Anna Maria Schmidt kam. " + ("Noch einer. " * 150)
    start = text.index("Anna")
    doc = {
        "text": text,
        "spans": [{"start": start, "end": start + 18, "label": "PERSON"}],
        "meta": {"doc_id": "x"},
    }
    pieces = split_for_training(doc, limit=500)
    assert len(pieces) > 3
    assert "".join(p["text"] for p in pieces) == text
    names = [(p["text"][s["start"] : s["end"]]) for p in pieces for s in p["spans"]]
    assert names == ["Anna Maria Schmidt"]


def test_every_shared_source_is_named_once_per_role():
    files = [s.file for s in ML_SOURCES]
    assert len(files) == len(set(files))
    assert {s.role for s in ML_SOURCES} == {"train", "dev", "tail"}


def test_cyrillic_copy_keeps_every_span_on_its_words():
    text = "Predsjednik Aleksandar Vučić i Ljiljana Njegoš (NJ) rekli su. Džon Džordž, Đorđe."
    names = ["Aleksandar Vučić", "Ljiljana Njegoš", "Džon Džordž", "Đorđe"]
    spans = [
        {"start": text.index(n), "end": text.index(n) + len(n), "label": "PERSON"} for n in names
    ]
    doc = {"text": text, "spans": spans, "meta": {"doc_id": "d1", "set": "uner_sr", "lang": "sr"}}
    copy = cyrillic_copy(doc)
    assert [copy["text"][s["start"] : s["end"]] for s in copy["spans"]] == [
        "Александар Вучић",
        "Љиљана Његош",
        "Џон Џорџ",
        "Ђорђе",
    ]
    assert copy["text"].startswith("Предсједник ")
    assert copy["meta"] == {"doc_id": "d1_cyrl", "set": "uner_sr_cyrl", "lang": "sr"}
    assert original_set(copy["meta"]["set"]) == original_set("uner_sr") == "uner_sr"
    assert doc["text"] == text  # the original is untouched


def test_cyrillic_copies_train_beside_their_originals_and_make_a_dev_set(tmp_path: Path):
    (tmp_path / "t.jsonl").write_text(_line("Vidio sam Marka.", ("Marka", "PER"), lang="sr"))
    (tmp_path / "d.jsonl").write_text(_line("Jovan je došao.", ("Jovan", "PER"), lang="sr"))
    sources = [
        MlSource("uner_sr", "sr", "uner", "t.jsonl", "train", cyrillic_copy=True),
        MlSource("uner_sr", "sr", "uner", "d.jsonl", "dev", cyrillic_copy=True),
    ]
    corpus = build_ml_corpus(tmp_path, FOLD, sources)
    assert [_values(d) for d in corpus.train] == [
        [("Marka", "PERSON")],
        [("Марка", "PERSON")],
    ]
    assert sorted(corpus.dev) == ["uner_sr", "uner_sr_cyrl"]
    assert _values(corpus.dev["uner_sr_cyrl"][0]) == [("Јован", "PERSON")]
