"""Russian names swapped into the Cyrillic training copies: spans stay on the new names,
other spans move along, the draw is reproducible, and names are declined with regular
endings."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.generator.multilingual import MlSource, build_ml_corpus
from spacy_pii.generator.name_swaps import decline, swapped_copy

RUSSIAN = re.compile(r"^[А-Яа-яЁё]+(?:[- ][А-Яа-яЁё]+)*$")


def _doc(text: str, *spans: tuple[str, str], doc_id: str = "d1") -> dict:
    out = [
        {"start": text.index(value), "end": text.index(value) + len(value), "label": label}
        for value, label in spans
    ]
    meta = {"doc_id": doc_id, "set": "uner_sr_cyrl", "lang": "sr"}
    return {"text": text, "spans": out, "meta": meta}


def _values(doc: dict) -> list[tuple[str, str]]:
    return [(doc["text"][s["start"] : s["end"]], s["label"]) for s in doc["spans"]]


def test_every_person_span_gets_a_russian_name_and_other_spans_keep_their_words():
    doc = _doc(
        "Иво Санадер је писао на ivo@example.hr, а Косор је одговорила из Загреба.",
        ("Иво Санадер", "PERSON"),
        ("ivo@example.hr", "EMAIL"),
        ("Косор", "PERSON"),
    )
    copy = swapped_copy(doc)
    assert copy is not None
    (first, _), email, (second, _) = _values(copy)
    assert email == ("ivo@example.hr", "EMAIL")
    assert RUSSIAN.match(first) and len(first.split()) == 2 and first != "Иво Санадер"
    assert RUSSIAN.match(second) and len(second.split()) == 1
    assert copy["text"].endswith(" је одговорила из Загреба.")
    assert copy["meta"]["doc_id"] == "d1_swap" and copy["meta"]["set"] == "uner_sr_cyrl_swap"
    assert copy["meta"]["swap_locale"] == "ru_RU"
    assert doc["text"].startswith("Иво Санадер")  # the original is untouched


def test_three_words_get_a_patronymic_and_casing_follows_the_original():
    doc = _doc(
        "ПРЕДСЕДНИК ВУЧИЋ и Петар Петровић Његош.",
        ("ВУЧИЋ", "PERSON"),
        ("Петар Петровић Његош", "PERSON"),
    )
    for k in range(30):
        copy = swapped_copy({**doc, "meta": {"doc_id": f"c{k}"}})
        upper, title = (value for value, _ in _values(copy))
        assert RUSSIAN.match(upper) and upper.isupper()
        assert RUSSIAN.match(title) and len(title.split()) == 3
        assert title[0].isupper() and not title.isupper()


def test_the_same_document_gets_the_same_copy_and_another_document_another():
    doc = _doc("Састали су се Иво Санадер и Јадранка Косор.", ("Иво Санадер", "PERSON"))
    assert swapped_copy(doc) == swapped_copy(doc)
    others = {swapped_copy({**doc, "meta": {"doc_id": f"d{k}"}})["text"] for k in range(20)}
    assert len(others) > 10


def test_a_document_without_a_name_gets_no_copy():
    assert swapped_copy(_doc("Из Загреба.", ("Загреба", "LOCATION"))) is None


@pytest.mark.parametrize(
    ("word", "part", "gender", "case", "expected"),
    [
        ("Иванов", "last", "m", 0, "Иванова"),
        ("Иванов", "last", "m", 2, "Ивановым"),
        ("Иванова", "last", "f", 1, "Ивановой"),
        ("Достоевский", "last", "m", 1, "Достоевскому"),
        ("Толстой", "last", "m", 0, "Толстого"),
        ("Андрей", "first", "m", 0, "Андрея"),
        ("Иван", "first", "m", 2, "Иваном"),
        ("Ольга", "first", "f", 0, "Ольги"),
        ("Мария", "first", "f", 2, "Марией"),
        ("Петрович", "middle", "m", 2, "Петровичем"),
        ("Петровна", "middle", "f", 0, "Петровны"),
        # No regular ending: a woman's surname in -ых and a given name in -ь stay as they are.
        ("Черных", "last", "f", 0, "Черных"),
        ("Любовь", "first", "f", 1, "Любовь"),
    ],
)
def test_regular_case_endings(word, part, gender, case, expected):
    assert decline(word, part, gender, case) == expected


def test_the_corpus_swaps_names_in_the_cyrillic_copies_only(tmp_path: Path):
    lines = [
        json.dumps(
            {
                "text": f"Vidio sam Marka {k}.",
                "spans": [{"start": 10, "end": 15, "label": "PER"}],
                "meta": {"doc_id": f"t{k}", "lang": "sr"},
            }
        )
        for k in range(10)
    ]
    (tmp_path / "t.jsonl").write_text("\n".join(lines))
    source = MlSource("uner_sr", "sr", "uner", "t.jsonl", "train", True, True)
    corpus = build_ml_corpus(tmp_path, load_taxonomy().fold, [source])
    by_set: dict[str, list[dict]] = {}
    for doc in corpus.train:
        by_set.setdefault(doc["meta"]["set"], []).append(doc)
    assert sorted(by_set) == ["uner_sr", "uner_sr_cyrl", "uner_sr_cyrl_swap"]
    assert all(len(docs) == 10 for docs in by_set.values())
    for doc in by_set["uner_sr_cyrl_swap"]:
        assert RUSSIAN.match(_values(doc)[0][0])
        assert doc["text"].startswith("Видио сам ")


def test_overlapping_spans_are_refused_not_mangled():
    doc = _doc("Иво Санадер је дошао.", ("Иво Санадер", "PERSON"), ("Санадер", "PERSON"))
    with pytest.raises(ValueError, match="disjoint"):
        swapped_copy(doc)


def test_russian_names_without_cyrillic_copies_is_a_config_error():
    with pytest.raises(ValueError, match="cyrillic_copy"):
        MlSource("uner_sk", "sk", "uner", "t.jsonl", "train", russian_names=True)
