"""Mention propagation: mark the other occurrences of an identity already found in a document.

Long documents repeat names. A detector that finds "Ada Lovelace" in the greeting and misses
"Lovelace" three paragraphs later leaks the person through the one miss. Once a PERSON,
USERNAME or GOV_ID hit is found with enough confidence, this module finds the same string
elsewhere in the text and, for PERSON only, the capitalised surname or given-name parts.

What it guarantees, so that the merge can run it without weakening its total order:

* It returns the *new* hits only, each a whole-word occurrence of a source string or part:
  no word character and no hyphen on either side, so "Ann" is not found inside "Annual",
  "Joanna" or "Ann-Marie". The hyphen counts as part of a word because hyphenated names and
  firms are one name: with the shipped pipeline on the generated test split
  (``corpus/built/test.jsonl``), the one PERSON that propagation added wrongly was a surname
  inside a hyphenated firm name.
* It never returns a hit that overlaps any hit it was given: it scans only the gaps between
  them. A propagated hit therefore cannot displace an original one, whatever its rank.
* A propagated hit keeps the source's type, kind and score (the calibrated probability of
  the identity it repeats) and is marked ``detector="propagated"``.
* One document compiles one pattern: an alternation of the escaped strings, longest first,
  so that "John Smith" wins over "John" at the same position. The strings are literal
  (``re.escape``), so the pattern has no quantifier and scans in time linear in the text
  for a bounded number of strings; :data:`MAX_STRINGS` bounds that number.
* The output is sorted and does not depend on the order of the input hits.
* A one-word string that the document also writes in lower case is not marked where it opens
  a sentence: "Captain Good" makes "Good" a name, but "Good night," at the start of a line is
  the word (the document's own "good luck" says so). Mid-sentence it is still marked.

Which hits are sources: a hit whose type is in ``types`` and whose score is at least
``min_score``. A hit without a score never qualifies. By the score contract
(docs/how-it-works.md: Scores) a rule that validates its slice reports 1.0, so ``None``
means a shape-only match: it has no measured confidence to compare with ``min_score``, and
repeating a shape-only guess across a document would multiply its false positives.

Pure Python: no spaCy.
"""

from __future__ import annotations

import logging
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ..errors import ConfigError
from .conventions import HONORIFICS, SURNAME_PARTICLES
from .hits import Hit

logger = logging.getLogger(__name__)

PROPAGATED_DETECTOR = "propagated"

# The cap on distinct strings in one document's alternation. Python's ``re`` tries the
# branches of an alternation in turn, so the scan costs O(len(text) * strings) in the worst
# case; 256 keeps that a small constant. A document that repeats more than 256 distinct
# confident names or ids is a list or a table, where each entry is already its own hit.
# When the cap bites, the highest-scoring, then longest strings are kept (counts are logged,
# never the strings).
MAX_STRINGS = 256

# Words that may start with a capital inside a PERSON span yet name nobody: honorifics
# (shared with the PERSON-span trimming in :mod:`spacy_pii.core.conventions`), generational
# suffixes, and the particles of Dutch, German, French, Spanish, Italian, Portuguese and
# Arabic surnames ("Van", "De", "Al") that open a sentence in capitalised form. Each of them
# is shared by many unrelated people, so marking its other occurrences would mask text
# without protecting anyone. The list is explicit, rather than a stop-word lexicon, so a
# reviewer can see every word that a name part is never propagated for.
NAME_PART_STOPWORDS: frozenset[str] = (
    HONORIFICS
    | SURNAME_PARTICLES
    | frozenset({"the", "and", "of", "jr", "jnr", "snr", "ii", "iii", "iv"})
)

_PART_PUNCTUATION = string.punctuation + "\u2018\u2019\u201c\u201d\u00ab\u00bb"
_WORD_OR_HYPHEN = re.compile(r"[\w-]")
# What may stand between a sentence end and the word that opens the next one.
_OPENERS = " \t\r\"'\u2018\u201c\u00ab([*_-\u2014"
_SENTENCE_ENDS = ".!?\n"
# The look-back for a sentence start is bounded, so each match costs a constant.
_MAX_OPENER_CHARS = 8
# What may stand before and after a prose word (inside a character class).
_PROSE_OPENERS = "\"'\u2018\u201c(\\["
_PROSE_CLOSERS = ",;:!?)\"'\u2019\u201d\\]"
_SETTINGS_KEYS = ("types", "min_score", "name_parts", "min_part_chars", "case_insensitive")


