"""A deterministic generator of synthetic documents with exact PII spans.

Documents come from templates (one module per document kind) whose slots are filled by
value factories (:mod:`.values`, Faker across locales, and validated structured values
from :mod:`.ids` and :mod:`.secrets`). Offsets are computed while the text is written
(:mod:`.render`), so they are exact by construction and checked after every document.

The same ``seed`` gives byte-identical output for the same package and Faker versions
(:data:`GENERATOR_VERSION` and Faker's version both enter the corpus version). Pure
Python; no spaCy. Faker is needed only when :func:`generate` runs.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType

from . import chat, clinical, code, email, forms, hr, legal, logs, tickets
from .corpus import SPLITS, assign_splits
from .render import lower_same_length, parse, render_template, slots_of, upper_same_length
from .values import DOC_LOCALES, ENTITY_ATTRS, SIMPLE_SLOTS, DocContext, derive_seed

__all__ = [
    "GENERATOR_VERSION",
    "KINDS",
    "SPLITS",
    "Template",
    "generate",
    "template_labels",
    "template_splits",
    "templates",
]

# Bump when templates or factories change what a seed produces.
GENERATOR_VERSION = "1.0.0"

_MODULES: tuple[ModuleType, ...] = (tickets, email, chat, logs, legal, clinical, hr, forms, code)
KINDS: tuple[str, ...] = tuple(m.KIND for m in _MODULES)
_BY_KIND = {m.KIND: m for m in _MODULES}


@dataclass(frozen=True, slots=True)
class Template:
    id: str
    kind: str
    text: str


@lru_cache(maxsize=1)
def _all_templates() -> tuple[Template, ...]:
    out = []
    for module in _MODULES:
        for i, text in enumerate(module.TEMPLATES):
            parse(text)  # fail at load, not halfway through a corpus build
            out.append(Template(f"{module.KIND}/{i:02d}", module.KIND, text))
    return tuple(out)


# A label carried by fewer templates than this is "rare": its templates are stratified by
# that label rather than by kind, so dev and test get their share of it. Measured on the
# first inventory: GOV_ID sat in 11 of 334 templates, and a kind-only split left test
# with none of them.
RARE_LABEL_TEMPLATES = 40


def template_labels(template: Template) -> frozenset[str]:
    """The labels a template's slots can emit, read from the slot registry."""
    labels = set()
    for slot in slots_of(parse(template.text)):
        if slot.attr is not None:
            label = ENTITY_ATTRS[slot.name.rstrip("0123456789")][slot.attr][0]
        else:
            entry = SIMPLE_SLOTS.get(slot.name) or SIMPLE_SLOTS[slot.name.rstrip("0123456789")]
            label = entry[0]
        if label is not None:
            labels.add(label)
    return frozenset(labels)


@lru_cache(maxsize=1)
def template_splits() -> dict[str, str]:
    """Template id -> split (see :func:`.corpus.assign_splits`).

    Each template is stratified by its rarest label when that label is rare (fewer than
    :data:`RARE_LABEL_TEMPLATES` templates carry it), otherwise by its kind, so every
    split gets its share of every kind and of every rare label.
    """
    all_templates = _all_templates()
    labels = {t.id: template_labels(t) for t in all_templates}
    frequency = Counter(label for ls in labels.values() for label in ls)
    group = {}
    for t in all_templates:
        rare = sorted((frequency[lab], lab) for lab in labels[t.id])
        if rare and rare[0][0] < RARE_LABEL_TEMPLATES:
            group[t.id] = f"label:{rare[0][1]}"
        else:
            group[t.id] = f"kind:{t.kind}"
    return assign_splits(group, group=group.__getitem__)


def templates(kinds: Sequence[str] | None = None, split: str | None = None) -> list[Template]:
    """The templates of ``kinds`` (all when None) that belong to ``split`` (all when None)."""
    wanted = _check_kinds(kinds)
    if split is not None and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {SPLITS}")
    splits = template_splits()
    return [
        t for t in _all_templates() if t.kind in wanted and (split is None or splits[t.id] == split)
    ]


def _check_kinds(kinds: Sequence[str] | None) -> tuple[str, ...]:
    if kinds is None:
        return KINDS
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise ValueError(f"unknown kinds {unknown}; expected some of {KINDS}")
    return tuple(k for k in KINDS if k in kinds)


def _case(kind: str, text: str, rng: random.Random) -> tuple[str, str | None]:
    policy = _BY_KIND[kind].CASE
    if policy is None:
        return text, None
    how, share = policy
    if rng.random() >= share:
        return text, None
    return (upper_same_length(text) if how == "upper" else lower_same_length(text)), how


def generate(
    n_docs: int,
    *,
    seed: int,
    kinds: list[str] | None = None,
    split: str | None = None,
) -> Iterator[dict]:
    """Yield ``n_docs`` synthetic documents, deterministically for ``seed``.

    Args:
        n_docs: How many documents to yield.
        seed: The run seed; document ``i`` depends only on (seed, split, i).
        kinds: Document kinds to draw from (default: all of :data:`KINDS`). Kinds are
            drawn uniformly, then a template uniformly within the kind.
        split: Draw only templates assigned to this split ("train", "dev", "test").

    Yields:
        ``{"text", "spans": [{"start", "end", "label"}], "meta": {"template_id", "kind",
        "locale", "seed", "index", "case"}}``; spans sorted, non-overlapping, and
        ``text[start:end]`` is the value that the factory produced.
    """
    pool: dict[str, list[Template]] = {}
    for t in templates(kinds, split):
        pool.setdefault(t.kind, []).append(t)
    kind_list = tuple(pool)
    if n_docs > 0 and not kind_list:
        raise ValueError("no template matches these kinds and split")
    locales, weights = tuple(DOC_LOCALES), tuple(DOC_LOCALES.values())
    for i in range(n_docs):
        doc_seed = derive_seed("doc", seed, split or "all", i)
        rng = random.Random(doc_seed)
        kind = rng.choice(kind_list)
        template = rng.choice(pool[kind])
        locale = rng.choices(locales, weights=weights)[0]
        rendered = render_template(
            template.text, DocContext(derive_seed(doc_seed, "slots"), locale)
        )
        text, case = _case(kind, rendered.text, rng)
        yield {
            "text": text,
            "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in rendered.spans],
            "meta": {
                "template_id": template.id,
                "kind": kind,
                "locale": locale,
                "seed": seed,
                "index": i,
                "case": case,
            },
        }
