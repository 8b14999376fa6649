"""Vendor token formats: credentials whose issuer documents a fixed prefix and alphabet.

Each entry names the issuer whose documentation fixes the prefix; where the issuer gives
a prefix but no length, the length range is the one in the open-source rule sets that
track these formats (gitleaks' ``config/gitleaks.toml`` and CredSweeper's
``credsweeper/rules/config.yaml``), widened where the fixtures showed longer tokens.
The regular expressions are our own.

Scores: a format match is a shape match, ``None``. The one exception is the GitHub token
family (``ghp_``, ``gho_``, ``ghu_``, ``ghs_``, ``ghr_``): GitHub appends a CRC32 of the
random part, base62-encoded in six characters ("Behind GitHub's new authentication token
formats", GitHub blog, 2021-04-05), so a token whose checksum verifies scores ``1.0``.

Deliberately absent, because the issuer says the value is public or an identifier, not a
secret: Stripe publishable keys (``pk_live_``/``pk_test_``: "publishable keys ... can be
publicly accessible in your web or mobile app's client-side code", Stripe API keys
docs), PostHog project keys (``phc_``, meant for front-end code), Google OAuth client ids
(``*.apps.googleusercontent.com``), Square application ids (``sq0idp-``), Twilio account
and key SIDs (``AC``/``SK`` + 32 hex: identifiers paired with a separate secret), and
Salesforce org ids (``00D`` + 12 or 15 characters without a session part).

Why this module is over 400 lines: most of it is the table of vendor formats, one entry per
issuer with its source; the code is the matcher and a few checksums.
"""

from __future__ import annotations

import base64
import binascii
import re
import re._parser as re_parser
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

# A token starts at a non-word character. (ANSI colour sequences, which terminal logs put
# right before a value, are blanked by the caller; see ``blank_ansi``.)
_BEFORE = r"[A-Za-z0-9_\-]"
_END = r"(?![A-Za-z0-9_\-])"
# Tokens whose alphabet is base64's must not sit inside a longer base64 blob (an inline
# image, a certificate): "+", "/" and "=" also count as word characters around them.
_B64_BEFORE = r"[A-Za-z0-9_\-+/=]"
_B64_END = r"(?![A-Za-z0-9_\-+/=])"


@dataclass(frozen=True, slots=True)
class TokenFormat:
    """One vendor format: the family id suffix, its pattern and an optional check.

    ``check`` receives the matched value and returns a score (``1.0`` or ``None``) or
    ``False`` to reject the candidate. ``group`` names the part of the match that is the
    secret (0 for the whole match).
    """

    family: str
    pattern: re.Pattern[str]
    check: Callable[[str], float | bool | None] | None = None
    group: int = 0
    needles: tuple[str, ...] = ()
    """Literals of which one must occur in the text; the pattern is skipped otherwise."""


_LITERAL_HEAD = re.compile(r"(?:[A-Za-z0-9_\-~$=/]|\\[.$|])+")
_CLASS_HEAD = re.compile(r"\[[^\]]+\](?:\{(?P<low>[0-9]+)(?:,(?P<high>[0-9]+))?\})?")
_GROUP_HEAD = re.compile(r"\(\?:[^()]*\)")


