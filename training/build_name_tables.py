"""Build the compact lexical tables that the span ranker's features read.

    python training/build_name_tables.py --lexicons ../shared/lexicons \
        --out spacy_pii/data/name_evidence_en.json.gz

Sources (public domain or permissive; corpus/SOURCES.md, "Name evidence tables"):
- first names: SSA births 1880-2017 (``ssa_first_names.tsv``) and the 1990 Census first names;
- surnames: the 2000/1990/2010 Census surname lists (``us_census_surnames.tsv``);
- clinical shorthand: the note-mined short forms (Vanderbilt, Stetson, Columbia; CC BY 4.0)
  and the Wikipedia list of medical abbreviations from the Meta-Inventory, plus medspacy's
  section headers (MIT), and the bedside shorthand of
  ``corpus/lexicons/clinical_shorthand_supplement.txt`` (written here), less the names;
- drug names: the DrugBank-backed (CC0) variants of ``drug_names_drugbank_cc0.tsv``, and the
  devices, dressings and drug short forms of ``corpus/lexicons/clinical_products.txt`` (written
  here), in one table;
- software names: the stems of Debian 12's package names
  (``corpus/lexicons/debian12_package_names.txt.gz``);
- places: GeoNames' cities of 15,000 people or more, the countries, the US states and the
  continents, with log10 of their population (``corpus/lexicons/geonames_places.tsv.gz``).

``--language xx`` builds the multilingual pipeline's tables: the same, plus the given names and
surnames of Faker's person providers for the European locales of ``FAKER_LOCALES`` (lists
without counts, so a name only Faker knows gets ``FAKER_LOG_COUNT``). Word frequencies stay
per language: the ranker asks ``wordfreq`` in the pipeline's language.

Each name keeps log10 of its count, so that a feature can tell ``Mary`` (3.5 M births) from a
string five babies were given. The cut-offs keep the file small (a few hundred KB gzipped)
and drop the tail where every word of English is somebody's name.
"""

from __future__ import annotations

import csv
import gzip
import json
import math
import re
from pathlib import Path
from typing import Annotated

import typer

ROOT = Path(__file__).resolve().parents[1]
# Names given to fewer babies than this over 138 years, or surnames held by fewer people
# in the 2000 Census, are too rare to be evidence, and they are where ordinary words sit.
MIN_FIRST_NAME_BIRTHS = 100
MIN_SURNAME_COUNT = 300
# Shorthand sources whose entries are note shorthand (SOURCES.md of the lexicons: the
# Berman and imantsm lists lean to pathology and research vocabulary).
SHORTHAND_SOURCES = {
    "vanderbilt_clinic_notes",
    "vanderbilt_discharge_summaries",
    "stetson_signout",
    "columbia_obgyn",
    "wikipedia_2018",
}
MIN_DRUG_CHARS = 4
DEBIAN_PACKAGES = ROOT / "corpus" / "lexicons" / "debian12_package_names.txt.gz"
CLINICAL_PRODUCTS = ROOT / "corpus" / "lexicons" / "clinical_products.txt"
CLINICAL_SHORTHAND = ROOT / "corpus" / "lexicons" / "clinical_shorthand_supplement.txt"
# A package name without its packaging: the language or library prefix and the split
# suffix ("python3-sphinx-doc" is sphinx, "node-lodash" is lodash, "libssl3" is ssl).
PACKAGE_PREFIX = re.compile(
    r"^(?:python3?-|node-|ruby-|golang-github-[^-]+-|golang-|librust-|r-cran-|r-bioc-|"
    r"libghc-|php-|perl-|lib)"
)
PACKAGE_SUFFIX = re.compile(r"(?:-dev|-doc|-common|-utils|-data|-perl|-java|-tools|-bin)$")
PACKAGE_VERSION = re.compile(r"-?\d+(?:\.\d+)*$")
MIN_SOFTWARE_CHARS = 3
GEONAMES_PLACES = ROOT / "corpus" / "lexicons" / "geonames_places.tsv.gz"
# The locales of the languages spacy_pii.load knows (Serbian: Faker has no sr locale; its
# Latin-script names are in hr_HR's lists).
FAKER_LOCALES = (
    "da_DK",
    "de_DE",
    "es_ES",
    "fr_FR",
    "hr_HR",
    "it_IT",
    "nl_NL",
    "pl_PL",
    "pt_PT",
    "ru_RU",
    "sk_SK",
    "sv_SE",
)
# About a thousand people: the strength of a name that a Faker list holds without a count.
FAKER_LOG_COUNT = 3.0
# Context words of English, written here: a preposition of place before a capitalised word
# ("in Florence", "to Prato"), a determiner (names rarely follow "the"), and a verb of
# speech after one ("Percy said").
PLACE_WORDS = [
    "in",
    "at",
    "to",
    "from",
    "near",
    "into",
    "across",
    "via",
    "toward",
    "towards",
    "through",
    "around",
    "outside",
]
DETERMINERS = [
    "the",
    "a",
    "an",
    "this",
    "that",
    "these",
    "those",
    "his",
    "her",
    "its",
    "our",
    "their",
    "my",
    "your",
    "every",
    "each",
]
SPEECH_VERBS = [
    "said",
    "says",
    "asked",
    "replied",
    "answered",
    "cried",
    "shouted",
    "whispered",
    "told",
    "wrote",
    "added",
    "explained",
    "laughed",
    "smiled",
    "nodded",
    "insisted",
    "continued",
    "muttered",
    "exclaimed",
]


