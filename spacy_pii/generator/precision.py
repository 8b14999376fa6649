"""Precision sets: text dense with words that look like names and are not.

Four domains where a name detector invents names (issue 23): clinical notes (shorthand, lab
panels, devices, drug names, ward codes, in capitals and in lower case), legal text (courts
and institutions in several languages, statute and role words, section letters), developer
text (code, logs, changelogs, commit messages, package names, versions, hex colours) and web
and e-mail text (orders, reviews, bookings: shops, restaurants, hotels and brands named after
people). Real names appear where such text has them: patients, relatives and staff; parties,
judges and counsel; authors and committers; customers, staff and senders. They are gold
PERSON spans.

A document is a few lines drawn from this module's templates (rendered by
:func:`spacy_pii.generator.render.render_template`, so offsets are exact) and, for clinical
notes, from name-free lines of public clinical text (the caller passes them). A fixed share
of the documents, chosen by a salted hash of the document id, is ``held_out``: nothing is
ever tuned on it; the rest is ``tune``. Web documents draw their venue names, shops, brands
and hotels from one pool for each part, so a held-out document names none that a tune
document names.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from . import precision_templates as templates
from .render import lower_same_length, render_template, upper_same_length
from .values import DocContext, derive_seed

HELD_OUT_SALT = "spacy-pii/precision-sets/v1"
HELD_OUT_FRACTION = 0.4
DOMAINS = ("clinical", "legal", "developer", "web")
# Clinical notes are written as typed, in capitals (many EHR exports and older systems)
# or in lower case (quick nursing entries); the shares are a choice, recorded here.
CLINICAL_CASING = {"as_written": 0.5, "upper": 0.3, "lower": 0.2}
LOCALES = {
    "clinical": ("en_US", "en_GB", "en_IN", "en_US", "es_MX"),
    "legal": ("en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pl_PL", "sv_SE"),
    "developer": ("en_US", "de_DE", "fr_FR", "pt_BR", "en_IN", "pl_PL", "zh_CN"),
    "web": ("en_US", "en_GB", "en_US", "it_IT", "es_MX", "de_DE", "fr_FR", "pl_PL"),
}
_WEB_MARKER = re.compile(r"<(shop|eatery|brand|hotel)\d?>")


def split_of(domain: str, doc_id: str) -> str:
    """``held_out`` for a fixed share of the documents, ``tune`` for the rest."""
    key = f"{HELD_OUT_SALT}\x1f{domain}\x1f{doc_id}"
    rank = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") / 2**64
    return "held_out" if rank < HELD_OUT_FRACTION else "tune"


def _escaped(line: str) -> str:
    """A literal line inside a template: braces doubled (they are template syntax)."""
    return line.replace("{", "{{").replace("}", "}}")


def _venue(ctx: DocContext, split: str) -> str:
    fake = ctx.faker()
    form = ctx.rng.choice(templates.WEB_VENUE_FORMS[split])
    return form.format(
        first=fake.first_name(),
        last=fake.last_name(),
        venue=ctx.rng.choice(templates.WEB_VENUE_WORDS[split]),
    )


def _web_value(ctx: DocContext, kind: str, split: str) -> str:
    if kind == "eatery":
        return _venue(ctx, split)
    pools = {"shop": templates.WEB_SHOPS, "brand": templates.WEB_BRANDS}
    pool = pools.get(kind, templates.WEB_HOTELS)[split]
    return ctx.rng.choice(pool)


def _filled(ctx: DocContext, line: str, split: str, chosen: dict[str, str]) -> str:
    """A web line with each marker replaced by its (unlabelled) value; one value per marker
    in a document, as one document names one shop."""

    def fill(match: re.Match[str]) -> str:
        marker = match.group(0)
        if marker not in chosen:
            chosen[marker] = _web_value(ctx, match.group(1), split)
        return _escaped(chosen[marker])

    return _WEB_MARKER.sub(fill, line)


def _org_spans(
    text: str, values: Sequence[str], taken: Sequence[tuple[int, int, str]]
) -> list[tuple[int, int, str]]:
    """Every whole-word occurrence of a web document's shops, venues, brands and hotels, as
    ORG (the conventions' companies), where no labelled span lies."""
    found: list[tuple[int, int, str]] = []
    for value in values:
        for match in re.finditer(rf"(?<!\w){re.escape(value)}(?!\w)", text):
            start, end = match.span()
            if not any(s < end and start < e for s, e, _ in (*taken, *found)):
                found.append((start, end, "ORG"))
    return found


def _lines(
    ctx: DocContext, domain: str, negatives: Sequence[str], split: str, chosen: dict[str, str]
) -> list[str]:
    """The lines of one document; a web document's venue values go into ``chosen``."""
    rng = ctx.rng
    if domain == "clinical":
        body = [rng.choice(templates.CLINICAL_LINES) for _ in range(rng.randint(4, 8))]
        body += [_escaped(rng.choice(negatives)) for _ in range(rng.randint(2, 5)) if negatives]
        names = [rng.choice(templates.CLINICAL_NAME_LINES) for _ in range(rng.randint(0, 3))]
        head = [rng.choice(templates.CLINICAL_HEADERS)]
    elif domain == "legal":
        body = [rng.choice(templates.LEGAL_LINES) for _ in range(rng.randint(4, 8))]
        names = [rng.choice(templates.LEGAL_NAME_LINES) for _ in range(rng.randint(0, 3))]
        head = [rng.choice(templates.LEGAL_HEADERS)]
    elif domain == "developer":
        body = [rng.choice(templates.DEVELOPER_LINES) for _ in range(rng.randint(5, 10))]
        names = [rng.choice(templates.DEVELOPER_NAME_LINES) for _ in range(rng.randint(0, 2))]
        head = [rng.choice(templates.DEVELOPER_HEADERS)]
    else:
        body = [rng.choice(templates.WEB_LINES) for _ in range(rng.randint(3, 7))]
        names = [rng.choice(templates.WEB_NAME_LINES) for _ in range(rng.randint(0, 3))]
        head = [rng.choice(templates.WEB_HEADERS)]
        body = [_filled(ctx, line, split, chosen) for line in body]
        names = [_filled(ctx, line, split, chosen) for line in names]
    rest = body + names
    rng.shuffle(rest)
    return head + rest


def _cased(ctx: DocContext, text: str) -> tuple[str, str]:
    draw = ctx.rng.random()
    upper_at = CLINICAL_CASING["as_written"]
    if draw < upper_at:
        return text, "as_written"
    if draw < upper_at + CLINICAL_CASING["upper"]:
        return upper_same_length(text), "upper"
    return lower_same_length(text), "lower"


def precision_document(domain: str, index: int, seed: int, negatives: Sequence[str]) -> dict:
    """One document of ``domain`` with its gold spans, its split and its casing."""
    if domain not in DOMAINS:
        raise ValueError(f"unknown precision domain {domain!r}")
    doc_seed = derive_seed("precision", domain, seed, index)
    locales = LOCALES[domain]
    ctx = DocContext(doc_seed, locales[doc_seed % len(locales)])
    doc_id = f"{domain}-{seed}-{index:04d}"
    split = split_of(domain, doc_id)
    chosen: dict[str, str] = {}
    rendered = render_template("\n".join(_lines(ctx, domain, negatives, split, chosen)), ctx)
    text, casing = rendered.text, "as_written"
    spans = list(rendered.spans)
    if domain == "clinical":
        text, casing = _cased(ctx, text)
    elif domain == "web":
        values = sorted(set(chosen.values()), key=len, reverse=True)
        spans = sorted([*spans, *_org_spans(text, values, spans)])
    return {
        "text": text,
        "spans": [{"start": s, "end": e, "label": label} for s, e, label in spans],
        "meta": {
            "source": f"precision/{domain}",
            "doc_id": doc_id,
            "split": split,
            "casing": casing,
        },
    }


def precision_set(domain: str, n_docs: int, seed: int, negatives: Sequence[str] = ()) -> list[dict]:
    """``n_docs`` documents of ``domain``; the same arguments give the same documents."""
    return [precision_document(domain, i, seed, negatives) for i in range(n_docs)]