@dataclass(frozen=True, slots=True)
class PropagationSettings:
    """How the merge propagates confident mentions.

    Attributes:
        types: the public types whose hits are propagated; empty disables propagation.
        min_score: the least score a source hit needs; hits without a score never qualify.
        name_parts: also propagate the capitalised parts of a PERSON span (its surname or
            given name), each as a whole word in its capitalised form only.
        min_part_chars: the shortest name part that is propagated.
        case_insensitive: match exact source strings in any letter case (social text writes
            names in lower case). Name parts stay capitalised-only whatever this says.

    The dataclass defaults to off (``types=()``), so the pure function does nothing unless
    asked; the ``pii_merge`` factory's default config turns it on. Where the defaults come
    from, measured with the shipped pipeline on the generated test and dev splits and on
    WNUT-17 dev: ``min_score=0.5`` on the calibrated scores
    (``spacy_pii.evaluation.score_map``), chosen on dev: PERSON F1 0.835 at 0.9 and 0.847 at
    0.5, with USERNAME and GOV_ID unchanged. (0.9 was chosen on raw scores, which run higher
    than calibrated ones.)
    ``case_insensitive=False`` because it gained
    no true span on any of the three and added one false one. ``min_part_chars=3`` keeps the
    shortest common names (Ann, Lee, Kim) and drops two-letter capitalised words, which are
    mostly abbreviations (St, Co, No); it was not measured separately.
    """

    types: tuple[str, ...] = ()
    min_score: float = 0.5
    name_parts: bool = True
    min_part_chars: int = 3
    case_insensitive: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.types, str) or not all(isinstance(t, str) for t in self.types):
            raise ConfigError("propagate.types must be a list of type names")
        if len(set(self.types)) != len(self.types):
            raise ConfigError("propagate.types names a type twice")
        if isinstance(self.min_score, bool) or not isinstance(self.min_score, int | float):
            raise ConfigError("propagate.min_score must be a number")
        if not 0.0 <= float(self.min_score) <= 1.0:
            raise ConfigError("propagate.min_score must lie in [0, 1]")
        if isinstance(self.min_part_chars, bool) or not isinstance(self.min_part_chars, int):
            raise ConfigError("propagate.min_part_chars must be an integer")
        if self.min_part_chars < 1:
            raise ConfigError("propagate.min_part_chars must be at least 1")
        for flag in ("name_parts", "case_insensitive"):
            if not isinstance(getattr(self, flag), bool):
                raise ConfigError(f"propagate.{flag} must be true or false")

    @property
    def enabled(self) -> bool:
        return bool(self.types)

    @classmethod
    def from_config(cls, config: Mapping[str, Any] | None) -> PropagationSettings:
        """Build settings from a component config mapping; unknown keys are refused."""
        if config is None:
            return cls()
        if not isinstance(config, Mapping):
            raise ConfigError("propagate must be a mapping")
        unknown = sorted(str(key) for key in config if key not in _SETTINGS_KEYS)
        if unknown:
            raise ConfigError(f"propagate has unknown settings: {unknown}")
        values = dict(config)
        if "types" in values:
            types = values["types"]
            if types is None or isinstance(types, str):
                raise ConfigError("propagate.types must be a list of type names")
            values["types"] = tuple(types)
        return cls(**values)

    def to_config(self) -> dict[str, Any]:
        """The settings as a JSON-ready mapping, the inverse of :meth:`from_config`."""
        return {
            "types": list(self.types),
            "min_score": self.min_score,
            "name_parts": self.name_parts,
            "min_part_chars": self.min_part_chars,
            "case_insensitive": self.case_insensitive,
        }


@dataclass(frozen=True, slots=True)
class _Target:
    """One alternative of the document's pattern and the identities it stands for."""

    value: str
    ignore_case: bool
    labels: tuple[tuple[str, float, str], ...]  # (type, score, kind), sorted

    @property
    def best_score(self) -> float:
        return max(score for _, score, _ in self.labels)


def is_source(hit: Hit, settings: PropagationSettings) -> bool:
    """Whether ``hit`` is confident enough to have its other mentions marked."""
    return hit.label in settings.types and hit.score is not None and hit.score >= settings.min_score


