"""Unlabelled filler values: the non-personal context around PII, and the hard negatives.

Hard negatives are values that look like a labelled type but are not one by the
conventions in corpus/CONVENTIONS.md: order and ticket ids, product names, commit hashes
and UUIDs beside secrets, system accounts beside usernames, brand drug names (many read
like surnames: Keppra, Norvasc) in clinical notes, and places that are not addresses.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable

KNOWN_ORGS = (
    "Amazon", "Apple", "Google", "Microsoft", "Deutsche Bank", "HSBC", "Barclays", "Vodafone",
    "Siemens", "BNP Paribas", "Santander", "Unilever", "Accenture", "Deloitte", "KPMG",
    "Salesforce", "Oracle", "IBM", "Lloyds Bank", "ING", "Rabobank", "Allianz", "AXA",
    "Nestlé", "Bosch", "SAP", "Spotify", "Klarna", "Revolut", "Monzo", "N26", "Comcast",
    "Verizon", "AT&T", "Telefónica", "Airbus", "Pfizer", "Novartis", "Roche", "Bayer", "Tesco",
    "Carrefour", "IKEA", "Zalando", "Shopify", "Atlassian", "Mayo Clinic", "Kaiser Permanente",
    "NHS England", "British Red Cross", "UNICEF", "World Bank Group", "University of Manchester",
    "Stanford University", "Sorbonne Université", "TU München", "Infosys",
    "Tata Consultancy Services", "Wells Fargo", "Bank of America", "Royal Mail", "Deutsche Post",
    "Lufthansa", "Ryanair",
)  # fmt: skip
ORG_SUFFIX = {
    "de_DE": (" GmbH", " AG", " GmbH & Co. KG"), "de_AT": (" GmbH", " AG"), "de_CH": (" AG",),
    "fr_FR": (" SA", " SARL", " SAS"), "it_IT": (" S.p.A.", " S.r.l."), "es_ES": (" S.L.", " S.A."),
    "nl_NL": (" B.V.", " N.V."), "sv_SE": (" AB",), "pl_PL": (" Sp. z o.o.", " S.A."),
    "pt_BR": (" Ltda.", " S.A."), "pt_PT": (" Lda.",), "en_GB": (" Ltd", " plc"),
    "da_DK": (" A/S", " ApS"), "no_NO": (" AS",), "fi_FI": (" Oy",),
}  # fmt: skip
PRODUCTS = (
    "Apple Watch", "iPhone 15", "Galaxy Tab S9", "Surface Pro 9", "Kindle Paperwhite",
    "AirPods Pro", "Pixel 8", "ThinkPad T14", "Echo Dot", "Fire TV Stick", "MacBook Air",
    "PlayStation 5", "Xbox Series X", "Nest Thermostat", "Ring Doorbell", "Dyson V15",
    "Roomba j7", "GoPro HERO12", "Fitbit Charge 6", "Sonos One", "Philips Hue starter kit",
    "Model Y", "Vitamix blender", "Nespresso Vertuo", "Garmin Forerunner", "Kobo Libra",
)  # fmt: skip
WORLD_CITIES = (
    "Berlin", "Paris", "Madrid", "Tokyo", "Chicago", "Toronto", "Sydney", "Mumbai", "São Paulo",
    "Lisbon", "Dublin", "Amsterdam", "Warsaw", "Stockholm", "Austin", "Denver", "Lincoln",
    "Florence", "Victoria", "Washington", "Charlotte", "Jackson", "Georgetown", "Adelaide",
)  # fmt: skip
# Brand and generic drug names; brand names are the hard negatives (they read like names).
DRUGS = (
    "metformin", "lisinopril", "atorvastatin", "amlodipine", "omeprazole", "levothyroxine",
    "warfarin", "apixaban", "furosemide", "prednisolone", "amoxicillin", "co-amoxiclav",
    "paracetamol", "ibuprofen", "morphine", "salbutamol", "sertraline", "gabapentin",
    "ramipril", "bisoprolol", "Lasix", "Keppra", "Januvia", "Valium", "Xanax", "Zoloft",
    "Lipitor", "Norvasc", "Eliquis", "Xarelto", "Augmentin", "Ventolin", "Synthroid", "Lantus",
    "Humira", "Ozempic", "Tramadol", "Seroquel", "Lyrica", "Flagyl",
)  # fmt: skip
CONDITIONS = (
    "HTN", "DM2", "T2DM", "CKD 3", "COPD", "CHF", "AF", "IHD", "PREV MI", "CVA", "TIA", "ASTHMA",
    "OA", "RA", "GORD", "GERD", "HYPOTHYROID", "OBESITY", "DEPRESSION", "ANXIETY", "OSA",
    "HYPERLIPIDAEMIA", "BPH", "GOUT", "PVD", "EPILEPSY", "DVT", "PE", "ANAEMIA", "CLL",
)  # fmt: skip
SYMPTOMS = (
    "SOB", "CP", "N/V", "ABD PAIN", "COUGH", "FEVER", "HEADACHE", "DIZZINESS", "PALPITATIONS",
    "BACK PAIN", "DYSURIA", "RASH", "FATIGUE", "WHEEZE", "SYNCOPE", "DIARRHOEA", "CONFUSION",
    "LEG SWELLING", "SORE THROAT", "EAR PAIN", "JOINT PAIN", "LOW MOOD", "FALL",
)  # fmt: skip
SYSUSERS = (
    "root", "admin", "www-data", "nobody", "postgres", "jenkins", "deploy", "ubuntu",
    "ec2-user", "svc_backup", "git", "daemon", "nginx", "gitlab-runner",
)  # fmt: skip
DEPTS = (
    "Finance", "Human Resources", "Engineering", "Sales", "Customer Success", "Legal",
    "Procurement", "Marketing", "Operations", "Facilities", "IT", "Payroll", "Compliance",
)  # fmt: skip
FEATURES = (
    "two-factor authentication", "dark mode", "CSV export", "single sign-on", "the mobile app",
    "auto-renewal", "the billing page", "push notifications", "the API", "bulk upload",
    "the search bar", "the calendar sync", "password reset", "the invoice PDF",
)  # fmt: skip
PATHS = (
    "/api/v2/orders", "/login", "/account/settings", "/static/app.js", "/api/v1/users/me",
    "/checkout", "/health", "/oauth/token", "/api/v2/invoices", "/search", "/admin/reports",
)  # fmt: skip
HOSTS = (
    "web-03", "api-prod-2", "db01.internal", "auth.eu-west-1.internal", "worker-7", "edge-lon-1",
    "billing-svc", "mail-relay-02", "k8s-node-14", "cache-a", "ci-runner-5", "vpn-gw-1",
)  # fmt: skip
USER_AGENTS = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64)", "curl/8.4.0", "python-requests/2.31.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X)", "okhttp/4.12.0", "Go-http-client/2.0",
)  # fmt: skip
TRAININGS = (
    "Fire Safety", "GDPR Awareness", "Anti-Bribery", "Manual Handling", "Information Security",
    "First Aid at Work", "Equality and Diversity", "Working at Height",
)  # fmt: skip
_LOWER_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789"
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_HEX = "0123456789abcdef"
# English month abbreviations, spelled out so output never depends on the C locale.
_MON = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _d(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(n))


def _s(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def recent_date(rng: random.Random) -> dt.date:
    """A date in 2019-2026: appointments, orders, hearings; never a birth date."""
    return dt.date(2019, 1, 1) + dt.timedelta(days=rng.randrange(2890))


def timestamp(rng: random.Random, style: int) -> str:
    """A log timestamp in one of four formats (ISO 8601 Z, log4j, CLF, syslog)."""
    day = recent_date(rng)
    h, m, s = rng.randrange(24), rng.randrange(60), rng.randrange(60)
    return (
        f"{day.isoformat()}T{h:02d}:{m:02d}:{s:02d}Z",
        f"{day.isoformat()} {h:02d}:{m:02d}:{s:02d},{rng.randrange(1000):03d}",
        f"{day.day:02d}/{_MON[day.month - 1]}/{day.year}:{h:02d}:{m:02d}:{s:02d} +0000",
        f"{_MON[day.month - 1]} {day.day:2d} {h:02d}:{m:02d}:{s:02d}",
    )[style]


def _uuid(rng: random.Random) -> str:
    h = _s(rng, _HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


def _order(rng: random.Random) -> str:
    return rng.choice(
        (
            f"ORD-{_d(rng, 5)}-{_s(rng, _UPPER, 2)}",
            f"{_d(rng, 3)}-{_d(rng, 7)}-{_d(rng, 7)}",
            f"PO-{rng.randint(2019, 2026)}-{_d(rng, 5)}",
            f"{_s(rng, _UPPER, 3)}{_d(rng, 6)}",
        )
    )


def _ticket(rng: random.Random) -> str:
    return rng.choice(
        (
            f"INC{_d(rng, 7)}",
            f"#{_d(rng, 5)}",
            f"SR-{_d(rng, 5)}",
            f"CASE-{_d(rng, 6)}",
            f"{rng.choice(('OPS', 'SUP', 'HELP', 'IT'))}-{rng.randint(100, 9999)}",
        )
    )


def _amount(rng: random.Random) -> str:
    whole, cents = rng.randint(3, 2400), rng.randrange(100)
    return rng.choice(
        (
            f"${whole}.{cents:02d}",
            f"€{whole},{cents:02d}",
            f"£{whole}.{cents:02d}",
            f"{whole},{cents:02d} €",
            f"USD {whole}.{cents:02d}",
        )
    )


def _pick(values: tuple[str, ...]) -> Callable[[object], str]:
    return lambda ctx: ctx.rng.choice(values)  # type: ignore[attr-defined]


def _r(fn: Callable[[random.Random], str]) -> Callable[[object], str]:
    return lambda ctx: fn(ctx.rng)  # type: ignore[attr-defined]


SIMPLE_FILLERS: dict[str, tuple[None, Callable[[object], str]]] = {
    name: (None, fn)
    for name, fn in {
        "order": _r(_order),
        "ticket": _r(_ticket),
        "invoice": _r(lambda r: f"INV-{r.randint(2019, 2026)}-{_d(r, 5)}"),
        "tracking": _r(lambda r: f"1Z{_s(r, _UPPER + '0123456789', 6)}{_d(r, 10)}"),
        "amount": _r(_amount),
        "product": _pick(PRODUCTS),
        "world_city": _pick(WORLD_CITIES),
        "weekday": _pick(("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")),
        "month": _pick(("January", "March", "April", "May", "June", "August", "October")),
        "time": _r(lambda r: f"{r.randint(7, 18)}:{r.choice(('00', '15', '30', '45'))}"),
        "year": _r(lambda r: str(r.randint(2019, 2026))),
        "num": _r(lambda r: str(r.randint(2, 60))),
        "big": _r(lambda r: str(r.randint(1000, 99999))),
        "pct": _r(lambda r: f"{r.randint(1, 99)}%"),
        "ms": _r(lambda r: str(r.randint(3, 4800))),
        "pid": _r(lambda r: str(r.randint(300, 65000))),
        "port": _r(lambda r: str(r.choice((22, 443, 5432, 3306, 6379, 8080, 8443, 9200)))),
        "status": _r(
            lambda r: str(r.choice((200, 200, 200, 201, 204, 302, 400, 401, 403, 404, 500)))
        ),
        "method": _pick(("GET", "GET", "POST", "PUT", "DELETE", "PATCH")),
        "path": _pick(PATHS),
        "host": _pick(HOSTS),
        "ua": _pick(USER_AGENTS),
        "uuid": _r(_uuid),
        "sha": _r(lambda r: _s(r, _HEX, 40)),
        "sha256": _r(lambda r: _s(r, _HEX, 64)),
        "sha_short": _r(lambda r: _s(r, _HEX, 7)),
        "version": _r(lambda r: f"{r.randint(1, 9)}.{r.randint(0, 30)}.{r.randint(0, 12)}"),
        "sysuser": _pick(SYSUSERS),
        "dept": _pick(DEPTS),
        "feature": _pick(FEATURES),
        "training": _pick(TRAININGS),
        "drug": _pick(DRUGS),
        "dose": _r(
            lambda r: r.choice(("500 mg", "10 mg", "5mg", "1 g", "20 units", "40mg", "2.5 mg"))
        ),
        "freq": _pick(("OD", "BD", "TDS", "QDS", "PRN", "NOCTE", "MANE", "STAT")),
        "cond": _pick(CONDITIONS),
        "sx": _pick(SYMPTOMS),
        "bp": _r(lambda r: f"{r.randint(98, 182)}/{r.randint(55, 104)}"),
        "hr": _r(lambda r: str(r.randint(48, 128))),
        "sat": _r(lambda r: str(r.randint(88, 100))),
        "temp": _r(lambda r: f"{r.randint(355, 394) / 10:.1f}"),
        "days": _r(lambda r: str(r.randint(1, 14))),
        "errcode": _r(lambda r: r.choice((f"E-{_d(r, 4)}", f"0x8007{_d(r, 4)}", "ERR_TIMEOUT"))),
        "hexid": _r(lambda r: _s(r, _LOWER_ALNUM, 12)),
    }.items()
}
