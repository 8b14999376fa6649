"""Corpus assembly: template splits, label folding, span conventions, case augmentation."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spacy_pii.core.taxonomy import load_taxonomy
from spacy_pii.errors import SpanOffsetError, UnknownLabel
from spacy_pii.generator.corpus import (
    EVAL_ONLY_FILES,
    PRESIDIO_FILE,
    SPLITS,
    WNUT_TRAIN_FILE,
    assign_splits,
    case_augment,
    check_spans,
    fold_doc,
    label_counts,
    label_handles,
    merge_address_runs,
    read_jsonl,
    relabel_birth_dates,
    split_by_template,
    split_sizes,
    trim_person,
)
from spacy_pii.generator.real_text import real_text_files

REPO = Path(__file__).resolve().parents[1]
EXTERNAL = REPO / "corpus" / "external"
HAS_EXTERNAL = all((EXTERNAL / n).exists() for n in (PRESIDIO_FILE, *real_text_files()))
needs_external = pytest.mark.skipif(
    not HAS_EXTERNAL, reason="corpus/external lacks a source corpus (see corpus/SOURCES.md)"
)
FOLD = load_taxonomy().fold


def _doc(text: str, *spans: tuple[str, str]) -> dict:
    """A document whose spans are given by value (first occurrence) and label."""
    out = []
    for value, label in spans:
        start = text.index(value)
        out.append({"start": start, "end": start + len(value), "label": label})
    return {"text": text, "spans": out, "meta": {}}


def _values(doc: dict) -> list[tuple[str, str]]:
    return [(doc["text"][s["start"] : s["end"]], s["label"]) for s in doc["spans"]]


# -- splits ----------------------------------------------------------------------------------


def test_assign_splits_is_stratified_and_order_independent():
    ids = [f"{kind}/{i:02d}" for kind in ("a", "b", "c") for i in range(40)]
    forward = assign_splits(ids)
    backward = assign_splits(list(reversed(ids)))
    assert forward == backward
    for kind in ("a", "b", "c"):
        counts = Counter(v for k, v in forward.items() if k.startswith(kind + "/"))
        assert counts == {"train": 28, "dev": 6, "test": 6}


@pytest.mark.parametrize(
    ("n", "expected"),
    [(1, {"train": 1}), (2, {"train": 2}), (3, {"train": 1, "dev": 1, "test": 1})],
    ids=["one", "two", "three-gets-all-splits"],
)
def test_small_groups(n, expected):
    assert Counter(assign_splits([f"k/{i}" for i in range(n)]).values()) == expected


def test_split_sizes_sum_to_n():
    assert split_sizes(6000) == {"train": 4200, "dev": 900, "test": 900}
    assert sum(split_sizes(7).values()) == 7


@needs_external
def test_presidio_templates_never_span_two_splits():
    docs = list(read_jsonl(EXTERNAL / PRESIDIO_FILE))
    parts = split_by_template(docs, "presidio")
    owner: dict[int, str] = {}
    for split, members in parts.items():
        for doc in members:
            assert owner.setdefault(doc["meta"]["template_id"], split) == split
    assert sum(len(v) for v in parts.values()) == len(docs)
    assert Counter(owner.values())["dev"] > 20


# -- span conventions ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("span_text", "expected"),
    [
        ("Mr. John Smith", "John Smith"),
        ("Dr Jones", "Jones"),
        ("MRS. KATE BUSH", "KATE BUSH"),
        ("Mrs. Kathrine Filemonsen DDS", "Kathrine Filemonsen"),
        ("Lord Justice Hale", "Hale"),
        ("John Smith Jr.", "John Smith"),
        ("Smith's", "Smith"),
        ("Anna’s", "Anna"),
        ("Smith, J.", "Smith, J."),
        ("J. Smith", "J. Smith"),
        (" Ada Lovelace, ", "Ada Lovelace"),
        ("Prof. Dr. Anna Müller", "Anna Müller"),
        ("Miss\nBartlett", "Bartlett"),
        ("Anna\u00a0Lee Jr.", "Anna\u00a0Lee"),
    ],
    ids=[
        "title-dot", "title-no-dot", "title-caps", "title-and-post-nominal", "judicial-title",
        "generational-suffix", "possessive", "curly-possessive", "surname-initial",
        "initial-surname", "edge-punctuation", "stacked-titles", "title-ends-a-line",
        "no-break-space",
    ],
)  # fmt: skip
def test_trim_person(span_text, expected):
    text = f"Note: {span_text} called."
    start = text.index(span_text)
    trimmed = trim_person(text, start, start + len(span_text))
    assert trimmed is not None
    assert text[trimmed[0] : trimmed[1]] == expected


def test_trim_person_drops_a_bare_title():
    text = "Ask Dr. today"
    assert trim_person(text, 4, 7) is None


def test_address_pieces_merge_into_one_block():
    doc = _doc(
        "Ship to 12 Baker St, Apt 4\nLondon, UK 75419 please. I am in Paris now.",
        ("12 Baker St", "STREET_ADDRESS"),
        ("Apt 4", "STREET_ADDRESS"),
        ("London", "GPE"),
        ("UK", "GPE"),
        ("75419", "ZIP_CODE"),
        ("Paris", "GPE"),
    )
    merged = merge_address_runs(doc["text"], doc["spans"])
    assert [(doc["text"][s["start"] : s["end"]], s["label"]) for s in merged] == [
        ("12 Baker St, Apt 4\nLondon, UK 75419", "STREET_ADDRESS"),
        ("Paris", "GPE"),
    ]


def test_place_before_a_street_stays_out_of_the_address():
    doc = _doc("Estonia 62488 Allika 46", ("Estonia", "GPE"), ("62488 Allika 46", "STREET_ADDRESS"))
    merged = merge_address_runs(doc["text"], doc["spans"])
    assert [s["label"] for s in merged] == ["GPE", "STREET_ADDRESS"]


@pytest.mark.parametrize(
    ("text", "date", "label"),
    [
        ("She was born on 2/8/1935. Her", "2/8/1935", "DATE_OF_BIRTH"),
        ("Please tell me your date of birth. It's 6/24/1991", "6/24/1991", "DATE_OF_BIRTH"),
        ("DOB: 6/24/1991", "6/24/1991", "DATE_OF_BIRTH"),
        ("The meeting is on 6/24/1991 at noon", "6/24/1991", "DATE_TIME"),
    ],
    ids=["born", "date-of-birth", "dob", "no-cue"],
)
def test_presidio_birth_dates_are_relabelled_by_cue(text, date, label):
    doc = relabel_birth_dates(_doc(text, (date, "DATE_TIME")))
    assert [s["label"] for s in doc["spans"]] == [label]


def test_wnut_handles_become_usernames_and_names_stay():
    doc = _doc(
        "@paulwalk meet Ada at @The_Score . email a@b.co or @ or @toolonghandle_abcdefgh",
        ("Ada", "person"),
    )
    labelled = label_handles(doc)
    assert _values(labelled) == [("@paulwalk", "USERNAME"), ("Ada", "person"),
                                 ("@The_Score", "USERNAME")]  # fmt: skip


# -- folding ---------------------------------------------------------------------------------


def test_presidio_labels_fold_and_titles_drop():
    doc = _doc(
        "Mr. Sam Wu of Acme Corp lives at 5 Elm Rd, Springfield; card 4111111111111111.",
        ("Mr.", "TITLE"),
        ("Sam Wu", "PERSON"),
        ("Acme Corp", "ORGANIZATION"),
        ("5 Elm Rd", "STREET_ADDRESS"),
        ("Springfield", "GPE"),
        ("4111111111111111", "CREDIT_CARD"),
    )
    assert _values(fold_doc(doc, FOLD)) == [
        ("Sam Wu", "PERSON"),
        ("Acme Corp", "ORG"),
        ("5 Elm Rd, Springfield", "ADDRESS"),
        ("4111111111111111", "PAYMENT"),
    ]


def test_presidio_person_with_a_title_inside_is_trimmed():
    doc = _doc("Signed, Dr. Jennifer Holst", ("Dr. Jennifer Holst", "PERSON"))
    assert _values(fold_doc(doc, FOLD)) == [("Jennifer Holst", "PERSON")]


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("person", "PERSON"),
        ("corporation", "ORG"),
        ("location", None),
        ("group", None),
        ("product", None),
        ("creative-work", None),
    ],
    ids=["wnut-person", "wnut-corporation", "wnut-location", "wnut-group", "wnut-product",
         "wnut-creative-work"],
)  # fmt: skip
def test_wnut_labels_fold(label, expected):
    folded = fold_doc(_doc("see Ada there", ("Ada", label)), FOLD)
    assert [s["label"] for s in folded["spans"]] == ([expected] if expected else [])


def test_unknown_label_is_an_error_not_a_drop():
    with pytest.raises(UnknownLabel):
        fold_doc(_doc("see Ada there", ("Ada", "MYSTERY")), FOLD)


def test_span_outside_text_is_an_error():
    doc = {"text": "short", "spans": [{"start": 2, "end": 9, "label": "PERSON"}], "meta": {}}
    with pytest.raises(SpanOffsetError):
        fold_doc(doc, FOLD)


@needs_external
@pytest.mark.parametrize("name", [PRESIDIO_FILE, WNUT_TRAIN_FILE], ids=["presidio", "wnut17"])
def test_external_corpora_fold_cleanly(name):
    types = set(load_taxonomy().types)
    for raw in read_jsonl(EXTERNAL / name):
        doc = fold_doc(raw, FOLD)
        check_spans(doc)
        assert {s["label"] for s in doc["spans"]} <= types


# -- case augmentation -----------------------------------------------------------------------


def test_case_augment_copies_keep_offsets_and_values():
    docs = [_doc(f"Hello Jürgen Weiß no. {i}", ("Jürgen Weiß", "PERSON")) for i in range(40)]
    copies = case_augment(docs, 0.5, seed=1)
    assert len(copies) == 20
    assert Counter(c["meta"]["augment"] for c in copies) == {"lower": 10, "upper": 10}
    for copy in copies:
        check_spans(copy)
        (span,) = copy["spans"]
        value = copy["text"][span["start"] : span["end"]]
        assert value.lower() == "jürgen weiß".lower() or value == "JÜRGEN WEIß"


@given(st.text(min_size=1, max_size=60))
def test_case_augment_never_moves_an_offset(text):
    doc = {"text": text, "spans": [{"start": 0, "end": len(text), "label": "PERSON"}], "meta": {}}
    for copy in case_augment([doc, doc], 1.0, seed=0):
        assert len(copy["text"]) == len(text)


def test_case_augment_rejects_a_bad_fraction():
    with pytest.raises(ValueError, match="fraction"):
        case_augment([], 1.5, seed=0)


# -- the whole build -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built():
    pytest.importorskip("faker", reason="the generator needs the optional 'fake' extra")
    if not HAS_EXTERNAL:
        pytest.skip("corpus/external lacks a source corpus (see corpus/SOURCES.md)")
    from spacy_pii.generator.build import build_corpus

    return build_corpus(EXTERNAL, seed=0, n_generated=90, case_augment_fraction=0.1)


def _doc_id(doc: dict) -> str | None:
    return doc["meta"].get("id") or doc["meta"].get("doc_id")


def test_build_never_includes_a_real_text_dev_set(built):
    splits, manifest = built
    dev_ids = set()
    for name in EVAL_ONLY_FILES:
        dev_ids |= {_doc_id(d) for d in read_jsonl(EXTERNAL / name)}
    assert len(dev_ids) > 2000
    ids = {_doc_id(d) for docs in splits.values() for d in docs}
    assert not ids & dev_ids
    assert manifest["eval_only_not_included"] == list(EVAL_ONLY_FILES)


def test_build_puts_real_text_in_train_only(built):
    splits, manifest = built
    assert manifest["splits"]["train"]["labels"]["USERNAME"] > 1000  # WNUT and BTC @handles
    for split in ("dev", "test"):
        assert not any(d["meta"].get("source", "").startswith("real/") for d in splits[split])
    sources = Counter(d["meta"]["source"] for d in splits["train"] if "augment" not in d["meta"])
    for name in ("wnut17", "btc", "gum", "litbank", "wikigold"):
        assert sources[f"real/{name}"] > 50, name


def test_build_keeps_templates_within_one_split(built):
    splits, _ = built
    owner: dict[str, str] = {}
    for split, docs in splits.items():
        for doc in docs:
            key = f"{doc['meta'].get('source')}/{doc['meta'].get('template_id')}"
            if doc["meta"].get("template_id") is None:
                continue
            assert owner.setdefault(key, split) == split


def test_build_manifest_counts_match_the_documents(built):
    splits, manifest = built
    for split in SPLITS:
        assert manifest["splits"][split]["labels"] == label_counts(splits[split])
        assert manifest["splits"][split]["docs"] == len(splits[split])
    assert len(manifest["corpus_version"]) == 16
    json.dumps(manifest)


def test_build_is_deterministic(built):
    from spacy_pii.generator.build import build_corpus

    splits, manifest = build_corpus(EXTERNAL, seed=0, n_generated=90, case_augment_fraction=0.1)
    assert manifest == built[1]
    assert splits == built[0]


def _wnut_train_copies(docs: list[dict]) -> Counter:
    return Counter(
        d["meta"]["id"]
        for d in docs
        if str(d["meta"].get("id", "")).startswith("wnut17-train") and "augment" not in d["meta"]
    )


def test_real_text_repeat_puts_wnut_train_in_n_times(built):
    from spacy_pii.generator.build import build_corpus

    splits, manifest = build_corpus(EXTERNAL, seed=0, n_generated=90, real_text_repeat=2)
    once = _wnut_train_copies(built[0]["train"])
    twice = _wnut_train_copies(splits["train"])
    assert set(twice) == set(once) and set(twice.values()) == {2}
    assert manifest["real_text_repeat"] == 2
    assert manifest["corpus_version"] != built[1]["corpus_version"]
    # Dev and test do not depend on how train is weighted.
    assert splits["dev"] == built[0]["dev"] and splits["test"] == built[0]["test"]


@pytest.mark.parametrize("repeat", [0, -1, 1.5, True])
def test_real_text_repeat_rejects_bad_values(repeat):
    from spacy_pii.generator.build import build_corpus

    with pytest.raises((TypeError, ValueError), match="real_text_repeat"):
        build_corpus(EXTERNAL, seed=0, n_generated=9, real_text_repeat=repeat)