def _anchor(boundary: str, body: str) -> str:
    """Put the start-boundary check after the body's first fixed-width piece.

    ``(?<![A-Za-z0-9_-])ghp_...`` makes the regex engine test every position of the text;
    ``ghp_(?<![A-Za-z0-9_-]....)...`` lets it jump from one "ghp_" to the next (the
    engine's literal-prefix search), which is the difference between about 10 ms and
    0.05 ms per 100,000 characters. ``boundary`` is a one-character class.
    """
    literal = _LITERAL_HEAD.match(body)
    if literal is not None:
        head = literal.group()
        if body[len(head) : len(head) + 1] in ("{", "*", "+", "?"):
            head = head[:-1]  # the last character carries a quantifier
        if head:
            width = len(head.replace("\\", ""))
            return f"{head}(?<!{boundary}.{{{width}}}){body[len(head) :]}"
    group = _GROUP_HEAD.match(body)
    if group is not None and body[group.end() : group.end() + 1] not in ("{", "*", "+", "?"):
        low, high = re_parser.parse(group.group()).getwidth()
        if low == high:
            return f"{group.group()}(?<!{boundary}.{{{low}}}){body[group.end() :]}"
    klass = _CLASS_HEAD.match(body)
    if klass is not None:
        char = body[: body.index("]") + 1]
        rest = body[klass.end() :]
        if klass["low"] is None:
            return f"{char}(?<!{boundary}.){rest}"
        low = int(klass["low"])
        high = int(klass["high"]) if klass["high"] is not None else low
        return f"{char}(?<!{boundary}.){char}{{{low - 1},{high - 1}}}{rest}"
    return f"(?<!{boundary}){body}"


# Character classes whose members are never white space (with re.ASCII or without).
_NON_SPACE_CATEGORIES = frozenset(
    {re_parser.CATEGORY_DIGIT, re_parser.CATEGORY_WORD, re_parser.CATEGORY_NOT_SPACE}
)


def _set_has_space(items: list[tuple[object, object]]) -> bool:
    for op, av in items:
        if op is re_parser.LITERAL:
            if chr(av).isspace():  # type: ignore[arg-type]
                return True
        elif op is re_parser.RANGE:
            low, high = cast(tuple[int, int], av)
            if any(chr(code).isspace() for code in range(low, high + 1)):
                return True
        elif not (op is re_parser.CATEGORY and av in _NON_SPACE_CATEGORIES):
            return True  # a negated set, a category that holds spaces: assume the worst
    return False


def _consumes_space(items: object) -> bool:
    """Whether a parsed pattern may consume a white-space character (``str.isspace``).

    Look-arounds consume nothing and are skipped; a back-reference repeats a group that
    was checked itself. Anything this walk does not know counts as "may".
    """
    for op, av in items:  # type: ignore[attr-defined]
        if op is re_parser.LITERAL:
            if chr(av).isspace():
                return True
        elif op is re_parser.IN:
            if _set_has_space(av):
                return True
        elif op is re_parser.BRANCH:
            if any(_consumes_space(branch) for branch in av[1]):
                return True
        elif op is re_parser.SUBPATTERN:
            if _consumes_space(av[3]):
                return True
        elif op in (re_parser.MAX_REPEAT, re_parser.MIN_REPEAT, re_parser.POSSESSIVE_REPEAT):
            if _consumes_space(av[2]):
                return True
        elif op is re_parser.ATOMIC_GROUP:
            if _consumes_space(av):
                return True
        elif op is re_parser.GROUPREF_EXISTS:
            if _consumes_space(av[1]) or (av[2] is not None and _consumes_space(av[2])):
                return True
        elif op not in (re_parser.ASSERT, re_parser.ASSERT_NOT, re_parser.AT, re_parser.GROUPREF):
            return True
    return False


def match_width(pattern: re.Pattern[str]) -> int | None:
    """The length of the shortest match of ``pattern``, if no match can hold white space.

    ``None`` when a match may contain a white-space character: then no run of the text
    bounds where it can occur. Used by the secret rule to skip formats that cannot fit.
    """
    parsed = re_parser.parse(pattern.pattern, pattern.flags)
    if _consumes_space(parsed):
        return None
    return parsed.getwidth()[0]


def _fmt(
    family: str,
    body: str,
    *,
    end: str = _END,
    check: Callable[[str], float | bool | None] | None = None,
    group: int = 0,
    before: str = _BEFORE,
    needles: tuple[str, ...] | None = None,
) -> TokenFormat:
    if needles is None:
        # The body's literal head ("ghp_" of "gh[pousr]_" is not literal; "xkeysib-" is).
        head = _LITERAL_HEAD.match(body)
        literal = head.group().replace("\\", "") if head else ""
        needles = (literal,) if len(literal) >= 2 else ()
    return TokenFormat(
        family, re.compile(_anchor(before, body) + end, re.ASCII), check, group, needles
    )


