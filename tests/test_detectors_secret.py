"""SECRET rules: cue-word assignments, vendor token formats, JWTs, JWKs and PEM private keys.

The span is the value only, never its quotes or its key. Tokens in these tables are
synthetic: built from a seeded generator to each vendor's documented shape, so none is a
live credential (and none is a published example, which the rules skip on purpose).
"""

from __future__ import annotations

import base64
import json
import random
import string
import time
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spacy_pii.detectors import RuleSettings, find_rule_hits
from spacy_pii.detectors.secret import (
    SecretDetector,
    cue_strength,
    high_entropy,
    shannon_entropy,
    value_is_secret,
)
from spacy_pii.detectors.secret_formats import github_checksum_valid

ALNUM = string.ascii_letters + string.digits
BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
HEX = "0123456789abcdef"


def _random(alphabet: str, size: int, seed: str) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(size))


def _found(text: str) -> list[tuple[str, str, float | None]]:
    return [(text[h.start : h.end], h.detector, h.score) for h in SecretDetector().find(text)]


def _values(text: str) -> list[str]:
    return [value for value, _, _ in _found(text)]


# ---------------------------------------------------------------------------------------
# Cue word + assignment: the value only, score None
# ---------------------------------------------------------------------------------------

ASSIGNMENTS = [
    pytest.param('password = "Tr0ub4dor&3"', "Tr0ub4dor&3", "assignment", id="python-quoted"),
    pytest.param("db_password: s3cr3t-Pa55", "s3cr3t-Pa55", "assignment", id="yaml-unquoted"),
    pytest.param(
        '{"api_key": "AbCdEf1234567890XyZ"}', "AbCdEf1234567890XyZ", "assignment", id="json-member"
    ),
    pytest.param("export PGPASSWORD=hunter2!", "hunter2!", "assignment", id="env-export"),
    pytest.param("password=Tr0ub4dor&3, next", "Tr0ub4dor&3", "assignment", id="ampersand-inside"),
    pytest.param("[db]\npasswd = 9xK!qLz", "9xK!qLz", "assignment", id="ini-key"),
    pytest.param("MYSQL_ROOT_PASSWORD=Zq8#rT", "Zq8#rT", "assignment", id="dotenv-caps"),
    pytest.param("client_secret => 'q8Zr!x'", "q8Zr!x", "assignment", id="php-arrow"),
    pytest.param("PW:=FlUgeGeHeImEn01", "FlUgeGeHeImEn01", "assignment", id="pascal-assign"),
    pytest.param('if (password !== "PaS5w0rD2#"){', "PaS5w0rD2#", "assignment", id="js-comparison"),
    pytest.param(
        'def login(passwd: str = "cq2tPr1a2"):',
        "cq2tPr1a2",
        "assignment",
        id="python-annotated-default",
    ),
    pytest.param("<password>S3cr3t!</password>", "S3cr3t!", "assignment", id="xml-element"),
    pytest.param('#define PASSWORD "n84ASM54y4"', "n84ASM54y4", "assignment", id="c-preprocessor"),
    pytest.param(
        'curl_easy_setopt(c, CURLOPT_PASSWORD, "Kq9!zzTop")',
        "Kq9!zzTop",
        "assignment",
        id="constant-comma-quoted",
    ),
    pytest.param(
        "https://host/cb?token=h1d3Me4ch534d801&v=2",
        "h1d3Me4ch534d801",
        "assignment",
        id="url-query",
    ),
    pytest.param(
        "id=42%26token%3Dh1d3Me4ch534d801%26v%3D3",
        "h1d3Me4ch534d801",
        "assignment",
        id="url-encoded-query",
    ),
    pytest.param("password: Dw7^&quot;x", "Dw7^", "assignment", id="stops-at-html-entity"),
    pytest.param(
        "value=&quot;password: &quot;Dw7^&amp;nd&quot;",
        "Dw7^&amp;nd",
        "assignment",
        id="html-quoted",
    ),
    pytest.param("mysql -u root --password Sne3sd8AZjq", "Sne3sd8AZjq", "cli", id="cli-long-flag"),
    pytest.param(
        "-Domain 'localhost' -Password 'Sjdn43ss@!'", "Sjdn43ss@!", "cli", id="powershell-flag"
    ),
    pytest.param("mysql -u root -pS3cr3tPw -e 'select 1'", "S3cr3tPw", "cli", id="mysql-glued-p"),
    pytest.param(
        'curl -X PUT -u "admin:dG9rZW4g" https://127.0.0.1', "dG9rZW4g", "cli", id="curl-user"
    ),
    pytest.param(
        "ConvertTo-SecureString -String -Force dsjUE#$gds8s",
        "dsjUE#$gds8s",
        "cli",
        id="powershell-securestring",
    ),
    pytest.param(
        "Authorization: Bearer abcDEF123456ghiJKL",
        "abcDEF123456ghiJKL",
        "auth_header",
        id="rfc9110-bearer",
    ),
    pytest.param(
        '-H "Authorization: Basic R2hyZG5oYzpycWVpIGVuZ2xiZg=="',
        "R2hyZG5oYzpycWVpIGVuZ2xiZg==",
        "auth_header",
        id="rfc9110-basic",
    ),
    pytest.param(
        "postgres://admin:Sup3rS3cret@db.example.com:5432/app",
        "Sup3rS3cret",
        "url",
        id="rfc3986-userinfo",
    ),
    pytest.param(
        "smtps://me@example.com:FnD83JZs@smtp.example.com:465",
        "FnD83JZs",
        "url",
        id="rfc3986-userinfo-with-at",
    ),
    pytest.param(
        "redis://:hunter2x@cache.example.com:6379/0", "hunter2x", "url", id="uri-empty-user"
    ),
    pytest.param("postgres://app:pw@db.example.com/app", "pw", "url", id="uri-any-length"),
    pytest.param("ftp://anon:x@ftp.example.com/pub", "x", "url", id="uri-one-character"),
    pytest.param(
        "mongodb://admin:p@ss@mongo.example.com/admin", "p@ss", "url", id="uri-unencoded-at"
    ),
    pytest.param(
        "Driver={SQL Server};Server=db;Uid=sa;Password=abc;", "abc", "connection", id="odbc"
    ),
    pytest.param("DSN=payroll;UID=bob;PWD=x7;", "x7", "connection", id="dsn-pwd"),
    pytest.param("Driver={ODBC};Pwd={a;b=c};", "a;b=c", "connection", id="odbc-braced"),
    pytest.param(
        "jdbc:mysql://db.example.com/app?user=sa&password=tiger",
        "tiger",
        "connection",
        id="jdbc-query",
    ),
    pytest.param(
        "ALTER USER 'root'@'localhost' IDENTIFIED BY 'SqLpa5sW0rD';",
        "SqLpa5sW0rD",
        "sql",
        id="mysql-identified-by",
    ),
    pytest.param(
        "CREATE ROLE app LOGIN PASSWORD SqLpa5sW0rD;",
        "SqLpa5sW0rD",
        "sql",
        id="postgres-login-password",
    ),
    pytest.param(
        "my wifi password is R@inb0w1600$ if u need it", "R@inb0w1600$", "prose", id="prose-is"
    ),
    pytest.param("the old passcode was 48#kq7 so", "48#kq7", "prose", id="prose-was"),
    pytest.param(
        "the password is hunter20#, ok?", "hunter20#", "prose", id="prose-comma-ends-sentence"
    ),
    pytest.param('PASSWORD IS "s3cr3t!x"', "s3cr3t!x", "prose", id="prose-upper-quoted"),
    pytest.param(
        "Last password you remember: monkey824!\nPhone",
        "monkey824!",
        "prose",
        id="prose-label-words-colon",
    ),
    pytest.param("password for the vpn: hunter2!", "hunter2!", "prose", id="prose-label-for"),
]