def name_parts(value: str, min_chars: int) -> list[str]:
    """The parts of a PERSON string that are propagated on their own, in span order.

    A part is a whitespace-separated word with surrounding punctuation removed that has at
    least ``min_chars`` characters, starts with an upper-case letter, and is not in
    :data:`NAME_PART_STOPWORDS`. A single-word name has no parts beyond itself.
    """
    words = value.split()
    if len(words) < 2:
        return []
    parts: list[str] = []
    for word in words:
        part = word.strip(_PART_PUNCTUATION)
        if len(part) < min_chars or not part[0].isupper():
            continue
        if part.lower().rstrip(".") in NAME_PART_STOPWORDS or part in parts:
            continue
        parts.append(part)
    return parts


def _targets(text: str, hits: Sequence[Hit], settings: PropagationSettings) -> list[_Target]:
    best: dict[tuple[str, bool], dict[str, tuple[float, str]]] = {}

    def offer(value: str, ignore_case: bool, hit: Hit) -> None:
        assert hit.score is not None  # is_source() let only scored hits through
        key = (value.lower() if ignore_case else value, ignore_case)
        labels = best.setdefault(key, {})
        candidate = (hit.score, hit.kind)
        if hit.label not in labels or candidate > labels[hit.label]:
            labels[hit.label] = candidate

    for hit in hits:
        if not is_source(hit, settings):
            continue
        value = text[hit.start : hit.end]
        offer(value, settings.case_insensitive, hit)
        if settings.name_parts and hit.label == "PERSON":
            for part in name_parts(value, settings.min_part_chars):
                offer(part, False, hit)

    targets = [
        _Target(
            value,
            ignore_case,
            tuple(sorted((label, score, kind) for label, (score, kind) in labels.items())),
        )
        for (value, ignore_case), labels in best.items()
    ]
    if len(targets) > MAX_STRINGS:
        logger.warning(
            "mention propagation: %d distinct strings in one document; keeping %d",
            len(targets),
            MAX_STRINGS,
        )
        targets.sort(key=lambda t: (-t.best_score, -len(t.value), t.value, t.ignore_case))
        targets = targets[:MAX_STRINGS]
    # Longest first, so that at one position the full name wins over one of its parts.
    targets.sort(key=lambda t: (-len(t.value), t.value, t.ignore_case))
    return targets


def build_pattern(targets: Sequence[tuple[str, bool]]) -> re.Pattern[str]:
    """One whole-word alternation of literal strings; group ``i + 1`` is ``targets[i]``.

    Each ``(value, ignore_case)`` becomes an escaped branch, case-insensitive where asked.
    The boundaries are look-arounds rather than ``\\b`` because a username or id may begin or
    end with a non-word character (``@ada``), and because a hyphen joins words here.
    """
    branches = [
        f"(?i:({re.escape(value)}))" if ignore_case else f"({re.escape(value)})"
        for value, ignore_case in targets
    ]
    return re.compile(r"(?<![\w-])(?:" + "|".join(branches) + r")(?![\w-])")


def build_scan_pattern(targets: Sequence[tuple[str, bool]]) -> re.Pattern[str]:
    """:func:`build_pattern` without its groups: the same matches, found faster.

    The regex engine tries every branch at every position; a branch that opens with a
    literal is skipped on its first character, but one that opens with a group is entered
    first (measured: 17 microseconds a character for 256 names, a minute on a million
    characters). The caller tells the targets apart by the matched text.
    """
    branches = [
        f"(?i:{re.escape(value)})" if ignore_case else re.escape(value)
        for value, ignore_case in targets
    ]
    return re.compile(r"(?<![\w-])(?:" + "|".join(branches) + r")(?![\w-])")


def _gaps(hits: Sequence[Hit], length: int) -> list[tuple[int, int]]:
    gaps: list[tuple[int, int]] = []
    cursor = 0
    for start, end in sorted((hit.start, hit.end) for hit in hits):
        if start > cursor:
            gaps.append((cursor, start))
        cursor = max(cursor, end)
    if cursor < length:
        gaps.append((cursor, length))
    return gaps