_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def github_checksum_valid(token: str) -> bool:
    """Whether a ``gh?_`` token's last six base62 characters are the CRC32 of the rest.

    GitHub's format: prefix, underscore, random base62 characters, then the CRC32 of the
    random part in base62 (digits, upper case, lower case), left-padded to six.
    """
    body = token[4:]
    if len(body) < 7 or not body.isalnum() or not body.isascii():
        return False
    value = 0
    for char in body[-6:]:
        value = value * 62 + _BASE62.index(char)
    return value == zlib.crc32(body[:-6].encode("ascii"))


def _github_check(token: str) -> float | None:
    return 1.0 if github_checksum_valid(token) else None


def _b64decode(segment: str) -> bytes | None:
    """Decode standard or URL-safe base64 without padding; ``None`` when it is not base64."""
    try:
        return base64.urlsafe_b64decode(
            segment.replace("+", "-").replace("/", "_") + "=" * (-len(segment) % 4)
        )
    except (binascii.Error, ValueError):
        return None


def _discord_check(token: str) -> float | bool | None:
    # Discord bot tokens begin with the base64 of the bot's numeric user id (a snowflake).
    decoded = _b64decode(token.split(".", 1)[0])
    return None if decoded is not None and decoded.isdigit() else False


_ATLASSIAN_PAT_HEAD = re.compile(r"[0-9]{12}:")


def _atlassian_pat_check(token: str) -> float | bool | None:
    # Jira / Confluence Data Center PATs are base64 of "<12-digit id>:<random bytes>".
    decoded = _b64decode(token)
    return (
        None
        if decoded is not None and _ATLASSIAN_PAT_HEAD.match(decoded.decode("latin-1"))
        else False
    )


def _jfrog_reference_check(token: str) -> float | bool | None:
    # JFrog reference tokens are base64 of "reftkn:01:<expiry>:<random>".
    decoded = _b64decode(token)
    return None if decoded is not None and decoded.startswith(b"reftkn:01:") else False


# Documentation placeholders inside an otherwise well-formed token: AWS's
# "AKIAIOSFODNN7EXAMPLE" convention, "xxxxxxxx" fillers and the digits 1 to 9 in order.
_PLACEHOLDER_TOKEN = re.compile(r"(?i:example)|x{8}|123456789")


def placeholder_token(token: str) -> bool:
    """Whether a format match is a documentation placeholder rather than a token."""
    return _PLACEHOLDER_TOKEN.search(token) is not None


