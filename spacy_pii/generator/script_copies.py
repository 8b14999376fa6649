"""Corpus documents copied into another script, with their spans moved along.

Serbian is written in both the Latin and the Cyrillic alphabet, and the shared Serbian
corpus (UNER's SETimes) is in Latin letters only; no corpus here holds Cyrillic text. A name
model that never saw a Cyrillic letter proposes no name in Cyrillic text at all, Russian
included. So the Serbian documents, and the Croatian ones (the same news, in the same
language family), are also given to training in Serbian Cyrillic.

The mapping is ``cyrtranslit``'s (Serbian Latin to Cyrillic, letter by letter, with the
digraphs lj, nj and dž). A span's text is transliterated on its own, and so is the text
between spans, so every span keeps its words and their edges even where a digraph makes the
copy shorter than the original.
"""

from __future__ import annotations

from .corpus import rewritten_copy

CYRILLIC_SUFFIX = "_cyrl"


def original_set(name: str) -> str:
    """The set that ``name`` is a script copy of, or ``name`` itself."""
    return name.removesuffix(CYRILLIC_SUFFIX)


def serbian_cyrillic(text: str) -> str:
    """``text`` in Serbian Cyrillic; characters outside Serbian Latin are kept as they are."""
    import cyrtranslit

    return str(cyrtranslit.to_cyrillic(text, "sr"))


def cyrillic_copy(doc: dict) -> dict:
    """A copy of a folded document in Serbian Cyrillic, its spans on the same words.

    ``meta``'s ``set``, ``doc_id`` and ``source`` get :data:`CYRILLIC_SUFFIX`, so the copy is
    told apart from its original in a manifest and never shares a document id with it.
    """
    return rewritten_copy(
        doc, serbian_cyrillic, lambda _span, text: serbian_cyrillic(text), CYRILLIC_SUFFIX
    )
