"""A stand-in for pii_rules + pii_merge: regex matches written to doc.spans["pii"].

Redaction tests use it so that they test redaction, not the detectors.
"""

from __future__ import annotations

import re

from spacy.language import Language
from spacy.tokens import Doc, SpanGroup


def register_standin(name: str, pattern: re.Pattern[str]) -> str:
    """Register a component ``name`` that labels each match with its named group."""

    @Language.component(name)
    def standin_pii(doc: Doc) -> Doc:
        spans = []
        for match in pattern.finditer(doc.text):
            span = doc.char_span(match.start(), match.end(), label=match.lastgroup)
            assert span is not None, "stand-in texts must tokenize on the value's boundaries"
            spans.append(span)
        doc.spans["pii"] = SpanGroup(doc, name="pii", spans=spans)
        return doc

    return name
