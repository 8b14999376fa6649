"""The table suite: generated tables with realistic schemas and column-level gold.

CRM exports, HR files, support-ticket dumps, web logs, clinical encounter tables and
payments, in English, German, French, Spanish, Italian, Dutch and Polish, with misleading
headers (``name`` holding product names, ``id`` holding phone numbers) and clean columns
that look like personal data. Each table is written with a ``<name>.gold.json`` beside it:
per column, ``pii`` (must be flagged) with its type, ``clean`` (must not be), or ``quasi``
(a place, a postcode, an employer: reported, not scored).

Values come from Faker and the generator's validated ids (phones valid for their region,
Luhn cards, IBANs, national ids), all seeded, so a rebuild is byte-identical. Run through
``training/make_table_suite.py``.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..generator import ids
from ..generator.values import derive_seed, faker_for

ROWS = 300
SUITE_VERSION = "tables-2026.12"
Make = Callable[[Any, random.Random, int], Any]


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    gold: str  # "pii", "clean" or "quasi"
    type: str | None
    make: Make


@dataclass(frozen=True, slots=True)
class TableSpec:
    name: str
    locale: str
    format: str
    kind: str
    columns: tuple[Column, ...]
    delimiter: str = ","


def _pii(name: str, type_name: str, make: Make) -> Column:
    return Column(name, "pii", type_name, make)


def _clean(name: str, make: Make) -> Column:
    return Column(name, "clean", None, make)


def _quasi(name: str, make: Make) -> Column:
    return Column(name, "quasi", None, make)


def _date(rng: random.Random, start: int = 2019, end: int = 2026) -> dt.date:
    return dt.date(start, 1, 1) + dt.timedelta(days=rng.randrange((end - start) * 365))


def _dob(f: Any, fmt: str) -> str:
    return ids.birth_date(f, 18, 90).strftime(fmt)


PRODUCTS = ["Ergo Chair", "Steel Desk Lamp", "Widget Pro", "Cloud Backup Plan", "USB-C Hub",
            "Standing Desk", "Noise Cancelling Headset", "Paper Shredder", "Label Printer",
            "Monitor Arm", "Laptop Stand", "Wireless Mouse"]  # fmt: skip
STATUSES = ["open", "pending", "closed", "escalated"]


def _note(f: Any, rng: random.Random, language: str) -> str:
    name = f.name()
    templates = {
        "en": [f"Called {name} about the refund; follow up Friday.",
               f"Customer says {name} will send the documents by email to {f.email()}.",
               f"Left a voicemail, call back on {f.phone_number()} after 5pm.",
               f"Spoke with {name}. Issue resolved after resetting the router."],
        "de": [f"Rückruf an {name} vereinbart, Unterlagen folgen per Post.",
               f"Kunde {name} bittet um Kündigung zum Monatsende.",
               f"{name} hat angerufen, neue Adresse: {f.street_address()}."],
        "es": [f"El paciente {name} refiere dolor abdominal desde hace dos días.",
               f"Se contacta con {name}; acude a control en una semana.",
               f"Familiar ({name}) informa de alergia a penicilina."],
    }  # fmt: skip
    return rng.choice(templates[language])


def _clinical_note(f: Any, rng: random.Random) -> str:
    return rng.choice([
        f"Pt {f.name()} seen in clinic, BP stable, continue lisinopril.",
        f"Discussed plan with daughter {f.first_name()} {f.last_name()}; discharge tomorrow.",
        f"Dr. {f.last_name()} consulted; CT abdomen ordered.",
        f"Patient {f.name()} reports improved sleep, follow up in 2 weeks.",
    ])  # fmt: skip


def _ticket_body(f: Any, rng: random.Random) -> str:
    return rng.choice([
        f"Hi, this is {f.name()}. My order {rng.randint(10000, 99999)} never arrived. "
        f"You can reach me at {f.email()}.",
        f"Please update my phone to {ids.phone(f, rng, 'en_US')}, thanks, {f.first_name()}",
        f"The invoice is wrong. Contact {f.name()} in accounting, {f.email()}.",
        f"Login fails since yesterday. Regards, {f.name()}",
    ])  # fmt: skip


SUITE: tuple[TableSpec, ...] = (
    TableSpec("crm_export_en", "en_US", "csv", "crm", (
        _clean("customer_id", lambda f, r, i: f"C{100000 + i}"),
        _pii("first_name", "PERSON", lambda f, r, i: f.first_name()),
        _pii("last_name", "PERSON", lambda f, r, i: f.last_name()),
        _pii("email", "EMAIL", lambda f, r, i: f.email()),
        _pii("phone", "PHONE", lambda f, r, i: ids.phone(f, r, "en_US")),
        _pii("street_address", "ADDRESS", lambda f, r, i: f.street_address()),
        _quasi("city", lambda f, r, i: f.city()),
        _quasi("zip", lambda f, r, i: f.postcode()),
        _quasi("company", lambda f, r, i: f.company()),
        _clean("signup_date", lambda f, r, i: _date(r).isoformat()),
        _clean("lifetime_value", lambda f, r, i: f"{r.uniform(0, 5000):.2f}"),
        _clean("status", lambda f, r, i: r.choice(["active", "churned", "trial"])),
    )),
    TableSpec("personal_de", "de_DE", "csv", "hr", (
        _clean("Personalnummer", lambda f, r, i: f"P-{4000 + i}"),
        _pii("Vorname", "PERSON", lambda f, r, i: f.first_name()),
        _pii("Nachname", "PERSON", lambda f, r, i: f.last_name()),
        _pii("Geburtsdatum", "DATE_OF_BIRTH", lambda f, r, i: _dob(f, "%d.%m.%Y")),
        _pii("E-Mail", "EMAIL", lambda f, r, i: f.email()),
        _pii("Telefon", "PHONE", lambda f, r, i: ids.phone(f, r, "de_DE")),
        _pii("Straße", "ADDRESS", lambda f, r, i: f.street_address()),
        _quasi("PLZ", lambda f, r, i: f.postcode()),
        _quasi("Ort", lambda f, r, i: f.city()),
        _pii("Steuer-ID", "GOV_ID", lambda f, r, i: ids.gov_id(f, r, "de_DE")),
        _clean("Abteilung", lambda f, r, i: r.choice(["Vertrieb", "Einkauf", "IT", "Personal"])),
        _clean("Gehalt", lambda f, r, i: str(r.randrange(32000, 98000, 500))),
        _clean("Eintrittsdatum", lambda f, r, i: _date(r, 2005).strftime("%d.%m.%Y")),
    ), delimiter=";"),
    TableSpec("clients_fr", "fr_FR", "csv", "crm", (
        _clean("id", lambda f, r, i: str(i + 1)),
        _pii("prénom", "PERSON", lambda f, r, i: f.first_name()),
        _pii("nom", "PERSON", lambda f, r, i: f.last_name()),
        _pii("courriel", "EMAIL", lambda f, r, i: f.email()),
        _pii("téléphone", "PHONE", lambda f, r, i: ids.phone(f, r, "fr_FR")),
        _pii("adresse", "ADDRESS", lambda f, r, i: f.street_address()),
        _quasi("ville", lambda f, r, i: f.city()),
        _pii("date_de_naissance", "DATE_OF_BIRTH", lambda f, r, i: _dob(f, "%d/%m/%Y")),
        _clean("segment", lambda f, r, i: r.choice(["PME", "Grand compte", "Particulier"])),
    ), delimiter=";"),
    TableSpec("support_tickets_en", "en_US", "jsonl", "tickets", (
        _clean("ticket_id", lambda f, r, i: f"TCK-{20000 + i}"),
        _clean("created_at", lambda f, r, i: f"{_date(r).isoformat()}T{r.randrange(24):02d}:00Z"),
        _pii("requester.name", "PERSON", lambda f, r, i: f.name()),
        _pii("requester.email", "EMAIL", lambda f, r, i: f.email()),
        _clean("subject", lambda f, r, i: r.choice(["Order missing", "Invoice question",
                                                   "Cannot log in", "Change phone number"])),
        _pii("body", "PERSON", lambda f, r, i: _ticket_body(f, r)),
        _clean("priority", lambda f, r, i: r.choice(["low", "normal", "high"])),
        _clean("status", lambda f, r, i: r.choice(STATUSES)),
        _pii("assignee", "PERSON", lambda f, r, i: f.name()),
        _clean("tags", lambda f, r, i: r.sample(["billing", "shipping", "login", "vip"], 2)),
    )),
    TableSpec("web_logs", "en_US", "csv", "logs", (
        _clean("timestamp", lambda f, r, i: f"2026-11-{1 + i % 28:02d}T10:{i % 60:02d}:00Z"),
        _pii("client_ip", "IP_ADDRESS", lambda f, r, i: f.ipv4_public()),
        _clean("method", lambda f, r, i: r.choice(["GET", "POST", "PUT"])),
        _clean("path", lambda f, r, i: r.choice(["/", "/cart", "/api/v1/items", "/login"])),
        _clean("status", lambda f, r, i: r.choice(["200", "301", "404", "500"])),
        _clean("bytes", lambda f, r, i: str(r.randrange(200, 90000))),
        _clean("user_agent", lambda f, r, i: f.user_agent()),
        _clean("session_id", lambda f, r, i: f.uuid4()),
        _pii("username", "USERNAME", lambda f, r, i: f.user_name()),
    )),
    TableSpec("encounters_en", "en_US", "csv", "clinical", (
        _clean("encounter_id", lambda f, r, i: f"E{900000 + i}"),
        _pii("mrn", "GOV_ID", lambda f, r, i: f"{r.randrange(10**7, 10**8)}"),
        _pii("patient_name", "PERSON", lambda f, r, i: f"{f.last_name()}, {f.first_name()}"),
        _pii("dob", "DATE_OF_BIRTH", lambda f, r, i: _dob(f, "%m/%d/%Y")),
        _clean("admit_date", lambda f, r, i: _date(r).strftime("%m/%d/%Y")),
        _clean("icd10", lambda f, r, i: r.choice(["I10", "E11.9", "J45.909", "K21.9"])),
        _pii("attending", "PERSON", lambda f, r, i: f"Dr. {f.first_name()} {f.last_name()}"),
        _pii("notes", "PERSON", lambda f, r, i: _clinical_note(f, r)),
        _clean("ward", lambda f, r, i: r.choice(["4W", "ICU", "ED", "5E"])),
    )),
    TableSpec("pacientes_es", "es_ES", "csv", "clinical", (
        _clean("id_paciente", lambda f, r, i: str(30000 + i)),
        _pii("nombre", "PERSON", lambda f, r, i: f.first_name()),
        _pii("apellidos", "PERSON", lambda f, r, i: f"{f.last_name()} {f.last_name()}"),
        _pii("fecha_de_nacimiento", "DATE_OF_BIRTH", lambda f, r, i: _dob(f, "%d-%m-%Y")),
        _pii("dni", "GOV_ID", lambda f, r, i: f.nif()),
        _pii("telefono", "PHONE", lambda f, r, i: ids.phone(f, r, "es_ES")),
        _clean("diagnostico", lambda f, r, i: r.choice(["Hipertensión", "Diabetes tipo 2",
                                                       "Asma", "Lumbalgia"])),
        _pii("observaciones", "PERSON", lambda f, r, i: _note(f, r, "es")),
    )),
    TableSpec("catalog_misleading", "en_US", "csv", "misleading", (
        _pii("id", "PHONE", lambda f, r, i: ids.phone(f, r, "en_US")),
        _clean("name", lambda f, r, i: f"{r.choice(PRODUCTS)} {r.choice(['S', 'M', 'XL', 'v2'])}"),
        _clean("sku", lambda f, r, i: f"SKU-{r.randrange(10**5, 10**6)}"),
        _clean("price", lambda f, r, i: f"{r.uniform(3, 900):.2f}"),
        _pii("contact", "EMAIL", lambda f, r, i: f.email()),
        _clean("description", lambda f, r, i: f.sentence(nb_words=10)),
        _quasi("manufacturer", lambda f, r, i: f.company()),
    )),
    TableSpec("lookalikes", "en_US", "csv", "misleading", (
        _clean("order_number", lambda f, r, i: f"ORD-2026-{i:06d}"),
        _clean("build_version", lambda f, r, i: f"{r.randrange(1, 9)}.{r.randrange(30)}.{i}"),
        _clean("serial", lambda f, r, i: f.bothify("SN-????-####").upper()),
        _clean("amount", lambda f, r, i: f"{r.uniform(10, 99999):,.2f}"),
        _clean("shipped_on", lambda f, r, i: _date(r).isoformat()),
        _clean("uuid", lambda f, r, i: f.uuid4()),
        _clean("color", lambda f, r, i: f.hex_color()),
        _clean("email_verified", lambda f, r, i: r.choice(["true", "false"])),
        _clean("phone_type", lambda f, r, i: r.choice(["mobile", "landline", "voip"])),
        _clean("country_code", lambda f, r, i: r.choice(["US", "DE", "FR", "GB"])),
    )),
    TableSpec("klanten_nl", "nl_NL", "csv", "crm", (
        _clean("klantnummer", lambda f, r, i: str(500000 + i)),
        _pii("voornaam", "PERSON", lambda f, r, i: f.first_name()),
        _pii("achternaam", "PERSON", lambda f, r, i: f.last_name()),
        _pii("e-mailadres", "EMAIL", lambda f, r, i: f.email()),
        _pii("telefoonnummer", "PHONE", lambda f, r, i: ids.phone(f, r, "nl_NL")),
        _quasi("woonplaats", lambda f, r, i: f.city()),
        _pii("geboortedatum", "DATE_OF_BIRTH", lambda f, r, i: _dob(f, "%d-%m-%Y")),
        _clean("abonnement", lambda f, r, i: r.choice(["basis", "plus", "premium"])),
    ), delimiter=";"),
    TableSpec("dipendenti_it", "it_IT", "jsonl", "hr", (
        _clean("matricola", lambda f, r, i: f"IT{7000 + i}"),
        _pii("dipendente.nome", "PERSON", lambda f, r, i: f.first_name()),
        _pii("dipendente.cognome", "PERSON", lambda f, r, i: f.last_name()),
        _pii("dipendente.codice_fiscale", "GOV_ID", lambda f, r, i: f.ssn()),
        _pii("contatti.email", "EMAIL", lambda f, r, i: f.email()),
        _pii("contatti.cellulare", "PHONE", lambda f, r, i: ids.phone(f, r, "it_IT")),
        _clean("reparto", lambda f, r, i: r.choice(["Vendite", "Acquisti", "IT"])),
        _clean("livello", lambda f, r, i: r.randrange(1, 8)),
    )),
    TableSpec("payments", "en_GB", "parquet", "payments", (
        _clean("txn_id", lambda f, r, i: f"T{10**9 + i}"),
        _pii("card_number", "PAYMENT", lambda f, r, i: ids.card(f, r)),
        _pii("iban", "PAYMENT", lambda f, r, i: ids.iban(f, r)),
        _pii("cardholder_name", "PERSON", lambda f, r, i: f.name()),
        _clean("amount", lambda f, r, i: round(r.uniform(1, 3000), 2)),
        _clean("currency", lambda f, r, i: r.choice(["GBP", "EUR", "USD"])),
        _quasi("merchant", lambda f, r, i: f.company()),
    )),
    TableSpec("accounts_en", "en_GB", "csv", "crm", (
        _clean("user_id", lambda f, r, i: str(i + 1)),
        _pii("username", "USERNAME", lambda f, r, i: f.user_name()),
        _pii("display_name", "PERSON", lambda f, r, i: f.name()),
        _pii("api_key", "SECRET", lambda f, r, i: "sk_live_" + f.pystr(24, 24)),
        _pii("last_login_ip", "IP_ADDRESS", lambda f, r, i: ids.ip(f, r)),
        _pii("national_insurance_number", "GOV_ID", lambda f, r, i: ids.nino(r)),
        _clean("created_at", lambda f, r, i: _date(r).isoformat()),
        _clean("plan", lambda f, r, i: r.choice(["free", "team", "enterprise"])),
    )),
    TableSpec("uzytkownicy_pl", "pl_PL", "csv", "crm", (
        _clean("id", lambda f, r, i: str(i + 1)),
        _pii("imię", "PERSON", lambda f, r, i: f.first_name()),
        _pii("nazwisko", "PERSON", lambda f, r, i: f.last_name()),
        _pii("email", "EMAIL", lambda f, r, i: f.email()),
        _pii("telefon", "PHONE", lambda f, r, i: ids.phone(f, r, "pl_PL")),
        _quasi("miasto", lambda f, r, i: f.city()),
        _clean("status", lambda f, r, i: r.choice(["aktywny", "nieaktywny"])),
    )),
    TableSpec("kundenservice_de", "de_DE", "csv", "tickets", (
        _clean("Ticketnummer", lambda f, r, i: f"DE-{80000 + i}"),
        _pii("Kunde", "PERSON", lambda f, r, i: f.name()),
        _pii("Bemerkung", "PERSON", lambda f, r, i: _note(f, r, "de")),
        _clean("Kategorie", lambda f, r, i: r.choice(["Rechnung", "Technik", "Vertrag"])),
        _clean("Erstellt", lambda f, r, i: _date(r).strftime("%d.%m.%Y")),
    ), delimiter=";"),
)  # fmt: skip


# Held out: schemas written before the decision rules were last changed, and never used to
# set them; their figures are the ones to quote as out-of-sample.
HELD_OUT: tuple[TableSpec, ...] = (
    TableSpec("insurance_claims_en", "en_US", "csv", "claims", (
        _clean("claim_id", lambda f, r, i: f"CLM-{r.randrange(10**6, 10**7)}"),
        _pii("policy_holder", "PERSON", lambda f, r, i: f.name()),
        _pii("claimant_email", "EMAIL", lambda f, r, i: f.email()),
        _pii("claimant_phone", "PHONE", lambda f, r, i: ids.phone(f, r, "en_US")),
        _clean("incident_date", lambda f, r, i: _date(r).isoformat()),
        _clean("claim_amount", lambda f, r, i: f"{r.uniform(100, 20000):.2f}"),
        _pii("adjuster_notes", "PERSON", lambda f, r, i: r.choice([
            f"Spoke to {f.name()} at the scene; rear bumper damage.",
            f"Witness {f.name()} confirms the other driver ran the light.",
            "Photos received, estimate pending from the body shop."])),
        _clean("vehicle_make", lambda f, r, i: r.choice(["Ford", "Toyota", "Honda", "BMW"])),
        _quasi("region", lambda f, r, i: f.state()),
    )),
    TableSpec("anciens_eleves_fr", "fr_FR", "csv", "crm", (
        _clean("numero", lambda f, r, i: str(2000 + i)),
        _pii("nom_complet", "PERSON", lambda f, r, i: f.name()),
        _pii("adresse_email", "EMAIL", lambda f, r, i: f.email()),
        _pii("portable", "PHONE", lambda f, r, i: ids.phone(f, r, "fr_FR")),
        _clean("promotion", lambda f, r, i: str(r.randrange(1990, 2025))),
        _quasi("employeur", lambda f, r, i: f.company()),
    ), delimiter=";"),
    TableSpec("audit_events", "en_US", "csv", "logs", (
        _clean("event_id", lambda f, r, i: f.uuid4()),
        _clean("ts", lambda f, r, i: f"2026-10-{1 + i % 28:02d}T0{i % 10}:15:00Z"),
        _pii("actor_login", "USERNAME", lambda f, r, i: f.user_name()),
        _pii("src_ip", "IP_ADDRESS", lambda f, r, i: f.ipv4_public()),
        _clean("action", lambda f, r, i: r.choice(["read", "write", "delete", "grant"])),
        _clean("resource", lambda f, r, i: r.choice(["/db/orders", "/s3/logs", "/vault/kv"])),
        _clean("detail", lambda f, r, i: r.choice([
            "Permission granted by policy rule 14 after review.",
            "Request denied because the token had expired already.",
            "Object listing returned more than one thousand entries."])),
    )),
    TableSpec("patienten_de", "de_DE", "csv", "clinical", (
        _clean("Patienten-Nr", lambda f, r, i: str(700000 + i)),
        _pii("Name", "PERSON", lambda f, r, i: f.name()),
        _pii("Geburtstag", "DATE_OF_BIRTH", lambda f, r, i: _dob(f, "%d.%m.%Y")),
        _clean("Diagnose", lambda f, r, i: r.choice(["Hypertonie", "Diabetes", "Asthma"])),
        _pii("Arztbrief", "PERSON", lambda f, r, i: r.choice([
            f"Wir berichten über {f.name()}, der sich am Montag in unserer Ambulanz vorstellte.",
            f"Die Patientin {f.name()} wurde nach unauffälligem Verlauf entlassen.",
            f"Rücksprache mit Dr. {f.last_name()} ist erfolgt, Kontrolle in vier Wochen."])),
    ), delimiter=";"),
    TableSpec("profiles_mixed", "en_GB", "jsonl", "crm", (
        _clean("id", lambda f, r, i: i if i % 3 else str(i)),
        _pii("profile.handle", "USERNAME", lambda f, r, i: "@" + f.user_name()),
        _clean("profile.age", lambda f, r, i: r.randrange(18, 90)),
        _pii("profile.mobile", "PHONE", lambda f, r, i: ids.phone(f, r, "en_GB")),
        _clean("score", lambda f, r, i: round(r.random(), 3) if i % 5 else None),
    )),
)  # fmt: skip


def _nest(flat: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = {}
    for path, value in flat.items():
        node = record
        *parents, leaf = path.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return record


def table_rows(spec: TableSpec, rows: int = ROWS) -> list[list[Any]]:
    """The seeded rows of one table."""
    fake = faker_for(spec.locale)
    fake.seed_instance(derive_seed(SUITE_VERSION, spec.name))
    rng = random.Random(derive_seed(SUITE_VERSION, spec.name, "rng"))
    return [[column.make(fake, rng, i) for column in spec.columns] for i in range(rows)]


def gold(spec: TableSpec) -> dict[str, Any]:
    return {
        "suite": SUITE_VERSION,
        "table": spec.name,
        "kind": spec.kind,
        "locale": spec.locale,
        "columns": {c.name: {"gold": c.gold, "type": c.type} for c in spec.columns},
    }


def write_suite(
    folder: str | Path, rows: int = ROWS, specs: tuple[TableSpec, ...] = SUITE
) -> list[Path]:
    """Write every table and its gold JSON into ``folder``; returns the table paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for spec in specs:
        data = table_rows(spec, rows)
        names = [c.name for c in spec.columns]
        path = folder / f"{spec.name}.{spec.format}"
        if spec.format == "csv":
            with path.open("w", encoding="utf-8", newline="") as handle:
                writer = csv.writer(handle, delimiter=spec.delimiter)
                writer.writerow(names)
                writer.writerows(data)
        elif spec.format == "jsonl":
            with path.open("w", encoding="utf-8") as handle:
                for row in data:
                    record = _nest(dict(zip(names, row, strict=True)))
                    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            columns = {name: [row[i] for row in data] for i, name in enumerate(names)}
            pq.write_table(pa.table(columns), path)
        gold_path = folder / f"{spec.name}.gold.json"
        gold_path.write_text(json.dumps(gold(spec), indent=2, ensure_ascii=False) + "\n")
        written.append(path)
    return written
