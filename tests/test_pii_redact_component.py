"""The pii_redact component: doc extensions, config, key handling, serialization, n_process."""

from __future__ import annotations

import importlib
import re

import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc
from standin import register_standin
from thinc.api import ConfigValidationError

import spacy_pii.pipeline.pii_redact as component_module
from spacy_pii.errors import ConfigError
from spacy_pii.redaction import restore

KEY_ENV = "SPACY_PII_TEST_KEY"

# Stand-in for pii_rules + pii_merge (see tests/test_restore.py): regex spans in "pii".
_STANDIN = re.compile(
    r"(?P<EMAIL>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)|(?P<PAYMENT>\b\d{16}\b)"
    r"|(?P<SECRET>(?<=password )\S+)"
)


register_standin("test_pii_redact_standin", _STANDIN)


def make_nlp(**config: object) -> Language:
    nlp = spacy.blank("en")
    nlp.add_pipe("test_pii_redact_standin")
    nlp.add_pipe("pii_redact", config=config)
    return nlp


TEXT = "Mail ada@example.com , card 4242424242424242 , password hunter2x ."
TEXTS = [
    TEXT,
    "Patient born 1985-03-14, ZIP 94110, male, follow-up booked.",
    "Nothing here.",
    "cc grace@example.com and ada@example.com",
]


def test_doc_gets_masked_text_and_vault() -> None:
    doc = make_nlp()(TEXT)
    assert doc._.pii_redacted == "Mail <EMAIL_1> , card <PAYMENT_1> , password <SECRET> ."
    assert doc._.pii_vault == {"<EMAIL_1>": "ada@example.com", "<PAYMENT_1>": "4242424242424242"}
    assert doc._.pii_risk is None
    assert restore(doc._.pii_redacted, doc._.pii_vault).text == TEXT.replace("hunter2x", "<SECRET>")


def test_risk_setting_adds_quasi_findings() -> None:
    doc = make_nlp(risk=True)(TEXTS[1])
    assert [(row["name"], row["risk"]) for row in doc._.pii_risk] == [("postcode_dob_sex", "high")]
    assert make_nlp(risk=True)("Nothing here.")._.pii_risk == []


def test_operators_from_config() -> None:
    doc = make_nlp(operators={"PAYMENT": {"operator": "partial", "keep": 4}})(TEXT)
    assert "card ************4242 ," in doc._.pii_redacted
    assert set(doc._.pii_vault) == {"<EMAIL_1>"}


def test_hash_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "first-key")
    nlp = make_nlp(operators={"EMAIL": "hash"}, hash_key_env=KEY_ENV)
    first = nlp(TEXT)._.pii_redacted
    assert first == nlp(TEXT)._.pii_redacted and "<EMAIL_h:" in first
    monkeypatch.setenv(KEY_ENV, "second-key")
    other = make_nlp(operators={"EMAIL": "hash"}, hash_key_env=KEY_ENV)(TEXT)._.pii_redacted
    assert other != first


def test_missing_key_fails_when_the_pipeline_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    with pytest.raises(ConfigError, match=KEY_ENV):
        make_nlp(operators={"EMAIL": "fake"}, hash_key_env=KEY_ENV)


@pytest.mark.parametrize(
    ("config", "error"),
    [
        pytest.param({"operators": "hash"}, ConfigValidationError, id="operators-not-a-dict"),
        pytest.param({"risk": [1]}, ConfigValidationError, id="risk-not-a-bool"),
        pytest.param({"spans_key": None}, ConfigValidationError, id="spans-key-none"),
        pytest.param({"operators": {"EMAIL": "rot13"}}, ConfigError, id="unknown-operator"),
        pytest.param({"operators": {"SECRET": "fake"}}, ConfigError, id="secret-irreversible"),
    ],
)
def test_config_is_validated(config: dict, error: type) -> None:
    with pytest.raises(error):
        make_nlp(**config)


