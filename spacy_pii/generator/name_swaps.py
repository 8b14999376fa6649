"""Training copies whose person names are swapped for Russian names.

No corpus here holds Russian text, and the only Cyrillic text is the Serbian Cyrillic copies
of the Serbian and Croatian documents (:mod:`.script_copies`). A name model learns what a name
looks like from the names it is shown, so those copies alone left it blind to most Russian
names: their letters (ы, э, й, щ), their endings (-ов, -ева, -ович, -овна) and their declined
forms. A swapped copy keeps a Cyrillic training document word for word and puts a Russian
name, drawn with Faker, in place of each of its person names: the context stays real, and the
names gain the shapes of Russian.

- A name has one word where the original has one (a surname or a given name), two where it
  has two (a given name and a surname), and three where it has more (with a patronymic); it
  keeps the original's casing (all capitals, all lower case). Initials and hyphens are not
  copied.
- A name is declined about half the time (genitive, dative or instrumental,
  :data:`CASE_ENDINGS`): Russian seldom writes a name in the nominative in running text. The
  endings are the regular ones; an irregular name gets a regular form ("Павела" for "Павла",
  about 1% of the declined words), which is still the shape the model should read as a name.
  The gender and case are drawn, not read from the sentence around the name.

Known limit, kept so that the corpus the shipped model learned from can be rebuilt: the draw
is seeded by the document's id, and the pieces of one long document share it, so they get
the same names (configs/README.md). Every draw is seeded, so a corpus build writes the same
copies each time with the same Faker version. The same swap was tried for the Latin-script
documents with Polish, Italian, Spanish, French and Dutch names, and dropped.
"""

from __future__ import annotations

import random
import zlib
from functools import cache
from typing import Any

from .corpus import rewritten_copy

SWAP_SUFFIX = "_swap"
# The locales whose names are drawn, with their weights: one draw per document picks one
# (Russian alone since the Latin-script swaps were dropped; the draw stays, so the shipped
# model's corpus rebuilds byte for byte).
LOCALES: tuple[tuple[str, float], ...] = (("ru_RU", 1.0),)
DECLINED_SHARE = 0.5
PERSON = "PERSON"

# (ending, (genitive, dative, instrumental)) per word part and gender, the longest ending
# first; "" matches any word, and the forms replace the ending.
Endings = tuple[tuple[str, tuple[str, str, str]], ...]
CASE_ENDINGS: dict[tuple[str, str], Endings] = {
    ("first", "m"): (
        ("ий", ("ия", "ию", "ием")),
        ("й", ("я", "ю", "ем")),
        ("ь", ("я", "ю", "ем")),
        ("а", ("ы", "е", "ой")),
        ("", ("а", "у", "ом")),
    ),
    ("first", "f"): (
        ("ия", ("ии", "ии", "ией")),
        ("я", ("и", "е", "ей")),
        ("га", ("ги", "ге", "гой")),
        ("ка", ("ки", "ке", "кой")),
        ("а", ("ы", "е", "ой")),
    ),
    ("middle", "m"): (("", ("а", "у", "ем")),),
    ("middle", "f"): (("на", ("ны", "не", "ной")),),
    ("last", "m"): (
        ("ский", ("ского", "скому", "ским")),
        ("ой", ("ого", "ому", "ым")),
        ("ов", ("ова", "ову", "овым")),
        ("ев", ("ева", "еву", "евым")),
        ("ин", ("ина", "ину", "иным")),
        ("ын", ("ына", "ыну", "ыным")),
        ("", ("а", "у", "ом")),
    ),
    ("last", "f"): (
        ("ская", ("ской", "ской", "ской")),
        ("ова", ("овой", "овой", "овой")),
        ("ева", ("евой", "евой", "евой")),
        ("ина", ("иной", "иной", "иной")),
    ),
}


def document_seed(doc: dict, salt: int) -> int:
    """A seed from the document's id, stable across runs and Python processes."""
    key = f"{salt}:{doc.get('meta', {}).get('doc_id', doc['text'][:64])}"
    return zlib.crc32(key.encode("utf-8"))


def decline(word: str, part: str, gender: str, case: int) -> str:
    """``word`` in case ``case`` (0 genitive, 1 dative, 2 instrumental), or as it is where
    :data:`CASE_ENDINGS` has no ending for it (a woman's given name in -ь, such as Любовь)."""
    for ending, forms in CASE_ENDINGS[(part, gender)]:
        if word.endswith(ending):
            return word[: len(word) - len(ending)] + forms[case]
    return word


@cache
def _faker(locale: str) -> Any:
    from faker import Faker

    return Faker(locale)


def draw_name(locale: str, n_words: int, rng: random.Random) -> list[str]:
    """The words of a name of ``locale`` (Russian) with about ``n_words`` words, declined at
    random."""
    fake = _faker(locale)
    fake.seed_instance(rng.getrandbits(32))
    gender = rng.choice("mf")
    male = gender == "m"
    first = fake.first_name_male() if male else fake.first_name_female()
    last = fake.last_name_male() if male else fake.last_name_female()
    if n_words <= 1:
        parts = [("last", last)] if rng.random() < 0.6 else [("first", first)]
    elif n_words == 2:
        parts = [("first", first), ("last", last)]
    else:
        middle = fake.middle_name_male() if male else fake.middle_name_female()
        parts = [("first", first), ("middle", middle), ("last", last)]
    if rng.random() < DECLINED_SHARE:
        case = rng.randrange(3)
        return [decline(word, part, gender, case) for part, word in parts]
    return [word for _, word in parts]


def _cased_like(name: str, original: str) -> str:
    if original.isupper():
        return name.upper()
    if original.islower():
        return name.lower()
    return name


def swapped_copy(doc: dict, salt: int = 0) -> dict | None:
    """A copy of a folded document with each PERSON span replaced by a Russian name; ``None``
    for a document without one.

    Other spans keep their words and move with the text. ``meta``'s ``set``, ``doc_id`` and
    ``source`` get :data:`SWAP_SUFFIX`, and ``meta["swap_locale"]`` names the locale.
    """
    if not any(span["label"] == PERSON for span in doc["spans"]):
        return None
    rng = random.Random(document_seed(doc, salt))
    names, weights = zip(*LOCALES, strict=True)
    locale = rng.choices(names, weights=weights)[0]

    def name_for(span: dict, original: str) -> str:
        if span["label"] != PERSON:
            return original
        return _cased_like(" ".join(draw_name(locale, len(original.split()), rng)), original)

    copy = rewritten_copy(doc, lambda between: between, name_for, SWAP_SUFFIX)
    copy["meta"]["swap_locale"] = locale
    return copy