@pytest.mark.parametrize(("text", "value", "family"), ASSIGNMENTS)
def test_assignment_value_is_the_span(text: str, value: str, family: str):
    assert _found(text) == [(value, f"rules.secret.{family}", None)]


NOT_SECRETS = [
    pytest.param("postgres://user:<password>@host/db", id="uri-angle-placeholder"),
    pytest.param("postgres://user:${DB_PASSWORD}@db.example.com/app", id="uri-substitution"),
    pytest.param("redis://:****@cache.example.com", id="uri-mask"),
    pytest.param("password=abc in prose", id="short-value-outside-a-connection-string"),
    pytest.param("password=", id="empty-value"),
    pytest.param("password=\nuser=bob", id="empty-at-line-end"),
    pytest.param("password=<your password>", id="angle-placeholder"),
    pytest.param("password: ${PASSWORD}", id="shell-substitution"),
    pytest.param("token: {{ vault_token }}", id="template-placeholder"),
    pytest.param("password: ****", id="mask"),
    pytest.param("password: xxxxxxxx", id="x-mask"),
    pytest.param("token = None", id="python-none"),
    pytest.param('password = os.environ["DB_PASSWORD"]', id="environment-lookup"),
    pytest.param('SECRET = getenv("GEHE1MN15")', id="getenv-call"),
    pytest.param("password = user.password", id="attribute-reference"),
    pytest.param("Click here for a password reset.", id="prose-password-reset"),
    pytest.param("The token is valid.", id="prose-token"),
    pytest.param("password_min_length: 12", id="length-setting"),
    pytest.param("max_tokens = 4096", id="number-setting"),
    pytest.param('token_type: "bearer"', id="token-type"),
    pytest.param('tokenizer_name = "gpt2"', id="tokenizer-not-token"),
    pytest.param("passport: X1234567", id="passport-not-pass"),
    pytest.param("passengers: [1, 2]", id="passengers-not-pass"),
    pytest.param("bypass = yes1", id="bypass-not-pass"),
    pytest.param('password = "abc"', id="below-four-characters"),
    pytest.param("password: hunter", id="letters-only-low-entropy"),
    pytest.param('"password": "correct horse battery staple"', id="spaced-phrase-not-a-value"),
    pytest.param("#define PASSWORD 0x0dead1beef7cafe2", id="hex-literal"),
    pytest.param('{"secretKey": "ENC(2dfRFqV/cS6TzRd+JyO=)"}', id="jasypt-ciphertext"),
    pytest.param('"key": "f45VgF8jX79o@anydata.com"', id="email-address"),
    pytest.param('cache_key = "user:12345"', id="weak-cue-lower-case-value"),
    pytest.param("M[@%]PW:2Z.Q?2M^S;`4G?E0C", id="uuencoded-line"),
    pytest.param("ssh -p 2222 host", id="ssh-port-flag"),
    pytest.param("Pass-Nr.: F12345671", id="passport-number-label"),
    pytest.param("password = ?", id="sql-placeholder"),
    pytest.param("token: token: token:", id="keys-are-not-values"),
    pytest.param("the password is wrong, try again", id="prose-letters-only-word"),
    pytest.param("Your password was reset yesterday", id="prose-password-was-reset"),
    pytest.param("the password is 123", id="prose-below-four-characters"),
    pytest.param("Password expires: 2024-05-01", id="prose-label-date-value"),
    pytest.param("Password changed at: 10:30", id="prose-label-time-value"),
    pytest.param("Password requirements: 8+ chars", id="prose-label-short-value"),
    pytest.param("Password reset link: https://example.com/r", id="prose-label-url-value"),
    pytest.param("Password policy: see section 4.2", id="prose-label-letters-word"),
]


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_not_a_secret(text: str):
    assert _found(text) == []