def _first_names(lexicons: Path) -> dict[str, float]:
    names: dict[str, float] = {}
    with (lexicons / "ssa_first_names.tsv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            total = int(row["total"])
            if total >= MIN_FIRST_NAME_BIRTHS:
                key = row["name"].casefold()
                names[key] = max(names.get(key, 0.0), round(math.log10(total), 2))
    with (lexicons / "us_census_first_names_1990.tsv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            # percent_of_sex of about 90 million people of one sex in 1990.
            count = max(1.0, float(row["percent_of_sex"]) / 100 * 9.0e7)
            key = row["name"].casefold()
            names[key] = max(names.get(key, 0.0), round(math.log10(count), 2))
    return names


def _surnames(lexicons: Path) -> dict[str, float]:
    names: dict[str, float] = {}
    with (lexicons / "us_census_surnames.tsv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            count = int(row["count_2000"] or 0)
            if count >= MIN_SURNAME_COUNT:
                names[row["name"].casefold()] = round(math.log10(count), 2)
    return names


def _shorthand(lexicons: Path, names: set[str]) -> list[str]:
    forms: set[str] = set()
    # The supplement was written without the name tables: a word of them ("RUE", "echo",
    # "para") stays out, so that the list never counts against a name.
    for line in CLINICAL_SHORTHAND.read_text(encoding="utf-8").splitlines():
        word = line.strip()
        if word and not word.startswith("#") and word.casefold() not in names:
            forms.add(word)
    notes = (lexicons / "clinical_abbreviations_from_notes.txt").read_text(encoding="utf-8")
    forms.update(line.strip() for line in notes.splitlines() if line.strip())
    with (lexicons / "clinical_abbreviations.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            entry = json.loads(line)
            if SHORTHAND_SOURCES & set(entry["sources"]):
                forms.update(entry["forms"])
    with (lexicons / "medspacy_clinical_phrases.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            entry = json.loads(line)
            if entry["kind"] == "section_header":
                forms.add(entry["literal"].rstrip(":").strip())
    return sorted(form for form in forms if form and len(form) <= 40)


def _drugs(lexicons: Path) -> list[str]:
    found: set[str] = set()
    with (lexicons / "drug_names_drugbank_cc0.tsv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row["drugbank"] != "1":
                continue
            for value in (row["variant"], row["canonical"]):
                word = value.strip()
                if len(word) >= MIN_DRUG_CHARS and word.isalpha():
                    found.add(word.casefold())
    for line in CLINICAL_PRODUCTS.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            found.add(line.strip().casefold())
    return sorted(found)


def _software(packages: Path) -> list[str]:
    stems: set[str] = set()
    for line in gzip.decompress(packages.read_bytes()).decode("utf-8").splitlines():
        stem = PACKAGE_PREFIX.sub("", line.strip())
        stem = PACKAGE_VERSION.sub("", PACKAGE_SUFFIX.sub("", stem))
        if len(stem) >= MIN_SOFTWARE_CHARS and stem.isalpha():
            stems.add(stem.casefold())
    return sorted(stems)


def _places(places: Path) -> dict[str, float]:
    found: dict[str, float] = {}
    text = gzip.decompress(places.read_bytes()).decode("utf-8")
    for row in csv.DictReader(text.splitlines(), delimiter="\t"):
        key = " ".join(row["name"].casefold().split())
        value = round(math.log10(max(1, int(row["population"]))), 2)
        found[key] = max(found.get(key, 0.0), value)
    return found


def _faker_names() -> tuple[dict[str, float], dict[str, float]]:
    from faker import Faker

    first: dict[str, float] = {}
    last: dict[str, float] = {}
    for locale in FAKER_LOCALES:
        for provider in Faker(locale).providers:
            if provider.__provider__ != "faker.providers.person":
                continue
            for name in getattr(provider, "first_names", ()):
                first.setdefault(str(name).casefold(), FAKER_LOG_COUNT)
            for name in getattr(provider, "last_names", ()):
                last.setdefault(str(name).casefold(), FAKER_LOG_COUNT)
    return first, last


def main(
    lexicons: Annotated[Path, typer.Option()] = ROOT.parent / "shared" / "lexicons",
    out: Annotated[Path, typer.Option()] = ROOT / "spacy_pii" / "data" / "name_evidence_en.json.gz",
    packages: Annotated[Path, typer.Option()] = DEBIAN_PACKAGES,
    places: Annotated[Path, typer.Option()] = GEONAMES_PLACES,
    language: Annotated[str, typer.Option(help="en, or xx for the multilingual tables")] = "en",
) -> None:
    if language not in ("en", "xx"):
        raise typer.BadParameter("language must be en or xx")
    first_names, surnames = _first_names(lexicons), _surnames(lexicons)
    if language == "xx":
        more_first, more_last = _faker_names()
        first_names = {**more_first, **first_names}
        surnames = {**more_last, **surnames}
    tables = {
        "language": language,
        "sources": "corpus/SOURCES.md, Name evidence tables",
        "first_names": first_names,
        "surnames": surnames,
        "shorthand": _shorthand(lexicons, set(first_names) | set(surnames)),
        "drugs": _drugs(lexicons),
        "software": _software(packages),
        "places": _places(places),
        "place_words": PLACE_WORDS,
        "determiners": DETERMINERS,
        "speech_verbs": SPEECH_VERBS,
    }
    payload = json.dumps(tables, ensure_ascii=False, sort_keys=True).encode("utf-8")
    # mtime=0: the same tables give the same bytes.
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(gzip.compress(payload, mtime=0))
    sizes = {key: len(value) for key, value in tables.items() if isinstance(value, dict | list)}
    print(f"wrote {out} ({out.stat().st_size // 1024} KB): {sizes}")


if __name__ == "__main__":
    typer.run(main)
