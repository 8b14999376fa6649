"""``pii.whitespace_tokenizer.v1``: tokens split at white space only, for the rules pipeline.

The rules pipeline (``spacy_pii.load("rules")``) has no model, so its tokens only carry the
spans: ``pii_rules`` splits a token wherever a hit starts or ends, and every span of
``doc.spans`` sits on token boundaries whatever the tokenizer did before. The language's
tokenizer (prefixes, suffixes, infixes, exceptions) would cost about three times as much
as this one on the benchmark's short texts and find the same spans (README "Performance").
A pipeline with a model keeps the language's tokenizer (``pii.guarded_tokenizer.v1``),
which the model was trained on.

It is spaCy's :class:`~spacy.tokenizer.Tokenizer` without rules: white space is split as
spaCy splits it (one space joins the token before it, other white space is a token of its
own), so the tokens join back to the text. With no affix rules, a run costs its length once.
"""

from __future__ import annotations

from collections.abc import Callable

from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.util import registry


@registry.tokenizers("pii.whitespace_tokenizer.v1")
def make_whitespace_tokenizer() -> Callable[[Language], Tokenizer]:
    """spaCy's tokenizer with no prefix, suffix, infix or exception rules."""

    def create(nlp: Language) -> Tokenizer:
        return Tokenizer(nlp.vocab)

    return create
