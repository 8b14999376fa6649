"""Text hygiene that keeps offsets: one code point in, one code point out."""

from __future__ import annotations

import re

# A lone surrogate (U+D800..U+DFFF) is not a Unicode scalar value: it cannot be encoded as
# UTF-8, so spaCy's tokenizer raises on it. It reaches Python strings through
# ``errors="surrogateescape"`` decoding or broken JSON escapes.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
PATTERNS = (_LONE_SURROGATE,)

REPLACEMENT_CHARACTER = "\ufffd"


def replace_lone_surrogates(text: str) -> str:
    """Replace each lone surrogate with U+FFFD. Length and every other offset are unchanged."""
    return _LONE_SURROGATE.sub(REPLACEMENT_CHARACTER, text)