def propagate_mentions(text: str, hits: Sequence[Hit], settings: PropagationSettings) -> list[Hit]:
    """Find the other whole-word occurrences of the confident mentions among ``hits``.

    Args:
        text: the document text that the hits' offsets index.
        hits: every hit already kept for the document. Sources are chosen among them, and
            no returned hit overlaps any of them.
        settings: which types and scores qualify, and whether name parts are propagated.

    Returns:
        The new hits only, sorted by start, end and type. Where one string stands for
        several types, one hit per type is returned on the same characters, and the
        caller's overlap resolution chooses between them.
    """
    if not settings.enabled:
        return []
    every_target = _targets(text, hits, settings)
    # A string written once is written only inside its own source hit, where no match may
    # fall: dropping it spares most documents (each name written once) a pattern compile.
    targets = [t for t in every_target if t.ignore_case or _written_twice(text, t.value)]
    if not targets:
        return []
    branches = [(t.value, t.ignore_case) for t in targets]
    pattern = build_scan_pattern(branches)
    grouped: re.Pattern[str] | None = None
    # The regex reports one branch per match, but an equally long branch may match the same
    # characters ("Jordan" as a capitalised PERSON part and "jordan" as a case-insensitive
    # USERNAME): every identity the characters stand for becomes a candidate.
    exact: dict[str, list[_Target]] = {}
    folded: dict[str, list[_Target]] = {}
    for target in targets:
        index = folded if target.ignore_case else exact
        index.setdefault(target.value, []).append(target)
    # Computed for every one-word string at the first one-word match that opens a sentence
    # (one scan of the text): most documents never get there, so a short text pays nothing.
    written_lower: frozenset[str] | None = None
    found: list[Hit] = []
    for gap_start, gap_end in _gaps(hits, len(text)):
        # The look-behind sees the text before gap_start; the look-ahead stops at gap_end,
        # so the right boundary is checked again against the whole text.
        for match in pattern.finditer(text, gap_start, gap_end):
            start, end = match.span()
            if end < len(text) and _WORD_OR_HYPHEN.match(text, end):
                continue
            value = match.group()
            if _is_one_word(value) and exact.get(value) and _opens_sentence(text, start):
                if written_lower is None:
                    # Every exact string, the ones written once included: the scan's
                    # longer alternatives keep a shorter one from matching inside them.
                    written_lower = _written_in_lower_case(
                        text, [t.value for t in every_target if not t.ignore_case]
                    )
                if value in written_lower:
                    continue
            matching = [*exact.get(value, ()), *folded.get(value.lower(), ())]
            if not matching:
                # Only where the regex folds case unlike str.lower ("\u017f" matches "s"):
                # the grouped pattern names the branch that matched here.
                grouped = grouped or build_pattern(branches)
                named = grouped.match(text, start, gap_end)
                assert named is not None  # the same branches, at the same position
                matching = [targets[cast(int, named.lastindex) - 1]]
            labels: dict[str, tuple[float, str]] = {}
            for target in matching:
                for label, score, kind in target.labels:
                    if label not in labels or (score, kind) > labels[label]:
                        labels[label] = (score, kind)
            for label, (score, kind) in labels.items():
                found.append(Hit(start, end, label, score, PROPAGATED_DETECTOR, kind))
    found.sort(key=lambda hit: (hit.start, hit.end, hit.label, hit.kind))
    return found


def _written_twice(text: str, value: str) -> bool:
    first = text.find(value)
    return first >= 0 and text.find(value, first + 1) >= 0


def _is_one_word(value: str) -> bool:
    return value[:1].isupper() and value[1:].islower() and " " not in value


def _written_in_lower_case(text: str, values: Sequence[str]) -> frozenset[str]:
    """The one-word ``values`` that ``text`` also writes in lower case as a prose word (one
    scan for all of them)."""
    words = {value.lower(): value for value in values if _is_one_word(value)}
    if not words:
        return frozenset()
    # A prose word: space or an opening mark before it, space or a closing mark after it, so
    # that "hopper@x.org" or "good.example" says nothing about "Hopper" or "Good".
    branches = "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))
    pattern = re.compile(
        r"(?<![^\s"
        + _PROSE_OPENERS
        + r"])(?:"
        + branches
        + r")(?=[\s"
        + _PROSE_CLOSERS
        + r"]|\.(?!\w)|$)"
    )
    return frozenset(words[match.group()] for match in pattern.finditer(text))


def _opens_sentence(text: str, start: int) -> bool:
    index = start - 1
    floor = max(-1, start - 1 - _MAX_OPENER_CHARS)
    while index > floor and text[index] in _OPENERS:
        index -= 1
    if index < 0:
        return True
    if index == floor:
        return False
    return text[index] in _SENTENCE_ENDS or text[index + 1 : start].strip(" \t") != ""