def test_value_after_a_rejected_value_is_still_found():
    # "DemoToken:" is a key, not the value of "Token->"; the real value follows it.
    text = "Token-> DemoToken: Nxs094M3ed2s1Re0F4M3ed2GZ8M= <- for User : demo"
    assert _values(text) == ["Nxs094M3ed2s1Re0F4M3ed2GZ8M="]


def test_high_entropy_letters_only_value_counts():
    value = "qWeRtYuIoPaSdFgHjKlZxCvBnMmNbVcXzL"  # letters only, entropy above 4.5
    assert high_entropy(value)
    assert _values(f"secret: {value}") == [value]


@pytest.mark.parametrize(
    ("value", "expected"),
    [("", 0.0), ("aaaa", 0.0), ("ab", 1.0), ("abcd", 2.0), ("0123456789abcdef", 4.0)],
)
def test_shannon_entropy(value: str, expected: float):
    assert shannon_entropy(value) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0123456789abcdef", True),  # hex alphabet, 4.0 >= 3.0 (detect-secrets hex limit)
        ("aaaabbbbccccdddd", False),  # 2.0 bits
        ("qWeRtYuIoPaSdFgHjKlZxCvBnMmNbVcXzL", True),  # base64 alphabet, above 4.5
        ("correcthorsebatterystaple", False),
    ],
)
def test_high_entropy_uses_detect_secrets_limits(value: str, expected: bool):
    assert high_entropy(value) is expected