FORMATS: tuple[TokenFormat, ...] = (
    # AWS IAM "unique identifier prefixes": AKIA access key, ASIA temporary key, ABIA STS
    # bearer token, ACCA context-specific credential; A3T + one character as gitleaks.
    _fmt(
        "aws",
        r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}",
        end=r"(?![A-Za-z0-9_])",
        needles=("A3T", "AKIA", "ASIA", "ABIA", "ACCA"),
    ),
    # Amazon Bedrock API keys: long-term "ABSK" + base64, short-term "bedrock-api-key-".
    _fmt("aws", r"ABSK[A-Za-z0-9+/]{100,400}+={0,2}", end=r"(?![A-Za-z0-9+/=])"),
    _fmt("aws", r"bedrock-api-key-[A-Za-z0-9+/=]{20,4096}+", end=r"(?![A-Za-z0-9+/=])"),
    _fmt("aws", r"da2-[a-z0-9]{26}"),  # AWS AppSync API key
    _fmt("aws", r"amzn\.mws\.[0-9a-z]{8}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{12}"),
    # GitHub: classic tokens (checksum above; GitHub allows up to 255 characters) and the
    # dotted installation-token form; fine-grained PATs "github_pat_".
    _fmt(
        "github",
        r"gh[pousr]_[A-Za-z0-9]{36,251}+",
        end=r"(?![A-Za-z0-9_\-.])",
        check=_github_check,
    ),
    _fmt(
        "github",
        r"ghs_[A-Za-z0-9]{1,64}_[A-Za-z0-9_\-]{20,2048}+(?:\.[A-Za-z0-9_\-]{1,2048}+){0,2}",
    ),
    _fmt("github", r"github_pat_[A-Za-z0-9_]{70,244}+"),
    # GitLab "Token prefixes" table (docs.gitlab.com, security/tokens): one prefix per kind.
    _fmt(
        "gitlab",
        r"gl(?:pat|oas|dt|rt|rtr|cbt|ptt|ft|imt|agent|soat|ffct|wt|cd)-[A-Za-z0-9_\-]{20,255}+"
        r"(?:\.[A-Za-z0-9_\-]{1,64}+){0,4}",
    ),
    _fmt("gitlab", r"GR1348941[A-Za-z0-9_\-]{20,64}+"),
    _fmt("gitlab", r"_gitlab_session=[0-9a-f]{32}", before=r"[A-Za-z0-9]"),
    # Slack token types (api.slack.com/authentication/token-types) and incoming webhooks;
    # the webhook's secret is its path after /services/.
    _fmt("slack", r"xox[abposre]-[A-Za-z0-9\-]{10,250}+"),
    _fmt("slack", r"xapp-[0-9]-[A-Za-z0-9\-]{10,250}+"),
    _fmt(
        "slack",
        r"hooks\.slack\.com/services(/T[A-Za-z0-9_]{8,12}/B[A-Za-z0-9_]{8,12}/[A-Za-z0-9_]{24})",
        group=1,
    ),
    # Stripe secret and restricted keys, webhook signing secrets (publishable keys excluded).
    _fmt(
        "stripe",
        r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247}+",
        needles=("k_live_", "k_test_"),
    ),
    _fmt("stripe", r"whsec_[A-Za-z0-9]{32,64}+"),
    # Google: API keys, OAuth client secrets, access and refresh tokens.
    _fmt("google", r"AIza[0-9A-Za-z_\-]{35}"),
    _fmt("google", r"GOCSPX-[0-9A-Za-z_\-]{28}"),
    _fmt("google", r"ya29\.[0-9A-Za-z_\-]{20,2048}+"),
    _fmt("google", r"1//0[0-9A-Za-z_\-]{40,512}+", needles=("1//0",)),
    # OpenAI keys carry "T3BlbkFJ" (base64 of "OpenAI"); Anthropic "sk-ant-api03-"; DeepSeek.
    _fmt(
        "openai",
        r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{16,200}T3BlbkFJ[A-Za-z0-9_\-]{16,200}+",
    ),
    _fmt("anthropic", r"sk-ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_\-]{80,120}+"),
    _fmt("deepseek", r"sk-[a-f0-9]{32}"),
    _fmt("1password", r"ops_eyJ[A-Za-z0-9_\-]{100,4096}+"),
    _fmt("age", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    _fmt("akamai", r"akab-[a-z0-9]{16}-[a-z0-9]{16}"),
    _fmt("alibaba", r"LTAI[A-Za-z0-9]{12,20}+"),
    # Atlassian API tokens and Bitbucket repository tokens: body, "=", 8-hex CRC (the "="
    # may arrive escaped as "\=" or "%3D").
    _fmt("atlassian", r"AT(?:ATT|CTT)3[A-Za-z0-9_\-]{150,250}+(?:=|\\=|%3[Dd])[A-F0-9]{8}"),
    _fmt("atlassian", r"BBDC-[A-Za-z0-9+/@_\-]{44}"),
    _fmt("atlassian", r"ATBB[A-Za-z0-9]{32}"),
    _fmt("atlassian", r"[MNO][A-Za-z0-9]{43}", end=r"(?![A-Za-z0-9])", check=_atlassian_pat_check),
    _fmt("brevo", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),
    _fmt("clojars", r"CLOJARS_[a-f0-9]{60}"),
    _fmt("cloudflare", r"cf(?:at|ut|k)_[A-Za-z0-9]{40,64}+"),
    _fmt("databricks", r"dapi[a-f0-9]{32}(?:-[0-9])?"),
    _fmt("defined_networking", r"dnkey-[A-Z0-9=_\-]{26}-[A-Z0-9=_\-]{52}"),
    _fmt("digitalocean", r"do[opr]_v1_[a-f0-9]{64}"),
    _fmt(
        "discord",
        r"[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}+",
        check=_discord_check,
        needles=(".",),
    ),
    _fmt(
        "discord",
        r"discord(?:app)?\.com/api/webhooks(/[0-9]{17,20}/[A-Za-z0-9_\-]{60,68})",
        group=1,
    ),
    _fmt("docker", r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{27,64}+"),
    _fmt("docker", r"SWMTKN-1-[a-z0-9]{50}-[a-z0-9]{25}"),
    _fmt("docker", r"SWMKEY-1-[A-Za-z0-9+/]{43}"),
    _fmt("doppler", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}+"),
    _fmt("dropbox", r"sl\.[A-Za-z0-9_\-]{130,1500}+"),
    _fmt("dropbox", r"[A-Za-z0-9]{11}AAAAAAAAAA[A-Za-z0-9_\-=]{43}", needles=("A" * 10,)),
    _fmt("dynatrace", r"dt0[a-zA-Z][0-9]{2}\.[A-Z0-9]{24}\.[A-Z0-9]{64}"),
    # Facebook (Meta) access tokens begin "EAA"; "EAAA" is Square's, below.
    _fmt("facebook", r"EAA[B-Z][A-Za-z0-9]{27,512}+", before=_B64_BEFORE, end=_B64_END),
    _fmt("facebook", r"[0-9]{15,16}\|[A-Za-z0-9_\-]{27}", needles=("|",)),
    _fmt("figma", r"figd_[A-Za-z0-9_\-]{40}"),
    # Grafana: cloud access-policy tokens, service-account tokens, legacy API keys (base64
    # of '{"k":"').
    _fmt("grafana", r"glc_[A-Za-z0-9+/]{32,400}+={0,2}", end=r"(?![A-Za-z0-9+/=])"),
    _fmt("grafana", r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"),
    _fmt("grafana", r"eyJrIjoi[A-Za-z0-9+/]{40,400}+={0,2}", end=r"(?![A-Za-z0-9+/=])"),
    _fmt("groq", r"gsk_[A-Za-z0-9]{52}"),
    _fmt("hashicorp", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{60,70}+", needles=(".atlasv1.",)),
    _fmt("hashicorp", r"hv[sbr]\.[A-Za-z0-9_\-]{24,255}+"),
    _fmt("heroku", r"HRKU-[A-Za-z0-9_\-]{36,64}+"),
    _fmt("huggingface", r"hf_[A-Za-z]{34}"),
    _fmt("instagram", r"IGQVJ[A-Za-z0-9_\-]{100,512}+", before=_B64_BEFORE, end=_B64_END),
    _fmt("jfrog", r"AKCp[A-Za-z0-9]{69}", before=_B64_BEFORE, end=_B64_END),
    _fmt("jfrog", r"cmVmdGtuO[A-Za-z0-9_\-]{55}", check=_jfrog_reference_check),
    _fmt("linear", r"lin_api_[A-Za-z0-9]{40}"),
    _fmt("llama", r"llx-[A-Za-z0-9_\-]{48}"),
    _fmt("mailchimp", r"[A-Za-z0-9]{32}-us[0-9]{1,2}", needles=("-us",)),
    _fmt("mailgun", r"key-[A-Za-z0-9]{32}"),
    _fmt("mailgun", r"[a-f0-9]{32}-[a-f0-9]{8}-[a-f0-9]{8}", needles=("-",)),
    _fmt("netlify", r"nfp_[A-Za-z0-9]{36}"),
    _fmt("newrelic", r"NR[A-Z]{2}-[A-Za-z0-9_\-]{19,40}+"),
    _fmt("newrelic", r"[A-Za-z0-9]{36}NRAL", needles=("NRAL",)),
    # NATS nkey seeds: "S" + key-type letter + base32 (RFC 4648 alphabet).
    _fmt("nats", r"S[ACNOPUX][A-Z2-7]{56}", before=_B64_BEFORE, end=_B64_END),
    _fmt("notion", r"ntn_[A-Za-z0-9]{46}"),
    _fmt("npm", r"npm_[A-Za-z0-9]{36}"),
    # NTLM AUTHENTICATE message (MS-NLMP 2.2.1.3): base64 of "NTLMSSP\0" + type 3.
    _fmt("ntlm", r"TlRMTVNTUAAD[A-Za-z0-9+/]{20,4096}+={0,2}", end=r"(?![A-Za-z0-9+/=])"),
    _fmt("nuget", r"oy2[a-z0-9]{43}"),
    _fmt("paypal", r"access_token\$production\$[0-9a-z]{16}\$[0-9a-f]{32}"),
    _fmt("perplexity", r"pplx-[A-Za-z0-9]{48}"),
    _fmt("planetscale", r"pscale_(?:pw|tkn|oauth)_[A-Za-z0-9_\-.]{32,64}+"),
    _fmt("posthog", r"ph[sxar]_[A-Za-z0-9]{39,60}+"),
    _fmt("postman", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    _fmt("postman", r"PMAT-[A-Z0-9]{26}"),
    # PyPI API tokens are macaroons whose base64 starts with the encoded "pypi.org".
    _fmt("pypi", r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,1024}+"),
    _fmt("rubygems", r"rubygems_[a-f0-9]{48}"),
    _fmt("salesforce", r"00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{40,512}+"),
    _fmt("sendgrid", r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}"),
    _fmt("sentry", r"sntrys_eyJ[A-Za-z0-9+/=_\-]{50,512}+"),
    _fmt("sentry", r"sntryu_[a-f0-9]{64}"),
    _fmt("shopify", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    _fmt("sonarqube", r"sq[uap]_[a-f0-9]{40}"),
    _fmt("square", r"EAAA[A-Za-z0-9_\-]{60}", before=_B64_BEFORE, end=_B64_END),
    _fmt("square", r"sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,43}+"),
    _fmt("supabase", r"sbp_(?:v0_)?[a-f0-9]{40}"),
    _fmt("telegram", r"[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}", needles=(":AA",)),
    _fmt("tavily", r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}"),
    _fmt("together", r"tgp_v1_[A-Za-z0-9_\-]{43}"),
    _fmt("vercel", r"vc[pkiar]_[A-Za-z0-9]{40,64}+"),
    _fmt("wundergraph", r"cosmo_[a-f0-9]{32}"),
    _fmt("xai", r"xai-[A-Za-z0-9]{80}"),
    # X (Twitter) app-only bearer tokens begin with twenty-odd "A"s; "%" appears URL-encoded.
    _fmt(
        "x",
        "A" * 20 + r"[A-Za-z0-9%]{70,202}+",
        before=r"[A-Za-z0-9%]",
        end=r"(?![A-Za-z0-9%])",
        needles=("A" * 20,),
    ),
    # Microsoft Entra client secrets: three characters, a digit, "Q~", then 31 to 34.
    _fmt(
        "azure",
        r"[A-Za-z0-9_~.\-]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}+",
        before=r"[A-Za-z0-9_~.\-]",
        end=r"(?![A-Za-z0-9_~.\-])",
        needles=("Q~",),
    ),
)


__all__ = [
    "FORMATS",
    "TokenFormat",
    "github_checksum_valid",
    "match_width",
    "placeholder_token",
]
