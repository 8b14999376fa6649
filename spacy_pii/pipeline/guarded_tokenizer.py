"""``pii.guarded_tokenizer.v1``: spaCy's tokenizer, in time linear in the text's length.

spaCy's rule tokenizer strips prefixes and suffixes one at a time, and each step searches the
rest of the whitespace-free run again, so a run costs its length times the number of affix
characters it holds: ``"(" * 5000 + ")" * 5000`` takes seconds and a megabyte of such text
hours. This tokenizer is spaCy's, with the same rules and serialization, except for runs that
can trigger that cost: a whitespace-free run that starts or ends with more than ``max_affix``
punctuation characters, or one longer than ``max_run`` characters that holds more than
``max_affix`` ASCII punctuation characters (``"a:" * 15000`` is quadratic too; a long run of
letters and digits, or of CJK text, costs spaCy linear time, measured, and is left to it).
Such a run is cut into
tokens of :data:`PIECE_CHARS` characters instead. It holds no words to tag, and bounded pieces
keep its token count, and so the model's cost, a fraction of its length: one token per
character (what spaCy makes of nested brackets) made a 100,000-character run cost the model
more than ten times a 10,000-character one, as its arrays outgrew the CPU caches. The rule
lane does not care: it splits tokens at its hits. Every other stretch of the text goes to spaCy
as it is, so a text without such a run is tokenized exactly as spaCy would (with
``split_possessive``, as spaCy would with one more suffix rule, :data:`POSSESSIVE_SUFFIX`),
and the token texts with their whitespace always join back to the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc
from spacy.util import compile_suffix_regex, registry

# Longer runs without whitespace are rare in prose (long URLs and encoded blobs); below
# these bounds spaCy's cost per character stays within a small multiple of its usual one.
DEFAULT_MAX_RUN = 100
DEFAULT_MAX_AFFIX = 16

_ASCII_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")

PIECE_CHARS = 16
_PIECES = re.compile(rf"\S{{1,{PIECE_CHARS}}}")


def _hostile_runs(max_run: int, max_affix: int) -> re.Pattern[str]:
    # Only run starts can match (the look-behind), and each alternative is one bounded or
    # possessive scan, so finding every hostile run is linear in the text.
    affix = rf"[^\w\s]{{{max_affix + 1},}}"
    return re.compile(
        rf"(?<!\S)(?:\S{{{max_run + 1},}}|{affix}\S*+|\S*?{affix}(?!\S))",
    )


class GuardedTokenizer(Tokenizer):
    """spaCy's :class:`~spacy.tokenizer.Tokenizer` with hostile runs cut into bounded pieces.

    Args:
        max_run: the longest whitespace-free run that spaCy tokenizes.
        max_affix: the most punctuation characters at the start or end of a run that
            spaCy tokenizes.
        The other arguments are :class:`~spacy.tokenizer.Tokenizer`'s.
    """

    def __init__(
        self,
        vocab,
        rules=None,
        prefix_search=None,
        suffix_search=None,
        infix_finditer=None,
        token_match=None,
        url_match=None,
        faster_heuristics: bool = True,
        *,
        max_run: int = DEFAULT_MAX_RUN,
        max_affix: int = DEFAULT_MAX_AFFIX,
    ) -> None:
        super().__init__(
            vocab,
            rules=rules,
            prefix_search=prefix_search,
            suffix_search=suffix_search,
            infix_finditer=infix_finditer,
            token_match=token_match,
            url_match=url_match,
            faster_heuristics=faster_heuristics,
        )
        self.max_run = max_run
        self.max_affix = max_affix
        self._hostile = _hostile_runs(max_run, max_affix)
        self._long_run = re.compile(rf"\S{{{max_run + 1}}}")
        self._affix_run = re.compile(rf"[^\w\s]{{{max_affix + 1}}}")

    def may_be_hostile(self, text: str) -> bool:
        """Whether ``text`` may hold a hostile run: a cheap test in front of the pattern.

        Every hostile run holds ``max_run + 1`` non-space characters in a row, or
        ``max_affix + 1`` punctuation characters in a row. Each of these two searches
        opens with a character class, so ``re`` skips to its first possible start; the
        full pattern opens with a look-behind and is tried at every position. On the
        benchmark's short texts the two cost half as much (measured).
        """
        if len(text) > self.max_run and self._long_run.search(text) is not None:
            return True
        return self._affix_run.search(text) is not None

    def __reduce__(self):
        args = (
            self.vocab,
            self.rules,
            self.prefix_search,
            self.suffix_search,
            self.infix_finditer,
            self.token_match,
            self.url_match,
            self.faster_heuristics,
        )
        return (_rebuild, (args, self.max_run, self.max_affix))

    def __call__(self, text: str) -> Doc:
        """Tokenize ``text``: spaCy's tokens, hostile runs cut into bounded pieces."""
        hostile = self._hostile.search(text) if self.may_be_hostile(text) else None
        if hostile is None:
            return super().__call__(text)
        words: list[str] = []
        spaces: list[bool] = []
        done = 0
        while hostile is not None:
            start, end = hostile.span()
            if not self._cut(text, start, end):
                hostile = self._hostile.search(text, end)
                continue  # a long run spaCy reads in linear time: it stays in the stretch
            if start > done:
                self._add_spacy(text[done:start], words, spaces)
            pieces = _PIECES.findall(text, start, end)
            words.extend(pieces)
            spaces.extend([False] * len(pieces))
            # spaCy keeps one following space on the token itself.
            if text.startswith(" ", end):
                spaces[-1] = True
                end += 1
            done = end
            hostile = self._hostile.search(text, done)
        if done < len(text):
            self._add_spacy(text[done:], words, spaces)
        return Doc(self.vocab, words=words, spaces=spaces)

    def _cut(self, text: str, start: int, end: int) -> bool:
        """Whether the run ``text[start:end]`` that the pattern found is cut into pieces."""
        if end - start <= self.max_run:
            return True  # found for its punctuation at an end
        width = self.max_affix + 1
        if self._affix_run.match(text, start) or self._affix_run.match(text, end - width, end):
            return True
        return len(_ASCII_PUNCTUATION.findall(text, start, end)) > self.max_affix

    def _add_spacy(self, stretch: str, words: list[str], spaces: list[bool]) -> None:
        for token in super().__call__(stretch):
            words.append(token.text)
            spaces.append(bool(token.whitespace_))

    def pipe(self, texts, batch_size: int = 1000):
        for text in texts:
            yield self(text)


