"""Corpus pieces: template splits, label folding, span conventions, case augmentation.

Pure functions over JSONL-shaped dicts (``{"text", "spans", "meta"}``), kept in the order
that :func:`spacy_pii.generator.build.build_corpus` runs them. The span conventions applied
here are the ones written down in corpus/CONVENTIONS.md. This module imports nothing else
from the generator, so the generator's package and :mod:`.real_text` can build on it and
the whole build (:mod:`.build`) sits above all three, without an import loop.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

from ..core.conventions import HONORIFICS
from ..errors import SpanOffsetError

SPLITS = ("train", "dev", "test")
# 70/15/15 by template: enough test templates per kind (6 of ~40) to measure transfer to
# unseen templates, while most templates still teach.
FRACTIONS = (0.70, 0.15, 0.15)
SPLIT_SALT = "spacy-pii/template-split/v1"

# Honorifics that PERSON excludes: the same set that spacy_pii.core.conventions trims from a
# model's PERSON spans, so the gold and the post-model convention cannot drift apart.
TITLES = HONORIFICS
# Post-nominals and generational suffixes, also outside PERSON.
SUFFIXES = frozenset(
    {"jr", "sr", "ii", "iii", "iv", "phd", "md", "dds", "dmd", "dvm", "esq", "mba", "cpa", "rn",
     "qc", "kc", "obe", "mbe", "cbe", "frcs", "mrcp", "msc", "bsc"}
)  # fmt: skip
_ADDRESS_TAIL = frozenset({"STREET_ADDRESS", "GPE", "ZIP_CODE", "LOCATION"})
_ADDRESS_GAP = frozenset(" \t\n,")
_EDGE_PUNCTUATION = ",;:"


def _is_edge_junk(char: str) -> bool:
    return char.isspace() or char in _EDGE_PUNCTUATION


def _rank(item_id: str, salt: str) -> str:
    return hashlib.sha256(f"{salt}\x1f{item_id}".encode()).hexdigest()


def assign_splits(
    ids: Iterable[str],
    fractions: tuple[float, float, float] = FRACTIONS,
    salt: str = SPLIT_SALT,
    group: Callable[[str], str] = lambda i: i.rsplit("/", 1)[0],
) -> dict[str, str]:
    """Assign every id to a split, stratified by ``group`` (the kind before the slash).

    Within a group the ids are ordered by a salted SHA-256 and cut at the fractions, so
    each group gets its share exactly (with at least one dev and one test id when it has
    three or more) and the result does not depend on the order of ``ids``.
    """
    groups: dict[str, list[str]] = {}
    for item in sorted(set(ids)):
        groups.setdefault(group(item), []).append(item)
    out: dict[str, str] = {}
    for members in groups.values():
        members.sort(key=lambda m: _rank(m, salt))
        n = len(members)
        n_dev = max(1, round(n * fractions[1])) if n >= 3 else 0
        n_test = max(1, round(n * fractions[2])) if n >= 3 else 0
        for k, member in enumerate(members):
            out[member] = "dev" if k < n_dev else "test" if k < n_dev + n_test else "train"
    return out


# -- span conventions ------------------------------------------------------------------


def trim_person(text: str, start: int, end: int) -> tuple[int, int] | None:
    """Shrink a PERSON span to the name: no title, post-nominal, possessive or edge comma.

    Returns None when nothing of a name is left (a span that was only "Dr.").
    """
    changed = True
    while changed and start < end:
        changed = False
        while start < end and _is_edge_junk(text[start]):
            start += 1
        while end > start and _is_edge_junk(text[end - 1]):
            end -= 1
        if start == end:
            break
        value = text[start:end]
        if value.endswith(("'s", "’s")) and len(value) > 2:
            end -= 2
            changed = True
            continue
        # Words are split at any white space: a title can end a line ("Miss\nBartlett").
        first, *rest = value.split(None, 1)
        if rest and first.rstrip(".").lower() in TITLES:
            start += len(first)
            changed = True
            continue
        if not rest and first.rstrip(".").lower() in TITLES:
            return None  # a bare title names nobody
        head, *last = value.rsplit(None, 1)
        if last and last[0].rstrip(".").lower() in SUFFIXES:
            end = start + len(head)
            changed = True
    return (start, end) if start < end else None


def merge_address_runs(text: str, spans: list[dict]) -> list[dict]:
    """Join a street address with the locality, region and postcode spans that follow it.

    Presidio's synthetic data splits one postal block into STREET_ADDRESS, GPE and
    ZIP_CODE pieces; by our convention a contiguous block is one ADDRESS span. A run
    starts at a STREET_ADDRESS and absorbs the next address-part span while only spaces,
    line breaks and commas lie between them. A place before the street stays out.
    """
    ordered = sorted(spans, key=lambda s: (s["start"], s["end"]))
    out: list[dict] = []
    for span in ordered:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev["label"] == "STREET_ADDRESS"
            and span["label"] in _ADDRESS_TAIL
            and span["start"] >= prev["end"]
            and all(c in _ADDRESS_GAP for c in text[prev["end"] : span["start"]])
        ):
            out[-1] = {**prev, "end": span["end"]}
            continue
        out.append(dict(span))
    return out


# Cues that make a date a birth date (CONVENTIONS.md), looked for in the 40 characters
# before a date: Presidio's templates put them right there ("born on", "date of birth").
BIRTH_CUES = ("born", "birth", "dob", "d.o.b")
_CUE_WINDOW = 40
# Twitter handles: "@" and 1 to 15 letters, digits or underscores (Twitter's username rule).
_HANDLE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_HANDLE_MAX = 15


def relabel_birth_dates(doc: dict, date_label: str = "DATE_TIME") -> dict:
    """Turn a source's generic date span into DATE_OF_BIRTH when a birth cue precedes it.

    Presidio synth labels "She was born on 2/8/1935" as DATE_TIME, which the taxonomy
    drops; by our convention that date is DATE_OF_BIRTH, so dropping it would teach the
    model to skip birth dates.
    """
    text, spans = doc["text"], []
    for span in doc["spans"]:
        if span["label"] == date_label:
            before = text[max(0, span["start"] - _CUE_WINDOW) : span["start"]].lower()
            if any(cue in before for cue in BIRTH_CUES):
                span = {**span, "label": "DATE_OF_BIRTH"}
        spans.append(span)
    return {**doc, "spans": spans}


def label_handles(doc: dict) -> dict:
    """Add a USERNAME span for every unlabelled @handle (WNUT-17 leaves them unlabelled).

    WNUT-17 text is tokens joined by single spaces, so a handle is a whole space-separated
    token. A token already inside a span is left alone.
    """
    text, spans = doc["text"], list(doc["spans"])
    taken = [(s["start"], s["end"]) for s in spans]
    pos = 0
    for token in text.split(" "):
        start, end = pos, pos + len(token)
        pos = end + 1
        if not (2 <= len(token) <= _HANDLE_MAX + 1 and token[0] == "@"):
            continue
        if not all(c in _HANDLE_CHARS for c in token[1:]):
            continue
        if any(a < end and start < b for a, b in taken):
            continue
        spans.append({"start": start, "end": end, "label": "USERNAME"})
    spans.sort(key=lambda s: (s["start"], s["end"]))
    return {**doc, "spans": spans}


def fold_doc(doc: dict, fold: Callable[[str], str | None]) -> dict:
    """Fold a source document's labels to public types and apply the span conventions.

    Address pieces are merged first (on the source labels), then every label is folded
    (``None`` drops the span), PERSON spans are trimmed, and overlapping spans are
    resolved by keeping the earlier, then longer, one. The source label is kept in
    ``meta.source_labels`` counts for the record.

    Raises:
        UnknownLabel: from ``fold``, for a label the taxonomy does not mention.
        SpanOffsetError: a span outside the text.
    """
    text = doc["text"]
    out: list[dict] = []
    for span in merge_address_runs(text, doc["spans"]):
        start, end = span["start"], span["end"]
        if not 0 <= start < end <= len(text):
            raise SpanOffsetError(f"span {start}:{end} outside a text of {len(text)}")
        label = fold(span["label"])
        if label is None:
            continue
        if label == "PERSON":
            trimmed = trim_person(text, start, end)
            if trimmed is None:
                continue
            start, end = trimmed
        else:
            while start < end and text[start].isspace():
                start += 1
            while end > start and text[end - 1].isspace():
                end -= 1
        out.append({"start": start, "end": end, "label": label})
    out.sort(key=lambda s: (s["start"], -(s["end"] - s["start"])))
    kept: list[dict] = []
    for span in out:
        if kept and span["start"] < kept[-1]["end"]:
            continue
        kept.append(span)
    return {"text": text, "spans": kept, "meta": dict(doc.get("meta", {}))}


# -- splitting external corpora --------------------------------------------------------


def cut_into_pieces(doc: dict, cuts: list[int]) -> list[dict]:
    """Cut a document at ``cuts`` (offsets that no span crosses), rebasing span offsets onto
    each piece; a piece that holds only whitespace is dropped, and each keeps its index in
    ``meta.piece``."""
    text = doc["text"]
    bounds = [0, *cuts, len(text)]
    pieces = []
    for index, (start, end) in enumerate(pairwise(bounds)):
        if not text[start:end].strip():
            continue
        spans = [
            {**s, "start": s["start"] - start, "end": s["end"] - start}
            for s in doc["spans"]
            if start <= s["start"] and s["end"] <= end
        ]
        meta = {**doc.get("meta", {}), "piece": index}
        pieces.append({"text": text[start:end], "spans": spans, "meta": meta})
    return pieces


def rewritten_copy(
    doc: dict,
    outside: Callable[[str], str],
    inside: Callable[[dict, str], str],
    suffix: str,
) -> dict:
    """A copy of ``doc`` with the text between spans passed through ``outside`` and each
    span's text through ``inside(span, text)``, every span moved onto its new text.

    ``meta``'s ``set``, ``doc_id`` and ``source`` get ``suffix``, so the copy never shares a
    document id with its original. Spans are visited in order, so a seeded ``inside`` draws
    the same way each run.

    Raises:
        ValueError: two spans overlap.
    """
    text = doc["text"]
    pieces: list[str] = []
    moved: list[dict] = []
    at = length = 0
    for span in sorted(doc["spans"], key=lambda s: (s["start"], s["end"])):
        if span["start"] < at:
            raise ValueError("a rewritten copy needs disjoint spans")
        before = outside(text[at : span["start"]])
        within = inside(span, text[span["start"] : span["end"]])
        pieces += [before, within]
        start = length + len(before)
        length = start + len(within)
        moved.append({**span, "start": start, "end": length})
        at = span["end"]
    pieces.append(outside(text[at:]))
    meta = dict(doc.get("meta", {}))
    for key in ("set", "doc_id", "source"):
        if key in meta:
            meta[key] = f"{meta[key]}{suffix}"
    return {**doc, "text": "".join(pieces), "spans": moved, "meta": meta}


def split_by_template(docs: Iterable[dict], source: str) -> dict[str, list[dict]]:
    """Split ``docs`` by ``meta.template_id`` so that no template spans two splits."""
    docs = list(docs)
    ids = {f"{source}/{d['meta']['template_id']}" for d in docs}
    assignment = assign_splits(ids, group=lambda _i: source)
    out: dict[str, list[dict]] = {s: [] for s in SPLITS}
    for d in docs:
        out[assignment[f"{source}/{d['meta']['template_id']}"]].append(d)
    return out


# -- augmentation, counting, versions --------------------------------------------------


def case_augment(docs: list[dict], fraction: float, seed: int) -> list[dict]:
    """Lower- or upper-case copies of ``fraction`` of ``docs`` (half each), offsets kept.

    The copies use the length-preserving case maps, so every span still slices the same
    value up to case. In trial runs the CPU model missed lower-case names and every model
    drew false names from all-caps text; this lever shows both cases with gold spans.
    """
    from .render import lower_same_length, upper_same_length

    if not 0.0 <= fraction <= 1.0:
        raise ValueError("fraction must lie in [0, 1]")
    rng = random.Random(seed)
    chosen = sorted(rng.sample(range(len(docs)), round(len(docs) * fraction)))
    copies = []
    for k, index in enumerate(chosen):
        doc = docs[index]
        how = "lower" if k % 2 == 0 else "upper"
        fn = lower_same_length if how == "lower" else upper_same_length
        meta = {**doc.get("meta", {}), "augment": how}
        copies.append(
            {"text": fn(doc["text"]), "spans": [dict(s) for s in doc["spans"]], "meta": meta}
        )
    return copies


def check_spans(doc: dict) -> None:
    """Raise SpanOffsetError unless spans are inside the text, non-empty, sorted, disjoint."""
    prev_end = 0
    for span in doc["spans"]:
        start, end = span["start"], span["end"]
        if not 0 <= start < end <= len(doc["text"]) or start < prev_end:
            raise SpanOffsetError(f"span {start}:{end} is empty, outside or overlapping")
        prev_end = end


def label_counts(docs: Iterable[dict]) -> dict[str, int]:
    counts = Counter(s["label"] for d in docs for s in d["spans"])
    return dict(sorted(counts.items()))


def shuffled(docs: list[dict], seed: int) -> list[dict]:
    out = list(docs)
    random.Random(seed).shuffle(out)
    return out


def read_jsonl(path: Path) -> Iterator[dict]:
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def write_jsonl(path: Path, docs: Iterable[dict]) -> int:
    n = 0
    with Path(path).open("w", encoding="utf-8") as fh:
        for doc in docs:
            fh.write(json.dumps(doc, ensure_ascii=False, sort_keys=True) + "\n")
            n += 1
    return n


def file_sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def corpus_version(parts: dict[str, Any]) -> str:
    """A short content hash of everything that decides the corpus bytes."""
    blob = json.dumps(parts, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


# -- the sources and sizes of the whole build (see .build) ---------------------------

PRESIDIO_FILE = "presidio_research_synth_v2.jsonl"
WNUT_TRAIN_FILE = "wnut17_train.jsonl"
# The real-text dev parts (real_text.py) are the held-out evaluation sets; they never
# reach a training split.
EVAL_ONLY_FILES = ("wnut17_dev.jsonl", "btc_dev.jsonl", "gum_dev.jsonl")


def split_sizes(n: int, fractions: tuple[float, float, float] = FRACTIONS) -> dict[str, int]:
    """Documents per split for ``n`` generated documents; train takes the rounding rest."""
    dev, test = round(n * fractions[1]), round(n * fractions[2])
    return {"train": n - dev - test, "dev": dev, "test": test}
