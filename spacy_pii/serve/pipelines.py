"""The demo's pipelines: each loaded once, in the background, and run with per-request settings.

Loading the shipped default takes seconds, so the service starts at once and loads its
pipelines one after the other in a background thread; ``/api/pipelines`` reports each one's
state, and a request for a pipeline that is still loading is refused, never queued.

The type filter, the score floor and ``drop_unscored`` of a request go into the merge
itself, not into a filter after it: a request that turns PERSON off must see the span that
the PERSON span had beaten in the overlap resolution. So every component before
``pii_merge`` runs as loaded, and a merge built for the request, with the loaded merge's
taxonomy, thresholds and propagation settings, writes ``doc.spans["pii"]``. Components after
the merge (a ``pii_redact``) are skipped: the service redacts with the request's operators.
No FastAPI import here.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

BUILT_IN = ("rules", "default")

Loader = Callable[[str], Any]


def _load_with_spacy_pii(source: str) -> Any:
    from ..assembly.build import load_pipeline

    return load_pipeline(source)


@dataclass
class PipelineSlot:
    """One pipeline the service can run, and where its loading stands.

    Attributes:
        name: the name requests use (``rules``, ``default``, or one given with ``--model``).
        source: what :func:`spacy_pii.load` is given.
        state: ``waiting``, ``loading``, ``ready`` or ``failed``.
        error: the error's type name when loading failed (never its message, which may
            hold a path).
        load_seconds: how long loading took.
    """

    name: str
    source: str
    state: str = "waiting"
    error: str | None = None
    load_seconds: float | None = None
    nlp: Any = field(default=None, repr=False)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def ready(self) -> bool:
        return self.state == "ready"

    def to_dict(self) -> dict[str, Any]:
        components = [name for name, _ in self.nlp.pipeline] if self.nlp is not None else []
        return {
            "name": self.name,
            "source": self.source if self.name in BUILT_IN else Path(self.source).name,
            "ready": self.ready,
            "state": self.state,
            "error": self.error,
            "load_seconds": None if self.load_seconds is None else round(self.load_seconds, 2),
            "components": components,
        }


def model_slots(models: Iterable[str]) -> list[tuple[str, str]]:
    """``(name, source)`` for each ``--model`` value: ``NAME=PATH`` or a path or package name.

    A bare path is named after its last folder; a name already taken gets ``-2``, ``-3``.
    """
    taken = set(BUILT_IN)
    slots = []
    for value in models:
        name, sep, source = value.partition("=")
        if not sep:
            source = value
            name = Path(value.rstrip("/\\")).name or value
        base, suffix = name, 2
        while name in taken:
            name = f"{base}-{suffix}"
            suffix += 1
        taken.add(name)
        slots.append((name, source))
    return slots


class PipelineRegistry:
    """The pipelines of one service, loaded once each, in order, by one background thread."""

    def __init__(
        self, slots: Iterable[tuple[str, str]] | None = None, loader: Loader | None = None
    ) -> None:
        pairs = list(slots) if slots is not None else [(name, name) for name in BUILT_IN]
        self.slots: dict[str, PipelineSlot] = {
            name: PipelineSlot(name, source) for name, source in pairs
        }
        self._loader = loader or _load_with_spacy_pii
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.slots)

    def start_loading(self) -> None:
        """Start the background loader once; later calls do nothing."""
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._load_all, name="spacy-pii-serve-loader", daemon=True
                )
                self._thread.start()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the loader to finish; ``True`` when it has."""
        self.start_loading()
        assert self._thread is not None
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _load_all(self) -> None:
        for slot in self.slots.values():
            slot.state = "loading"
            started = time.perf_counter()
            try:
                nlp = self._loader(slot.source)
            except Exception as err:  # reported by type: a message may name a private path
                slot.state, slot.error = "failed", type(err).__name__
                logger.warning("pipeline %s failed to load: %s", slot.name, slot.error)
                continue
            finally:
                slot.load_seconds = time.perf_counter() - started
            slot.nlp = nlp
            slot.state = "ready"
            logger.info("pipeline %s ready in %.1f s", slot.name, slot.load_seconds)

    def to_list(self) -> list[dict[str, Any]]:
        return [slot.to_dict() for slot in self.slots.values()]


def _merge_of(nlp: Any) -> tuple[int, Any] | None:
    """The index and component of the last ``pii_merge`` in ``nlp``, if there is one."""
    from ..pipeline.pii_merge import PiiMerge

    found = None
    for index, (_, component) in enumerate(nlp.pipeline):
        if isinstance(component, PiiMerge):
            found = (index, component)
    return found


def default_types(nlp: Any) -> tuple[str, ...] | None:
    """The types the loaded merge keeps, or ``None`` when the pipeline has no ``pii_merge``."""
    found = _merge_of(nlp)
    return None if found is None else tuple(found[1].types)


def detect_doc(
    nlp: Any,
    text: str,
    *,
    types: tuple[str, ...] | None,
    min_score: float,
    drop_unscored: bool,
) -> Any:
    """Run ``nlp`` on ``text`` with the request's types, floor and ``drop_unscored``.

    ``types=None`` keeps the loaded merge's types. The floor raises every type's threshold
    to at least ``min_score``; a threshold the pipeline already has (a calibrated policy)
    is never lowered. A pipeline without ``pii_merge`` runs whole and its ``pii`` spans
    are filtered afterwards.
    """
    found = _merge_of(nlp)
    if found is None:
        doc = nlp(text)
        return _filter_after(doc, types, min_score, drop_unscored)
    index, base = found
    from ..pipeline.pii_merge import PiiMerge

    thresholds = {
        name: max(float(base.thresholds.get(name, 0.0)), min_score) for name in base.taxonomy.types
    }
    settings = base.settings.model_copy(
        update={
            "types": types if types is not None else base.types,
            "thresholds": thresholds,
            "drop_unscored": drop_unscored or base.settings.drop_unscored,
        }
    )
    merge = PiiMerge(nlp.vocab, name=base.name, settings=settings, taxonomy=base.taxonomy)
    # The policy's cuts are already in ``thresholds``; the allow-list is data, so it
    # arrives as data does.
    merge.initialize(allow_list=sorted(base.allow_list))
    doc = nlp.make_doc(text)
    for _, component in nlp.pipeline[:index]:
        doc = component(doc)
    return merge(doc)


def _filter_after(
    doc: Any, types: tuple[str, ...] | None, min_score: float, drop_unscored: bool
) -> Any:
    from spacy.tokens import SpanGroup

    if "pii" not in doc.spans:
        return doc
    group = doc.spans["pii"]
    scores = list(group.attrs.get("scores") or [None] * len(group))
    detectors = list(group.attrs.get("detectors") or [""] * len(group))
    kinds = list(group.attrs.get("kinds") or ["model"] * len(group))
    kept = [
        (span, score, detector, kind)
        for span, score, detector, kind in zip(group, scores, detectors, kinds, strict=True)
        if (types is None or span.label_ in types)
        and (not drop_unscored if score is None else score >= min_score)
    ]
    new = SpanGroup(doc, name="pii", spans=[span for span, _, _, _ in kept])
    new.attrs["scores"] = [score for _, score, _, _ in kept]
    new.attrs["detectors"] = [detector for _, _, detector, _ in kept]
    new.attrs["kinds"] = [kind for _, _, _, kind in kept]
    doc.spans["pii"] = new
    return doc