def test_missing_span_group_is_an_error() -> None:
    nlp = spacy.blank("en")
    nlp.add_pipe("pii_redact")
    with pytest.raises(ConfigError, match="no span group 'pii'"):
        nlp("Mail ada@example.com")


def test_analyze_pipes_sees_the_flow() -> None:
    summary = make_nlp().analyze_pipes()["summary"]["pii_redact"]
    assert summary["requires"] == ["doc.spans"]
    assert "doc._.pii_vault" in summary["assigns"]


def test_disk_round_trip_keeps_settings_and_never_the_key(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "do-not-write-me")
    config = {
        "operators": {"EMAIL": "hash", "PAYMENT": "partial"},
        "hash_key_env": KEY_ENV,
        "risk": True,
    }
    nlp = make_nlp(**config)
    nlp.to_disk(tmp_path / "pipeline")
    written = b"".join(
        path.read_bytes() for path in (tmp_path / "pipeline").rglob("*") if path.is_file()
    )
    assert b"do-not-write-me" not in written
    # Data only in the folder: the settings live in config.cfg.
    assert [p.name for p in (tmp_path / "pipeline" / "pii_redact").iterdir()] == ["taxonomy.yaml"]
    loaded = spacy.load(tmp_path / "pipeline")
    assert loaded.get_pipe("pii_redact").risk is True
    assert [loaded(t)._.pii_redacted for t in TEXTS] == [nlp(t)._.pii_redacted for t in TEXTS]


def test_bytes_carry_the_taxonomy_and_leave_the_settings_to_the_config() -> None:
    source = make_nlp(operators={"PAYMENT": "partial"}, risk=True).get_pipe("pii_redact")
    target = make_nlp().get_pipe("pii_redact")
    target.from_bytes(source.to_bytes())
    assert target.taxonomy.to_dict() == source.taxonomy.to_dict()
    assert target.risk is False and target.operators == {}


def test_loading_without_the_key_fails_closed(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "k")
    make_nlp(operators={"EMAIL": "hash"}, hash_key_env=KEY_ENV).to_disk(tmp_path / "p")
    monkeypatch.delenv(KEY_ENV)
    with pytest.raises(ConfigError, match=KEY_ENV):
        spacy.load(tmp_path / "p")


def test_n_process_2_matches_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    # Extension values set in a worker come back through Doc.to_bytes (user_data, msgpack):
    # the vault, the masked text and the risk rows must all survive that trip.
    monkeypatch.setenv(KEY_ENV, "worker-key")
    nlp = make_nlp(operators={"PAYMENT": "hash"}, hash_key_env=KEY_ENV, risk=True)
    fields = ("pii_redacted", "pii_vault", "pii_risk")
    single = [tuple(doc._.get(f) for f in fields) for doc in nlp.pipe(TEXTS)]
    multi = [
        tuple(doc._.get(f) for f in fields) for doc in nlp.pipe(TEXTS, n_process=2, batch_size=1)
    ]
    assert multi == single
    assert single[0][1] == {"<EMAIL_1>": "ada@example.com"}


def test_extensions_register_once() -> None:
    importlib.reload(component_module)
    assert all(Doc.has_extension(name) for name in component_module.EXTENSIONS)


def test_rules_pipeline_with_pii_redact() -> None:
    """Integration: spacy_pii.load("rules") + pii_redact on the seed quickstart text."""
    import spacy_pii

    nlp = spacy_pii.load("rules")
    nlp.add_pipe("pii_redact")
    source = (
        "Customer Ada Lovelace called from +852 5555 0101. "
        "Email ada@example.com. Card 4242424242424242. Order 48291."
    )
    doc = nlp(source)
    assert doc._.pii_redacted == (
        "Customer Ada Lovelace called from <PHONE_1>. "
        "Email <EMAIL_1>. Card <PAYMENT_1>. Order 48291."
    )
    assert restore(doc._.pii_redacted, doc._.pii_vault).text == source