@pytest.mark.parametrize(
    ("key", "strength"),
    [
        ("password", "password"),
        ("MYSQLPASS", "password"),
        ("userPassword", "password"),
        ("X3_PSWD", "password"),
        ("api_key", "strong"),
        ("apiKey", "strong"),
        ("AwsSecretKey", "strong"),
        ("cache_key", "weak"),
        ("password_length", None),
        ("reset_password", None),
        ("passport", None),
        ("tokenizer", None),
        ("author", None),
    ],
)
def test_cue_strength(key: str, strength: str | None):
    assert cue_strength(key, 0, len(key)) == strength


def test_weak_cue_needs_mixed_case_and_a_digit():
    assert value_is_secret("AIhq5Xyb1Gga9Q29", "weak")
    assert not value_is_secret("user:12345", "weak")
    assert value_is_secret("12345678", "password")  # a numeric PIN after a password cue
    assert not value_is_secret("12345678", "strong")


# ---------------------------------------------------------------------------------------
# Vendor formats
# ---------------------------------------------------------------------------------------


def _github_token(prefix: str, seed: str, valid: bool = True) -> str:
    body = _random(ALNUM, 30, seed)
    crc = zlib.crc32(body.encode())
    digits = ""
    while crc:
        crc, rest = divmod(crc, 62)
        digits = BASE62[rest] + digits
    checksum = digits.rjust(6, "0")
    if not valid:
        checksum = checksum[:-1] + ("A" if checksum[-1] != "A" else "B")
    return f"{prefix}_{body}{checksum}"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


