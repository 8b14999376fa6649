"""``pii_redact``: mask ``doc.spans["pii"]`` into ``doc._.pii_redacted`` with a vault.

A thin adapter over :func:`spacy_pii.redact.redact`: it reads the final spans that
``pii_merge`` wrote and sets three ``Doc`` extensions:

- ``doc._.pii_redacted``: the masked text;
- ``doc._.pii_vault``: placeholder -> original value (secrets never enter it);
- ``doc._.pii_risk``: with ``risk = true``, the quasi-identifier findings of
  :func:`spacy_pii.quasi.find_combinations` as plain dicts, otherwise ``None``.

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

import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import srsly
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import ensure_path

from ..errors import ConfigError
from ..quasi import find_combinations
from ..redact import parse_operators, redact
from ..taxonomy import Taxonomy, load_taxonomy

logger = logging.getLogger(__name__)

EXTENSIONS = ("pii_redacted", "pii_vault", "pii_risk")
for _name in EXTENSIONS:
    if not Doc.has_extension(_name):
        Doc.set_extension(_name, default=None)

DEFAULT_REDACT_CONFIG: dict[str, Any] = {
    "spans_key": "pii",
    "operators": {},
    "hash_key_env": "SPACY_PII_KEY",
    "risk": False,
}


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
            "partial", "keep": 4}, "DEFAULT": "placeholder"}``. See :mod:`spacy_pii.redact`.
        hash_key_env: the environment variable that holds the key for ``hash``/``fake``;
            the key itself is never written to the config or to disk.
        risk: also set ``doc._.pii_risk`` from :func:`spacy_pii.quasi.find_combinations`.
    """
    return PiiRedact(
        nlp.vocab,
        name=name,
        spans_key=spans_key,
        operators=operators,
        hash_key_env=hash_key_env,
        risk=risk,
    )


class PiiRedact(Pipe):
    """The redaction component. See :func:`make_pii_redact` for the settings."""

    def __init__(
        self,
        vocab: Any,
        name: str = "pii_redact",
        *,
        spans_key: str = "pii",
        operators: dict[str, Any] | None = None,
        hash_key_env: str | None = "SPACY_PII_KEY",
        risk: bool = False,
        taxonomy: Taxonomy | None = None,
    ) -> None:
        self.vocab = vocab
        self.name = name
        self.spans_key = spans_key
        self.hash_key_env = hash_key_env
        self.risk = risk
        self._configure(dict(operators or {}), taxonomy or load_taxonomy())

    def _configure(self, operators: dict[str, Any], taxonomy: Taxonomy) -> None:
        parsed = parse_operators(operators, taxonomy)
        keyed = sorted(type_name for type_name, op in parsed.items() if op.needs_key)
        key = None
        if keyed:
            if not self.hash_key_env:
                raise ConfigError(f"operators for {keyed} need a key; set hash_key_env")
            key = os.environ.get(self.hash_key_env) or None
            if key is None:
                raise ConfigError(
                    f"operators for {keyed} need a key in the environment variable "
                    f"{self.hash_key_env!r}, which is unset or empty"
                )
        self.operators = operators
        self.taxonomy = taxonomy
        self._key = key

    def __call__(self, doc: Doc) -> Doc:
        error_handler = self.get_error_handler()
        try:
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
        except Exception as err:
            error_handler(self.name, self, [doc], err)
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
            self._configure(self.operators, load_taxonomy(taxonomy))

    # -- serialization: settings and taxonomy, never the key -----------------------

    def _cfg(self) -> dict[str, Any]:
        return {
            "spans_key": self.spans_key,
            "operators": self.operators,
            "hash_key_env": self.hash_key_env,
            "risk": self.risk,
        }

    def _load(self, cfg: dict[str, Any], taxonomy: dict[str, Any]) -> None:
        self.spans_key = cfg["spans_key"]
        self.hash_key_env = cfg["hash_key_env"]
        self.risk = cfg["risk"]
        self._configure(dict(cfg["operators"]), load_taxonomy(taxonomy))

    def to_bytes(self, *, exclude: Iterable[str] = ()) -> bytes:
        return srsly.json_dumps({"cfg": self._cfg(), "taxonomy": self.taxonomy.to_dict()}).encode(
            "utf-8"
        )

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = ()) -> PiiRedact:
        data = srsly.json_loads(bytes_data)
        self._load(data["cfg"], data["taxonomy"])
        return self

    def to_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> None:
        path = ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        srsly.write_json(path / "cfg.json", self._cfg())
        srsly.write_yaml(path / "taxonomy.yaml", self.taxonomy.to_dict())

    def from_disk(self, path: str | Path, *, exclude: Iterable[str] = ()) -> PiiRedact:
        path = ensure_path(path)
        self._load(srsly.read_json(path / "cfg.json"), srsly.read_yaml(path / "taxonomy.yaml"))
        return self
