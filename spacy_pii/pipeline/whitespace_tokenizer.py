"""``pii.whitespace_tokenizer.v1``: tokens split at white space only, for the rules pipeline.

The rules pipeline (``spacy_pii.load("rules")``) has no model, so its tokens only carry the
spans: ``pii_rules`` splits a token wherever a hit starts or ends, and every span of
``doc.spans`` sits on token boundaries whatever the tokenizer did before. The language's
tokenizer (prefixes, suffixes, infixes, exceptions) would cost about three times as much
as this one on the benchmark's short texts and find the same spans (docs/performance.md).
A pipeline with a model keeps the language's tokenizer (``pii.guarded_tokenizer.v1``),
which the model was trained on.

It is :class:`~spacy_pii.pipeline.guarded_tokenizer.GuardedTokenizer` without rules: white
space is split as spaCy splits it (one space joins the token before it, other white space is
a token of its own), so the tokens join back to the text. spaCy's tokenizer is quadratic on a
whitespace-free run of punctuation even without affix rules (a 100,000-character run took
1.5 s, a 1,000,000-character one 153 s, measured), so the guard cuts such runs into pieces
as it does for the language's tokenizer.
"""

from __future__ import annotations

from collections.abc import Callable

from spacy.language import Language
from spacy.util import registry

from .guarded_tokenizer import DEFAULT_MAX_AFFIX, DEFAULT_MAX_RUN, GuardedTokenizer


@registry.tokenizers("pii.whitespace_tokenizer.v1")
def make_whitespace_tokenizer(
    max_run: int = DEFAULT_MAX_RUN, max_affix: int = DEFAULT_MAX_AFFIX
) -> Callable[[Language], GuardedTokenizer]:
    """The guarded tokenizer with no prefix, suffix, infix or exception rules."""
    if max_run < 1 or max_affix < 1:
        raise ValueError("max_run and max_affix must be positive")

    def create(nlp: Language) -> GuardedTokenizer:
        return GuardedTokenizer(nlp.vocab, max_run=max_run, max_affix=max_affix)

    return create