def _rebuild(args: tuple, max_run: int, max_affix: int) -> GuardedTokenizer:
    return GuardedTokenizer(*args, max_run=max_run, max_affix=max_affix)


def guard(
    base: Tokenizer, *, max_run: int = DEFAULT_MAX_RUN, max_affix: int = DEFAULT_MAX_AFFIX
) -> GuardedTokenizer:
    """A :class:`GuardedTokenizer` with the vocab and rules of ``base``."""
    return GuardedTokenizer(
        base.vocab,
        rules=base.rules,
        prefix_search=base.prefix_search,
        suffix_search=base.suffix_search,
        infix_finditer=base.infix_finditer,
        token_match=base.token_match,
        url_match=base.url_match,
        faster_heuristics=base.faster_heuristics,
        max_run=max_run,
        max_affix=max_affix,
    )


# "Anna's", "Rutte's", "Mario's": a possessive "'s" after a letter. spaCy's Dutch, German,
# Danish and Swedish rules keep it on the word, and a name model that read it split off
# ("Anna" "'s", as the multilingual tokenizer writes it) proposes nothing for the whole token.
# A leading apostrophe ("'s-Hertogenbosch", "'s Avonds") has no letter before it.
POSSESSIVE_SUFFIX = r"(?<=[^\W\d_])['’][sS]$"


@registry.tokenizers("pii.guarded_tokenizer.v1")
def make_guarded_tokenizer(
    max_run: int = DEFAULT_MAX_RUN,
    max_affix: int = DEFAULT_MAX_AFFIX,
    split_possessive: bool = False,
) -> Callable[[Language], GuardedTokenizer]:
    """spaCy's tokenizer for the language, guarded against quadratic runs (see module);
    with ``split_possessive``, a possessive "'s" is its own token in every language."""
    if max_run < 1 or max_affix < 1:
        raise ValueError("max_run and max_affix must be positive")
    create_default = registry.tokenizers.get("spacy.Tokenizer.v1")()

    def create(nlp: Language) -> GuardedTokenizer:
        base = create_default(nlp)
        if split_possessive:
            suffixes = [*(nlp.Defaults.suffixes or ()), POSSESSIVE_SUFFIX]
            base.suffix_search = compile_suffix_regex(suffixes).search
        return guard(base, max_run=max_run, max_affix=max_affix)

    return create
