"""Fake credentials in the vendors' published formats, drawn from the document's RNG.

Formats follow the vendors' own documentation of token prefixes and lengths: GitHub
("Behind GitHub's new authentication token formats", 2021: ``ghp_`` + 30 base62 + a
6-character base62 CRC32), GitLab (``glpat-`` + 20), Slack (``xoxb-``/``xoxp-``), Stripe
(``sk_live_``/``rk_live_``), AWS (``AKIA``/``ASIA`` + 16 base32 upper; 40-character secret
keys), Google (``AIza`` + 35), SendGrid (``SG.`` + 22 + ``.`` + 43), npm (``npm_`` + 36),
Hugging Face (``hf_`` + 34), OpenAI (``sk-proj-``), Anthropic (``sk-ant-api03-``), JWT
(RFC 7519: three base64url parts). None of them is a live credential.
"""

from __future__ import annotations

import base64
import json
import random
import zlib

_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_URLSAFE = _ALNUM + "-_"
_B64 = _ALNUM + "+/"
_HEX = "0123456789abcdef"
_B32UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

# Human-chosen passwords: the forms that breach corpora show most often (word + digits +
# symbol), so a model sees passwords that are not random strings too.
_PW_WORDS = (
    "summer", "winter", "autumn", "spring", "dragon", "monkey", "sunshine", "football",
    "princess", "welcome", "shadow", "master", "freedom", "letmein", "trustno1", "hunter",
    "bluebird", "coffee", "pepper", "tigger", "orange", "banana", "rainbow", "falcon",
)  # fmt: skip
_PW_SYMBOLS = "!@#$%&*?"


def _draw(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b62(n: int, width: int) -> str:
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = _B62[r] + out
    return out.rjust(width, "0")


def github_checksum_ok(token: str) -> bool:
    """True when a ``ghp_``-style token's last six characters are the base62 CRC32 of the rest."""
    prefix, _, body = token.partition("_")
    if not prefix or len(body) != 36:
        return False
    return _b62(zlib.crc32(body[:30].encode()), 6) == body[30:]


def github_token(rng: random.Random) -> str:
    prefix = rng.choice(("ghp", "ghp", "gho", "ghu", "ghs"))
    body = _draw(rng, _ALNUM, 30)
    return f"{prefix}_{body}{_b62(zlib.crc32(body.encode()), 6)}"


def github_fine_grained(rng: random.Random) -> str:
    return f"github_pat_{_draw(rng, _ALNUM, 22)}_{_draw(rng, _ALNUM, 59)}"


def gitlab_token(rng: random.Random) -> str:
    return "glpat-" + _draw(rng, _URLSAFE, 20)


def slack_token(rng: random.Random) -> str:
    kind = rng.choice(("xoxb", "xoxp", "xoxb"))
    return f"{kind}-{_draw(rng, '0123456789', 12)}-{_draw(rng, '0123456789', 13)}-" + _draw(
        rng, _ALNUM, 24
    )


def slack_webhook(rng: random.Random) -> str:
    return (
        f"https://hooks.slack.com/services/T{_draw(rng, _B32UP, 8)}/B{_draw(rng, _B32UP, 10)}/"
        + _draw(rng, _ALNUM, 24)
    )


def stripe_key(rng: random.Random) -> str:
    return rng.choice(("sk_live_", "rk_live_", "sk_test_")) + _draw(
        rng, _ALNUM, rng.choice((24, 99))
    )


def aws_key_id(rng: random.Random) -> str:
    return rng.choice(("AKIA", "AKIA", "ASIA")) + _draw(rng, _B32UP, 16)


def aws_secret(rng: random.Random) -> str:
    return _draw(rng, _B64, 40)


def google_api_key(rng: random.Random) -> str:
    return "AIza" + _draw(rng, _URLSAFE, 35)


def sendgrid_key(rng: random.Random) -> str:
    return f"SG.{_draw(rng, _URLSAFE, 22)}.{_draw(rng, _URLSAFE, 43)}"


def npm_token(rng: random.Random) -> str:
    return "npm_" + _draw(rng, _ALNUM, 36)


def hf_token(rng: random.Random) -> str:
    return "hf_" + _draw(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34)


def openai_key(rng: random.Random) -> str:
    return "sk-proj-" + _draw(rng, _URLSAFE, rng.choice((48, 64, 92)))


def anthropic_key(rng: random.Random) -> str:
    return "sk-ant-api03-" + _draw(rng, _URLSAFE, 93) + "AA"


def twilio_token(rng: random.Random) -> str:
    return _draw(rng, _HEX, 32)


def hex_secret(rng: random.Random) -> str:
    return _draw(rng, _HEX, rng.choice((32, 40, 64)))


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def jwt(rng: random.Random) -> str:
    """A structurally valid JWT (RFC 7519): real JSON header and claims, random signature."""
    alg = rng.choice(("HS256", "RS256", "ES256"))
    header = _b64url(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    claims = {
        "sub": _draw(rng, "0123456789", rng.randint(6, 10)),
        "iat": rng.randint(1_600_000_000, 1_790_000_000),
        "scope": rng.choice(("read", "read write", "admin", "openid profile")),
    }
    payload = _b64url(json.dumps(claims, separators=(",", ":")).encode())
    sig_len = 43 if alg == "HS256" else 86
    return f"{header}.{payload}.{_draw(rng, _URLSAFE, sig_len)}"


def basic_auth(rng: random.Random, user: str) -> str:
    return base64.b64encode(f"{user}:{password(rng)}".encode()).decode("ascii")


def pem_private_key(rng: random.Random) -> str:
    """A PEM block (RFC 7468) with random base64 body; the whole block is one SECRET span."""
    kind = rng.choice(("RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY"))
    n_lines = rng.randint(4, 12)
    body = [_draw(rng, _B64, 64) for _ in range(n_lines)]
    body.append(_draw(rng, _B64, rng.randint(8, 60)) + "==")
    return "\n".join([f"-----BEGIN {kind}-----", *body, f"-----END {kind}-----"])


def password(rng: random.Random) -> str:
    """A password: random (half of the time) or human-made, never with quotes or spaces."""
    if rng.random() < 0.5:
        return _draw(rng, _ALNUM + _PW_SYMBOLS, rng.randint(10, 20))
    word = rng.choice(_PW_WORDS)
    word = word.capitalize() if rng.random() < 0.6 else word
    leet = word.replace("o", "0").replace("a", "@") if rng.random() < 0.3 else word
    return leet + str(rng.randint(1, 2026)) + rng.choice(("", "!", "#", "$", "*"))


# slot name -> factory; code templates pick among these for ``{secret}``.
VENDOR_SECRETS = {
    "gh_token": github_token,
    "gh_fine": github_fine_grained,
    "gl_token": gitlab_token,
    "slack_token": slack_token,
    "slack_hook": slack_webhook,
    "stripe_key": stripe_key,
    "aws_key_id": aws_key_id,
    "aws_secret": aws_secret,
    "google_key": google_api_key,
    "sendgrid_key": sendgrid_key,
    "npm_token": npm_token,
    "hf_token": hf_token,
    "openai_key": openai_key,
    "anthropic_key": anthropic_key,
    "twilio_token": twilio_token,
    "hex_secret": hex_secret,
    "jwt": jwt,
    "pem_key": pem_private_key,
    "password": password,
}


def any_token(rng: random.Random) -> str:
    """One single-line vendor token, for templates that do not name the vendor."""
    name = rng.choice(tuple(k for k in VENDOR_SECRETS if k not in ("pem_key", "password")))
    return VENDOR_SECRETS[name](rng)