VENDOR = [
    pytest.param(
        "AKIA" + _random(string.ascii_uppercase + string.digits, 16, "aws"),
        "aws",
        id="aws-access-key-id",
    ),
    pytest.param(
        "github_pat_" + _random(ALNUM, 22, "gh1") + "_" + _random(ALNUM, 59, "gh2"),
        "github",
        id="github-fine-grained",
    ),
    pytest.param("glpat-" + _random(ALNUM, 20, "gitlab"), "gitlab", id="gitlab-pat"),
    pytest.param(
        "xoxb-" + _random("0123456789", 12, "s1") + "-" + _random(ALNUM, 24, "s2"),
        "slack",
        id="slack-bot-token",
    ),
    pytest.param("sk_live_" + _random(ALNUM, 24, "stripe"), "stripe", id="stripe-secret-key"),
    pytest.param(
        "rk_test_" + _random(ALNUM, 24, "stripe-rk"), "stripe", id="stripe-restricted-key"
    ),
    pytest.param("AIza" + _random(ALNUM + "_-", 35, "google"), "google", id="google-api-key"),
    pytest.param(
        "sk-" + _random(ALNUM, 20, "oa1") + "T3BlbkFJ" + _random(ALNUM, 20, "oa2"),
        "openai",
        id="openai-key",
    ),
    pytest.param(
        "sk-ant-api03-" + _random(ALNUM, 93, "anthropic"), "anthropic", id="anthropic-key"
    ),
    pytest.param("npm_" + _random(ALNUM, 36, "npm"), "npm", id="npm-token"),
    pytest.param(
        "SG." + _random(ALNUM, 22, "sg1") + "." + _random(ALNUM, 43, "sg2"),
        "sendgrid",
        id="sendgrid-key",
    ),
    pytest.param(
        "hf_" + _random(string.ascii_letters, 34, "hf"), "huggingface", id="huggingface-token"
    ),
    pytest.param("abc8Q~" + _random(ALNUM, 34, "azure"), "azure", id="entra-client-secret"),
    pytest.param("508627689:AA" + _random(ALNUM, 33, "tg"), "telegram", id="telegram-bot"),
    pytest.param(
        _b64url(b"123456789012345678")
        + "."
        + _random(ALNUM, 6, "d1")
        + "."
        + _random(ALNUM, 27, "d2"),
        "discord",
        id="discord-bot-user-id-segment",
    ),
    pytest.param(
        base64.b64encode(b"926607655526:" + bytes(range(20))).decode().rstrip("="),
        "atlassian",
        id="atlassian-dc-pat",
    ),
    pytest.param(
        "AGE-SECRET-KEY-1" + _random("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58, "age"),
        "age",
        id="age-secret-key",
    ),
]


@pytest.mark.parametrize(("token", "family"), VENDOR)
def test_vendor_format(token: str, family: str):
    text = f"config: {token} # fixture"
    assert _found(text) == [(token, f"rules.secret.{family}", None)]


def test_github_checksum_earns_score_one():
    token = _github_token("ghp", "github")
    assert github_checksum_valid(token)
    assert _found(f"GH_TOKEN={token}") == [(token, "rules.secret.github", 1.0)]


def test_github_shape_without_checksum_scores_none():
    token = _github_token("gho", "github", valid=False)
    assert not github_checksum_valid(token)
    assert _found(f"GH_TOKEN={token}") == [(token, "rules.secret.github", None)]


def test_slack_webhook_secret_is_its_path():
    path = "/T" + _random(ALNUM, 10, "w1") + "/B" + _random(ALNUM, 10, "w2") + "/"
    path += _random(ALNUM, 24, "w3")
    text = f'"hook": "https://hooks.slack.com/services{path}"'
    assert _found(text) == [(path, "rules.secret.slack", None)]


@pytest.mark.parametrize(
    "token",
    [
        pytest.param("pk_live_" + _random(ALNUM, 24, "pk"), id="stripe-publishable-key"),
        pytest.param("phc_" + _random(ALNUM, 43, "phc"), id="posthog-project-key"),
        pytest.param("AC" + _random(HEX, 32, "twilio"), id="twilio-account-sid"),
        pytest.param("AKIAIOSFODNN7EXAMPLE", id="aws-documentation-example"),
        pytest.param("figd_" + "x" * 40, id="x-filler"),
        pytest.param("xAKIA" + _random(string.ascii_uppercase, 16, "glued"), id="glued-prefix"),
    ],
)
def test_public_identifiers_and_placeholders_are_not_secrets(token: str):
    assert _found(f"value {token} here") == []


def test_ansi_colour_before_a_token_is_ignored():
    token = "sk-" + _random(HEX, 32, "deepseek")
    text = f">>>\x1b[93m{token}\x1b[0m<<<"
    assert _found(text) == [(token, "rules.secret.deepseek", None)]


# ---------------------------------------------------------------------------------------
# JWT, JWK, PEM
# ---------------------------------------------------------------------------------------


def _jwt(header: object, payload: object) -> str:
    parts = [_b64url(json.dumps(header).encode()), _b64url(json.dumps(payload).encode())]
    return ".".join([*parts, _b64url(b"signature-bytes-0123456789")])


def test_jwt_with_alg_header_and_json_claims_scores_none():
    token = _jwt({"alg": "HS256", "typ": "JWT"}, {"sub": "1234", "exp": 1999999999})
    # RFC 7519: a JWT proves its structure, not that it grants access; the score stays null.
    assert _found(f"cookie={token}; Path=/") == [(token, "rules.secret.jwt", None)]


@pytest.mark.parametrize(
    "token",
    [
        pytest.param(_jwt({"typ": "JWT"}, {"sub": "1"}), id="rfc7515-alg-required"),
        pytest.param(
            _jwt({"alg": "HS256"}, {"sub": "1"}).split(".")[0] + ".bm90anNvbg.c2ln",
            id="rfc7519-claims-must-be-json",
        ),
    ],
)
def test_jwt_look_alikes_are_rejected(token: str):
    assert _found(f"x {token} y") == []


def test_jwk_private_member_inside_an_object_with_kty():
    d = _random(ALNUM + "_-", 43, "jwk")
    text = '{\n  "kty": "EC",\n  "crv": "P-256",\n  "d": "' + d + '"\n}'
    assert _found(text) == [(d, "rules.secret.jwk", None)]
    assert _found('{"d": "' + d + '"}') == []  # no "kty": not a JWK


def _pem_body(seed: str, lines: int = 4) -> str:
    return "\n".join(_random(ALNUM + "+/", 64, f"{seed}{i}") for i in range(lines))


def test_pem_block_is_one_span_from_begin_to_end():
    block = f"-----BEGIN RSA PRIVATE KEY-----\n{_pem_body('rsa')}\n-----END RSA PRIVATE KEY-----"
    text = f'key = """{block}"""\n'
    assert _found(text) == [(block, "rules.secret.pem", None)]


def test_pem_block_inside_string_concatenation():
    lines = _pem_body("java").split("\n")
    block = '-----BEGIN PRIVATE KEY-----\\n"\n + "' + '\\n"\n + "'.join(lines)
    block += '\\n"\n + "-----END PRIVATE KEY-----'
    text = f'String k = "{block}\\n";'
    assert _found(text) == [(block, "rules.secret.pem", None)]


def test_pem_without_end_covers_the_base64_lines_that_follow():
    head = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + _pem_body("ssh", 3)
    text = head + "\n(truncated paste) more prose"
    assert _found(text) == [(head, "rules.secret.pem", None)]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            'header="-----BEGIN OPENSSH PRIVATE KEY-----"\n'
            'footer="-----END OPENSSH PRIVATE KEY-----"',
            id="markers-without-key-material",
        ),
        pytest.param(
            "-----BEGIN PGP PRIVATE KEY-----\ni7aHavqQ9T2f2drU4N5WsM7aqQ97kbB...impQ6sr9Buse\n"
            "-----END PGP PRIVATE KEY-----",
            id="ellipsis-example",
        ),
        pytest.param(
            "-----BEGIN PUBLIC KEY-----\n" + _pem_body("pub") + "\n-----END PUBLIC KEY-----",
            id="public-key",
        ),
    ],
)
def test_pem_look_alikes_are_rejected(text: str):
    assert _found(text) == []


