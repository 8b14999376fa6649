"""The taxonomy is data: validated, versioned, and the only label map."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from spacy_pii.core.taxonomy import load_taxonomy, parse_taxonomy
from spacy_pii.errors import TaxonomyError, UnknownLabel, UnknownType

SHIPPED = Path(__file__).resolve().parents[1] / "spacy_pii" / "data" / "taxonomy-2026.12.yaml"
REQUIRED_TYPES = {
    "SECRET",
    "GOV_ID",
    "PAYMENT",
    "EMAIL",
    "PHONE",
    "IP_ADDRESS",
    "USERNAME",
    "PERSON",
    "ADDRESS",
    "DATE_OF_BIRTH",
    "ORG",
}


def _shipped_dict() -> dict:
    return yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))


def test_shipped_taxonomy_has_the_public_types(taxonomy):
    assert taxonomy.version == "2026.12"
    assert set(taxonomy.types) >= REQUIRED_TYPES


def test_location_is_a_peer_only_type_that_corpora_do_not_label(taxonomy):
    location = taxonomy.get("LOCATION")
    assert (location.class_, location.rank, location.default, location.trained) == (
        "quasi",
        0,
        False,
        False,
    )
    assert all(spec.trained for name, spec in taxonomy.types.items() if name != "LOCATION")
    # Presidio's LOCATION now folds to the type; the corpora's place labels stay dropped
    assert taxonomy.fold("LOCATION") == "LOCATION"
    assert [taxonomy.fold(label) for label in ("GPE", "LOC", "location", "place")] == [None] * 4


@pytest.mark.parametrize(
    ("type_name", "rank"),
    [("SECRET", 40), ("GOV_ID", 30), ("PAYMENT", 20), ("EMAIL", 10), ("PERSON", 10), ("ORG", 0)],
)
def test_rank_comes_from_the_class(taxonomy, type_name, rank):
    assert taxonomy.get(type_name).rank == rank


def test_secret_is_the_only_irreversible_type(taxonomy):
    irreversible = {name for name, spec in taxonomy.types.items() if spec.mask == "irreversible"}
    assert irreversible == {"SECRET"}


def test_recall_floor_and_gate_come_from_severity(taxonomy):
    for spec in taxonomy.types.values():
        severity = taxonomy.severities[spec.severity]
        assert spec.recall_floor == severity.recall_floor
        assert spec.gated == severity.gated


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("EMAIL_ADDRESS", "EMAIL"),  # Presidio
        ("US_SSN", "GOV_ID"),
        ("IBAN_CODE", "PAYMENT"),
        ("person", "PERSON"),  # WNUT-17, by upper-casing
        ("corporation", "ORG"),
        ("Password", "SECRET"),  # CredSweeper
        ("PERSON", "PERSON"),  # a public type folds to itself
        ("DATE_TIME", None),  # explicit drop
        ("UUID", None),
    ],
)
def test_fold(taxonomy, label, expected):
    assert taxonomy.fold(label) == expected


def test_unknown_label_raises_without_guessing(taxonomy):
    with pytest.raises(UnknownLabel):
        taxonomy.fold("FAVOURITE_COLOUR")


def test_unknown_type_raises(taxonomy):
    with pytest.raises(UnknownType):
        taxonomy.check_types(["EMAIL", "SHOE_SIZE"])


def test_every_corpus_label_is_mapped_or_dropped(taxonomy):
    corpora = Path(__file__).resolve().parents[1] / "corpus" / "external"
    files = sorted(corpora.glob("*.jsonl"))
    if not files:
        pytest.skip("corpus/external holds no JSONL files in this checkout")
    for path in files:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                for span in json.loads(line)["spans"]:
                    taxonomy.fold(span["label"])  # raises on an unmapped label


def test_every_drop_has_a_reason(taxonomy):
    assert all(reason.strip() for reason in taxonomy.dropped.values())


def test_presidio_default_entities_are_all_mapped(taxonomy):
    presidio_entities = [
        "CREDIT_CARD",
        "CRYPTO",
        "DATE_TIME",
        "EMAIL_ADDRESS",
        "IBAN_CODE",
        "IP_ADDRESS",
        "LOCATION",
        "MAC_ADDRESS",
        "MEDICAL_LICENSE",
        "NRP",
        "ORGANIZATION",
        "PERSON",
        "PHONE_NUMBER",
        "UK_NHS",
        "URL",
        "US_BANK_NUMBER",
        "US_DRIVER_LICENSE",
        "US_ITIN",
        "US_PASSPORT",
        "US_SSN",
        "UUID",
    ]
    for entity in presidio_entities:
        taxonomy.fold(entity)


def test_rejects_missing_version():
    data = _shipped_dict()
    del data["version"]
    with pytest.raises(TaxonomyError, match="version"):
        load_taxonomy(data)


def test_rejects_duplicate_type():
    text = SHIPPED.read_text(encoding="utf-8")
    duplicated = text.replace("types:\n", "types:\n  EMAIL:\n    class: contact\n", 1)
    with pytest.raises(TaxonomyError, match="duplicate"):
        parse_taxonomy(duplicated)


def test_rejects_map_entry_to_missing_type():
    data = _shipped_dict()
    data["label_map"]["SHOE"] = "SHOE_SIZE"
    with pytest.raises(TaxonomyError, match="SHOE_SIZE"):
        load_taxonomy(data)


def test_rejects_label_both_mapped_and_dropped():
    data = _shipped_dict()
    data["dropped"]["EMAIL_ADDRESS"] = "contradiction"
    with pytest.raises(TaxonomyError, match="both"):
        load_taxonomy(data)


def test_round_trips_through_its_dict(taxonomy):
    assert load_taxonomy(taxonomy.to_dict()) == taxonomy


def test_is_frozen(taxonomy):
    with pytest.raises(Exception):  # noqa: B017 - pydantic raises ValidationError
        taxonomy.version = "2027.01"
