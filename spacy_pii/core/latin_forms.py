"""Cyrillic words in the Latin letters of a language that writes both alphabets.

Serbian is written in Cyrillic and in Latin letters, one letter for one letter (with the
digraphs lj, nj and dž for љ, њ and џ). The multilingual name model learned Serbian mostly in
Latin letters: its corpora are Latin, and their Cyrillic copies are a smaller share of its
training. Reading a Serbian Cyrillic word by its Latin form lets the model use what it
learned of that form (``pii_latin_forms`` writes it where the encoder reads).

The mapping is ``cyrtranslit``'s, the same that made the training corpus's Cyrillic copies
(``spacy_pii.generator.script_copies``).

Pure Python: no spaCy.
"""

from __future__ import annotations

import re
from functools import lru_cache

# The Cyrillic block: a word outside it needs no Latin form.
_CYRILLIC = re.compile(r"[\u0400-\u04FF]")


@lru_cache(maxsize=1)
def transliteration_schemes() -> frozenset[str]:
    """The language codes that ``cyrtranslit`` transliterates (``sr``, ``ru``, ...)."""
    import cyrtranslit

    return frozenset(cyrtranslit.supported())


def checked_scheme(scheme: str) -> str:
    """``scheme`` itself, if :func:`transliteration_schemes` holds it.

    Raises:
        ValueError: it does not; the message lists those it holds.
    """
    if scheme not in transliteration_schemes():
        known = ", ".join(sorted(transliteration_schemes()))
        raise ValueError(f"no Latin transliteration for {scheme!r} (known: {known})")
    return scheme


def latin_form(word: str, scheme: str) -> str | None:
    """``word`` in Latin letters by ``scheme`` (a language code), or None when it has no
    Cyrillic letter. Characters outside the scheme's alphabet are kept as they are.

    Raises:
        ValueError: ``scheme`` is not a code of :func:`transliteration_schemes`.
    """
    checked_scheme(scheme)
    if not _CYRILLIC.search(word):
        return None
    import cyrtranslit

    return str(cyrtranslit.to_latin(word, scheme))
