"""``pii_redact``: mask ``doc.spans["pii"]`` into ``doc._.pii_redacted`` with a vault.

A thin adapter over :func:`spacy_pii.redaction.redact`: it reads the final spans that
``pii_merge`` wrote and sets three ``Doc`` extensions:

- ``doc._.pii_redacted``: the masked text;
- ``doc._.pii_vault``: placeholder -> original value (secrets never enter it);
- ``doc._.pii_risk``: with ``risk = true``, the quasi-identifier findings of
  :func:`spacy_pii.core.quasi.find_combinations` as plain dicts, otherwise ``None``.

All three are plain strings, dicts and lists, because ``nlp.pipe(n_process=2)`` sends docs
back from the workers with ``Doc.to_bytes``, which serialises ``user_data`` (where extension
values live) with msgpack: a dataclass would not survive the trip.

The vault holds personal data. It lives in ``doc.user_data``, so ``doc.to_bytes()`` and a
``DocBin(store_user_data=True)`` carry it: store docs without user data unless the storage
is as protected as the vault itself.

The key. ``hash`` and ``fake`` need an HMAC key, and a key must never sit in a config file
that ``nlp.to_disk`` writes and ``spacy package`` ships. The config therefore names an
environment variable (``hash_key_env``, default ``SPACY_PII_KEY``); the component reads the
key from it when it is built or loaded, keeps it in memory only, and fails at once, naming
the variable, when a keyed operator is configured and the variable is unset.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import SimpleFrozenList

from ..adapters.component_data import data_from_bytes, data_from_disk, data_to_bytes, data_to_disk
from ..core.quasi import find_combinations
from ..core.taxonomy import Taxonomy, load_taxonomy
from ..errors import ConfigError, validated_settings
from ..redaction import parse_operators, redact

EXTENSIONS = ("pii_redacted", "pii_vault", "pii_risk")
for _name in EXTENSIONS:
    if not Doc.has_extension(_name):
        Doc.set_extension(_name, default=None)

# The data record and its file in the component's folder.
DATA_FILES = {"taxonomy": ".yaml"}

DEFAULT_REDACT_CONFIG: dict[str, Any] = {
    "spans_key": "pii",
    "operators": {},
    "hash_key_env": "SPACY_PII_KEY",
    "risk": False,
}


class PiiRedactSettings(BaseModel):
    """``pii_redact``'s settings, validated; built from the factory's arguments."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spans_key: str = "pii"
    operators: dict[str, str | dict[str, Any]] = {}
    hash_key_env: str | None = "SPACY_PII_KEY"
    risk: bool = False


@Language.factory(
    "pii_redact",
    assigns=["doc._.pii_redacted", "doc._.pii_vault", "doc._.pii_risk"],
    requires=["doc.spans"],
    default_config=DEFAULT_REDACT_CONFIG,
)
def make_pii_redact(
    nlp: Language,
    name: str,
    spans_key: str,
    operators: dict[str, str | dict[str, Any]],
    hash_key_env: str | None,
    risk: bool,
) -> PiiRedact:
    """Mask the final PII spans of each doc and keep the vault on the doc.

    Args:
        spans_key: the span group to mask, normally ``pii`` from ``pii_merge``.
        operators: per-type operators: ``{"EMAIL": "hash", "PHONE": {"operator":
            "partial", "keep": 4}, "DEFAULT": "placeholder"}``. See :mod:`spacy_pii.redaction`.
        hash_key_env: the environment variable that holds the key for ``hash``/``fake``;
            the key itself is never written to the config or to disk.
        risk: also set ``doc._.pii_risk`` from :func:`spacy_pii.core.quasi.find_combinations`.
    """
    settings = validated_settings(PiiRedactSettings, "pii_redact", locals())
    return PiiRedact(nlp.vocab, name=name, settings=settings)


class PiiRedact(Pipe):
    """The redaction component. See :func:`make_pii_redact` for the settings."""

    def __init__(
        self,
        vocab: Any,
        name: str = "pii_redact",
        *,
        settings: PiiRedactSettings | None = None,
        taxonomy: Taxonomy | None = None,
    ) -> None:
        self.vocab = vocab
        self.name = name
        self.settings = settings if settings is not None else PiiRedactSettings()
        self._configure(taxonomy or load_taxonomy())

    @property
    def spans_key(self) -> str:
        return self.settings.spans_key

    @property
    def operators(self) -> dict[str, Any]:
        return dict(self.settings.operators)

    @property
    def risk(self) -> bool:
        return self.settings.risk

    def _configure(self, taxonomy: Taxonomy) -> None:
        parsed = parse_operators(self.operators, taxonomy)
        keyed = sorted(type_name for type_name, op in parsed.items() if op.needs_key)
        key = None
        env = self.settings.hash_key_env
        if keyed:
            if not env:
                raise ConfigError(f"operators for {keyed} need a key; set hash_key_env")
            key = os.environ.get(env) or None
            if key is None:
                raise ConfigError(
                    f"operators for {keyed} need a key in the environment variable "
                    f"{env!r}, which is unset or empty"
                )
        self.taxonomy = taxonomy
        self._key = key

    def __call__(self, doc: Doc) -> Doc:
        # Errors propagate to Language.__call__ and Pipe.pipe, whose handler decides.
        masked, vault = redact(
            doc,
            spans_key=self.spans_key,
            taxonomy=self.taxonomy,
            operators=self.operators,
            key=self._key,
        )
        doc._.pii_redacted = masked
        doc._.pii_vault = vault
        if self.risk:
            doc._.pii_risk = [finding.to_dict() for finding in find_combinations(doc.text)]
        return doc

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]] | None = None,
        *,
        nlp: Language | None = None,
        taxonomy: dict[str, Any] | None = None,
    ) -> None:
        """Optionally load a taxonomy mapping (``srsly.read_yaml.v1``) from ``[initialize]``."""
        if taxonomy is not None:
            self._configure(load_taxonomy(taxonomy))

    # -- serialization: the taxonomy only; settings live in config.cfg, the key nowhere --

    def to_bytes(self, *, exclude: Iterable[str] = SimpleFrozenList()) -> bytes:
        return data_to_bytes({"taxonomy": self.taxonomy.to_dict()}, exclude)

    def from_bytes(
        self, bytes_data: bytes, *, exclude: Iterable[str] = SimpleFrozenList()
    ) -> PiiRedact:
        self.initialize(**data_from_bytes(bytes_data, DATA_FILES, exclude))
        return self

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = SimpleFrozenList()) -> None:
        data_to_disk(path, {"taxonomy": self.taxonomy.to_dict()}, DATA_FILES, exclude)

    def from_disk(
        self, path: str | Path, *, exclude: Iterable[str] = SimpleFrozenList()
    ) -> PiiRedact:
        self.initialize(**data_from_disk(path, DATA_FILES, exclude))
        return self
