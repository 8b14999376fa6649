"""Real text written by people: the annotated corpora, folded to our conventions and split.

The generator teaches forms; these corpora are where a model meets names as people write
them (tweets, forum posts, novels, Wikipedia, court judgments, interviews). Each source is
folded through the taxonomy's label map and the PERSON conventions of corpus/CONVENTIONS.md,
and every source keeps a fixed dev part that no training split ever reads:

- WNUT-17, the Broad Twitter Corpus and GUM ship their own train and dev files;
- LitBank and WikiGold ship one file each, so a salted hash of the book (LitBank's pieces of
  one novel stay together) or of the article puts a fixed fifth of them in dev.

Pure functions over JSONL-shaped dicts; training/make_corpus.py and
training/evaluate_real.py wire files to them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path

from .corpus import cut_into_pieces, fold_doc, label_handles, read_jsonl

# name -> (train file, dev file); None for a dev file means "a hashed fifth of the train file".
REAL_TEXT_SOURCES: dict[str, tuple[str, str | None]] = {
    "wnut17": ("wnut17_train.jsonl", "wnut17_dev.jsonl"),
    "btc": ("btc_train.jsonl", "btc_dev.jsonl"),
    "gum": ("gum_train.jsonl", "gum_dev.jsonl"),
    "litbank": ("litbank_all.jsonl", None),
    "wikigold": ("wikigold_all.jsonl", None),
}
HELD_OUT_SALT = "spacy-pii/real-text-dev/v1"
# A fifth of the books and articles: 20 novels and about 30 articles, enough PERSON spans
# (several hundred each) for a dev score whose interval is narrower than the margins we read.
HELD_OUT_FRACTION = 0.2
# Training documents longer than this are cut at line breaks: a 5,000-character chapter is
# one batch on its own under spaCy's word batcher, and shorter pieces shuffle better.
TRAIN_PIECE_CHARS = 1200


def held_out_group(source: str, doc_id: str) -> str:
    """The unit a held-out split keeps together: a LitBank novel, a WikiGold article."""
    return doc_id.split("#", 1)[0] if source == "litbank" else doc_id


def is_held_out(source: str, doc_id: str) -> bool:
    """Whether a document of a single-file source belongs to its fixed dev part."""
    key = f"{HELD_OUT_SALT}\x1f{source}\x1f{held_out_group(source, doc_id)}"
    rank = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") / 2**64
    return rank < HELD_OUT_FRACTION


def _trim_lowercase_modifiers(text: str, spans: list[dict], labels: Iterable[str]) -> list[dict]:
    """Drop leading lower-case words from name spans ("old Tom", "poor Mrs. Jellyby").

    LitBank keeps modifiers inside a proper-name mention; by our convention the span holds
    the name only. A span that is lower case throughout is left alone: it is a name written
    in lower case, not a modifier.
    """
    wanted = set(labels)
    out = []
    for span in spans:
        start, end = span["start"], span["end"]
        if span["label"] in wanted and any(c.isupper() for c in text[start:end]):
            while start < end:
                word_end = start
                while word_end < end and not text[word_end].isspace():
                    word_end += 1
                word = text[start:word_end]
                if word_end >= end or not word.isalpha() or not word.islower():
                    break
                start = word_end
                while start < end and text[start].isspace():
                    start += 1
        out.append({**span, "start": start, "end": end})
    return out


def _handles_and_hashtags(text: str, spans: list[dict]) -> list[dict]:
    """Our conventions for social text: a labelled @mention is a USERNAME, a #tag loses '#'.

    The Broad Twitter Corpus labels "@user" by its referent (PER, ORG, LOC); by our span
    convention a handle is the login, whoever holds it. A hashtag that names someone
    ("#SomeName") keeps the name and leaves the '#' outside, as a cue stays outside a span.
    """
    out = []
    for span in spans:
        value = text[span["start"] : span["end"]]
        if value.startswith("@") and len(value) > 1:
            out.append({**span, "label": "USERNAME"})
        elif value.startswith("#") and len(value) > 1:
            out.append({**span, "start": span["start"] + 1})
        else:
            out.append(span)
    return out


def fold_real_doc(doc: dict, fold: Callable[[str], str | None], source: str) -> dict:
    """Fold one real-text document to public types and our span conventions.

    Source labels are folded first (so a LitBank ``PROP_PER`` trims like any PERSON); then
    @mentions become USERNAME and unlabelled @handles are added, as for WNUT-17.
    """
    text = doc["text"]
    spans = _handles_and_hashtags(text, doc["spans"])
    spans = [{**s, "label": "PERSON"} if fold(s["label"]) == "PERSON" else s for s in spans]
    spans = _trim_lowercase_modifiers(text, spans, ("PERSON",))
    folded = fold_doc({**doc, "spans": [s for s in spans if s["start"] < s["end"]]}, fold)
    folded = label_handles(folded)
    folded["meta"] = {**folded.get("meta", {}), "source": f"real/{source}"}
    return folded


def _cut_points(text: str, spans: list[dict], limit: int) -> list[int]:
    """Offsets just after a line break, about ``limit`` apart, that no span crosses."""
    inside = bytearray(len(text) + 1)
    for span in spans:
        for k in range(span["start"] + 1, span["end"]):
            inside[k] = 1
    cuts, last = [], 0
    for k, char in enumerate(text):
        if char == "\n" and k + 1 - last >= limit and not inside[k + 1]:
            cuts.append(k + 1)
            last = k + 1
    return cuts


def split_long(doc: dict, limit: int = TRAIN_PIECE_CHARS) -> list[dict]:
    """Cut a long document at line breaks into pieces of about ``limit`` characters.

    No span is cut: a cut falls only where no span is open. Pieces that hold only
    whitespace are dropped; offsets are rebased onto each piece.
    """
    if len(doc["text"]) <= limit:
        return [doc]
    return cut_into_pieces(doc, _cut_points(doc["text"], doc["spans"], limit))


def load_real_text(
    external_dir: Path, fold: Callable[[str], str | None], *, split: str
) -> dict[str, list[dict]]:
    """Every real-text source's ``"train"`` or ``"dev"`` documents, folded, by source name.

    Training documents are cut into pieces (:func:`split_long`); dev documents stay whole,
    as a user would pass them.
    """
    if split not in ("train", "dev"):
        raise ValueError("split must be 'train' or 'dev'")
    out: dict[str, list[dict]] = {}
    for source, (train_file, dev_file) in REAL_TEXT_SOURCES.items():
        if split == "dev" and dev_file is not None:
            raw = list(read_jsonl(Path(external_dir) / dev_file))
        else:
            raw = list(read_jsonl(Path(external_dir) / train_file))
            if dev_file is None:
                want_dev = split == "dev"
                raw = [d for d in raw if is_held_out(source, d["meta"]["doc_id"]) == want_dev]
        docs = [fold_real_doc(d, fold, source) for d in raw]
        if split == "train":
            docs = [piece for d in docs for piece in split_long(d)]
        out[source] = docs
    return out


def real_text_files() -> list[str]:
    """The file names every real-text source reads, train and dev."""
    names = {f for pair in REAL_TEXT_SOURCES.values() for f in pair if f is not None}
    return sorted(names)