def test_token_shapes_inside_a_pem_block_are_not_reported_again():
    body = _pem_body("inner", 2) + "\n" + "A" * 64  # 64 A's also fit a Dropbox token shape
    block = f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----"
    assert _found(block) == [(block, "rules.secret.pem", None)]


def test_encrypted_private_key_is_still_reported():
    block = (
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\n"
        + _pem_body("enc")
        + "\n-----END ENCRYPTED PRIVATE KEY-----"
    )
    assert _found(block) == [(block, "rules.secret.pem", None)]


def test_assignment_inside_a_vendor_token_is_not_reported_twice():
    token = "glpat-" + _random(ALNUM, 20, "twice")
    assert _found(f'gitlab_token: "{token}"') == [(token, "rules.secret.gitlab", None)]


# ---------------------------------------------------------------------------------------
# Invariants and termination
# ---------------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("pasword=:'\" \n-_tokenAKIA0123456789xyz<>${}/@.")),
        max_size=80,
    )
)
def test_hits_are_non_empty_slices_without_surrounding_quotes(text: str):
    for hit in SecretDetector().find(text):
        value = text[hit.start : hit.end]
        assert 0 <= hit.start < hit.end <= len(text)
        assert value.strip() == value or hit.detector == "rules.secret.pem"
        assert not (value[0] in "\"'" and value[-1] == value[0] and len(value) > 1)
        assert hit.label == "SECRET"


