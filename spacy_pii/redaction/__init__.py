"""Redaction with a reversible vault, restore of model answers, and tool-call masking.

The loop this module serves: mask a prompt (:func:`redact`), send it to a model, put the real
values back into the answer (:func:`restore`) and check that answer for personal data the
prompt never carried. :func:`mask_mapping` and :func:`restore_mapping` do the same for the
nested arguments of a tool call. Every function is pure: the vault belongs to the caller, and
nothing here keeps state. No spaCy import: a ``Doc`` and a pipeline are used by duck typing.

Operators (per public type, as Presidio's anonymizer users know them) and what the vault gets:

============== ============================================ ==============================
operator       output                                       in the vault
============== ============================================ ==============================
placeholder    ``<EMAIL_1>``, numbered left to right         yes: placeholder -> value
partial        ``**********0101`` (last N kept)              no: not reversible
hash           ``<EMAIL_h:9f86d081884c7d65>`` (keyed HMAC)    no: one-way by design
fake           a Faker value, stable per key and value       no: not reversible
               (for one Faker version and locale)
(irreversible) ``<SECRET>`` for a type whose taxonomy mask    never, whatever the operator
               is ``irreversible``
============== ============================================ ==============================

Secrets never enter a vault: restoring one would write a password into a ticket, a log or a
second prompt. ``restore`` therefore always reports ``<SECRET>`` as unresolved.

Decode before you scan. A JSON-escaped payload such as ``"ada\\u0040example.com"`` holds no
``@`` in its raw form, so no detector sees an e-mail address there; ``json.loads`` produces
the real value, and :func:`mask_mapping` scans that. Pass decoded trees, never raw JSON text.

What is safe to log: ``MaskResult.to_dict()``, ``RestoreResult.to_dict()`` and the ``repr``
of every result class (values and restored text are left out of both). A vault, a restored
text and ``UnknownSpan.text`` hold personal data by design; they are returned to the caller,
never logged here.
"""

from __future__ import annotations

from .mapping import MaskHit, MaskResult, RestoreMappingResult, mask_mapping, restore_mapping
from .mask import redact
from .operators import MissingExtra, Operator, parse_operators
from .restore import RestoreResult, UnknownSpan, restore

__all__ = [
    "MaskHit",
    "MaskResult",
    "MissingExtra",
    "Operator",
    "RestoreMappingResult",
    "RestoreResult",
    "UnknownSpan",
    "mask_mapping",
    "parse_operators",
    "redact",
    "restore",
    "restore_mapping",
]