def test_find_rule_hits_maps_fullwidth_back_to_the_original():
    text = "ｐａｓｓｗｏｒｄ＝Ｓ３ｃｒｅｔ！"
    hits = find_rule_hits(text, RuleSettings(types=("SECRET",)))
    assert [(text[h.start : h.end], h.detector) for h in hits] == [
        ("Ｓ３ｃｒｅｔ！", "rules.secret.assignment")
    ]


ADVERSARIAL = {
    "password-equals": "password=" * 20_000,
    "pem-without-end": "-----BEGIN RSA PRIVATE KEY-----" + "A" * 100_000,
    "pem-headers-only": "-----BEGIN RSA PRIVATE KEY-----\n" * 3_000 + "-----END-----",
    "pem-body-lines": "-----BEGIN RSA PRIVATE KEY-----\n" + ("A" * 64 + "\n") * 1_500,
    "jwt-dots": "eyJ" + "a." * 50_000,
    "letters": "A" * 100_000,
    "open-quote": "password='" + "password:" * 10_000,
    "quoted-keys": 'api_key="' * 10_000,
    "escaped-quotes": 'password=\\"' * 9_000,
    "html-quotes": "password: &quot;" * 6_000,
    "xml-tags": "<password>" * 9_000,
    "annotations": "password: " + "str = " * 15_000,
    "curl-flags": "curl " * 20_000 + "-u a:b",
    "url-userinfo": "https://a:" * 10_000,
    "ansi": "\x1b[93m" * 20_000,
    "ampersands": "password=" + "a&" * 50_000,
    "jwk-members": '"d":"aaaaaaaaaaaaaaaaaaaa",' * 4_000 + '"kty"',
    "deep-json-jwt": "eyJ" + _b64url(b"[" * 6_000)[3:] + ".eyJ9.c2ln",
}


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_detector_terminates_on_adversarial_input(name: str):
    # A generous bound: a quadratic scan of these inputs takes minutes.
    started = time.process_time()
    for _ in SecretDetector().find(ADVERSARIAL[name]):
        pass
    assert time.process_time() - started < 5.0


def test_a_uri_password_never_becomes_an_email_nor_enters_the_vault():
    import spacy_pii
    from spacy_pii.io.stream import load_redaction_pipeline

    text = "cache at redis://:hunter2x@cache.example.com:6379/0 and ada@example.com"
    found = spacy_pii.load("rules")(text)
    labels = [(span.text, span.label_) for span in found.spans["pii"]]
    assert labels == [("hunter2x", "SECRET"), ("ada@example.com", "EMAIL")]
    doc = load_redaction_pipeline("rules")(text)
    assert "hunter2x" not in doc._.pii_redacted
    assert all("hunter2x" not in value for value in doc._.pii_vault.values())
