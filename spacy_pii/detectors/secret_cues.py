"""The cue-word half of the SECRET rules: a cue word, an assignment, and a value to check.

Sources (see :mod:`.secret` for the whole rule set): the project's SECRET rule, "cue word
plus an assignment, or a mention whose value holds a digit or a symbol"; detect-secrets' default
entropy limits (4.5 bits per character for base64-alphabet strings, 3.0 for hex:
``Base64HighEntropyString`` and ``HexHighEntropyString``); CredSweeper's ``PASSWD_PAIR``
(a password value of at least 4 characters) and ``SECRET_PAIR`` (8 characters mixing upper
case, lower case and a digit or symbol) for the weak cues "key", "api" and "auth"; the
MySQL and PostgreSQL grammars for ``IDENTIFIED BY`` and ``PASSWORD``; RFC 9110 section
11.6.2 for ``Authorization: <scheme> <credentials>``; RFC 3986 section 3.2.1 for the
``user:password@`` userinfo of a URL.

Linear time: cues are found with one pattern; each value run is scanned once (the run of a
rejected value is cached for the cues inside it); every other repetition is bounded.

Why this module is over 400 lines: the cue pattern, the value checks and the run cache that
keeps the scan linear work as one pass; split apart, each half would reach into the other's
internals.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator

# The longest value the cue rules accept: 8 KiB, above the longest credential in the
# CredSweeper fixtures (a 5,468-character blob) and the common 8 KiB HTTP header limit.
MAX_VALUE = 8192
# Repetition bounds that no standard fixes (64-character identifiers, 16 spaces around an
# operator, 256-character URL parts, 1 KiB back to a command name) exist to keep every
# scan linear; each is several times the longest such part in the CredSweeper fixtures.
_MAX_KEY = 64
_UPTO = f"{{1,{MAX_VALUE}}}"  # the regex quantifier {1,8192}
_UPTO_KEY = f"{{1,{_MAX_KEY}}}"
_MIN_PASSWORD = 4  # CredSweeper PASSWD_PAIR: {4,31}
_MIN_WEAK = 8  # CredSweeper SECRET_PAIR: {8,}
_BASE64_LIMIT = 4.5  # detect-secrets Base64HighEntropyString default
_HEX_LIMIT = 3.0  # detect-secrets HexHighEntropyString default

# ---------------------------------------------------------------------------------------
# Cue words
# ---------------------------------------------------------------------------------------

# The leading look-ahead only lets the engine skip, at one test per character, positions
# where no cue can start.
_CUE = re.compile(
    r"(?=[pstcboak])(?:pa{1,2}s{1,2}(?:w(?:o?r)?d|phrase)?|ps{1,2}w(?:o?r)?d|pwd?"
    r"|secret|token|credential|bearer|oauth|auth(?:orization|entication)?"
    r"|p(?:riv(?:ate)?)?[_\-.]?key|api|key)",
    re.IGNORECASE | re.ASCII,
)

# Every cue match, lower-cased, holds one of these literals ("pas"/"paas" for pa{1,2}s,
# "psw"/"pssw" for ps{1,2}w, "pw", the cue words, "auth" inside "oauth", "key" inside
# "private_key"). Re.ASCII keeps a match ASCII, and str.lower maps ASCII letters one to
# one, so a text whose lower-cased form holds none has no cue: one substring test per
# literal (C speed) spares the cue scan (a quarter of the whole secret rule's time on
# presidio synth v2 + WNUT-17 dev before this gate, measured; 87 of those 2,509 texts
# pass it).
_CUE_NEEDLES = (
    "pas",
    "paas",
    "psw",
    "pssw",
    "pw",
    "secret",
    "token",
    "credential",
    "bearer",
    "auth",
    "key",
    "api",
)


def _may_hold_cue(lowered: str) -> bool:
    """Whether a text whose lower-cased form is ``lowered`` may hold a cue word."""
    # A plain loop: 1.7 us per text against 2.4 for any() and 2.1 for one alternation
    # regex (measured on presidio synth v2 + WNUT-17 dev).
    for needle in _CUE_NEEDLES:  # noqa: SIM110
        if needle in lowered:
            return True
    return False


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_WEAK_CUES = frozenset({"key", "api", "auth"})
# "key" is strong after one of these words: api_key, access_key, secret_key, ...
_STRONG_KEY_WORDS = _words(
    "api access secret private priv client auth signing encryption master app account "
    "service ssh gpg pgp aes hmac consumer session license"
)
# A cue key is not a secret's name when the word right after the cue says so
# ("password_length", "token_type", "secret_name") or the word before it does
# ("reset_password", "max_tokens").
_NEXT_WORD_STOP = _words(
    "length len size count min max type types field fields name names label hint prompt "
    "placeholder policy policies reset expiry expires expiration expire expired ttl "
    "timeout lifetime url uri urls endpoint path file filename dir format mode regex "
    "pattern enabled enable required hash hashed algorithm alg salt limit strength rule "
    "rules id ids version base host port method provider header prefix suffix index "
    "store storage manager service handler class module validator validation input form "
    "scope scopes kind source location env var variable usage used remaining nr no number "
    "num"
)
_PREV_WORD_STOP = _words(
    "reset forgot forgotten show hide toggle min max num has is use enable disable "
    "require check validate verify input"
)
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
# A key must not continue something else: after "]" ")" "}" it is part of an encoded blob.
_BAD_BEFORE_KEY = frozenset("])}~^\\")
_WORD_SPLIT = re.compile(r"[_.\-]+|(?<=[a-z0-9])(?=[A-Z])")

# ---------------------------------------------------------------------------------------
# Assignment grammar
# ---------------------------------------------------------------------------------------

_KEY_TAIL = re.compile(r"[A-Za-z0-9_.\-]" + _UPTO_KEY)
# After the key: its closing quote or bracket, then the operator ("=", ":", ":=", "=>", "->",
# the comparisons of code, and "%3D", an URL-encoded "=").
_OPERATOR = re.compile(
    r"(?=[\\\"'`\] \t:=\-!%])(?:\\?[\"'`]){0,2}\]?[ \t]{0,16}"
    r"(?P<op>:=|=>|->|===|!==|==|!=|=|:(?!//)|%3[Dd])[ \t]{0,16}"
)
_SPACES = re.compile(r"[ \t]{1,16}")
_COMMA = re.compile(r"(?:\\?[\"'`]){0,2}[ \t]{0,16},[ \t]{0,16}")
_PREPROCESSOR = re.compile(r"(?:#[ \t]{0,4}define|%define|%global|\b[Ss][Ee][Tt])[ \t]+$")
_SCHEME = re.compile(r"(?=[bBtTnNdD])(?i:bearer|basic|token|ntlm|negotiate|digest|bot)[ \t]+")
# A type annotation between ":" and "=": "passwd: str = ...", "password: String = ...".
_ANNOTATION = re.compile(
    r"(?<![A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_.]{0,64}(?:\[[A-Za-z0-9_., |\[\]]{0,64}\])?"
    r"[ \t]{0,16}=(?!=)[ \t]{0,16}"
)
_UNQUOTED_RUN = re.compile(r"[^\s'\"`,;<>(){}\[\]&\\]++")
# An "&" ends an unquoted value only where it starts the next query parameter ("&v=2") or
# an HTML entity ("&quot;"); elsewhere it is part of the value ("Tr0ub4dor&3").
_AMPERSAND_STOP = re.compile(r"&(?:quot;|amp;|lt;|gt;|#|[A-Za-z_][A-Za-z0-9_.\-]{0,64}=)")
_QUOTED_RUNS = {q: re.compile(rf"[^\s{re.escape(q)}]++") for q in "\"'`"}
_ESCAPED_RUN = re.compile(r"[^\s\"\\]++")
_HTML_QUOTED_RUN = re.compile(r"(?:(?!&quot;)\S)++")
_XML_ELEMENT = re.compile(
    r"<(?P<tag>[A-Za-z_][A-Za-z0-9_.\-]{0,63})(?:\s[^<>]{0,256})?>"
    r"(?P<value>[^<>\s]" + _UPTO + r"+)</(?P=tag)>"
)

# ---------------------------------------------------------------------------------------
# Other cue grammars
# ---------------------------------------------------------------------------------------

_SQL = re.compile(
    r"\b(?:identified(?:[ \t]+with[ \t]+['\"`]?[A-Za-z0-9_]{1,64}['\"`]?)?[ \t]+(?:by|as)"
    r"|(?:with|login|encrypted|unencrypted)[ \t]+password)"
    r"[ \t]+(?P<q>['\"]?)(?P<value>[^\s'\";]" + _UPTO + r"+)(?P=q)"
    r"|\bpassword[ \t]+(?P<q2>['\"])(?P<value2>[^\s'\"]" + _UPTO + r"+)(?P=q2)",
    re.IGNORECASE | re.ASCII,
)
# The user may be empty ("redis://:password@host") or an e-mail address, and the password
# may hold an "@" that
# its writer did not percent-encode: the last "@" of the authority ends it, as lenient URL
# parsers read it. Both runs are bounded, so a match attempt costs at most 512 steps.
_URL_USERINFO = re.compile(
    r"\b[A-Za-z][A-Za-z0-9+.\-]{1,31}://[^\s:/?#\"'<>]{0,256}:"
    r"(?P<value>[^\s/?#\"'<>]{1,256})@(?=[^\s@/?#\"'<>])"
)
# ODBC, ADO.NET, JDBC and DSN connection strings: "key=value" pairs between ";" (or "&" in
# a JDBC URL's query), the password under "Password" or "PWD"; ODBC quotes a value holding
# ";" in braces. The value is a secret whatever its length, as in a URL's userinfo.
_CONNECTION_PASSWORD = re.compile(
    r"(?<![\w.\-])(?:password|pwd)[ \t]{0,16}=[ \t]{0,16}"
    r"(?:\{(?P<braced>[^{}\r\n]{1,256}+)\}|(?P<value>[^\s;&\"'{}]{1,256}+))",
    re.IGNORECASE,
)
# Before the key: a pair separator or a JDBC query's "?" or "&"; after the value: ";".
_KEY_SEPARATORS = ";&?"
# curl's "-u user:password" and MySQL's "-psecret" (glued; elsewhere -p is a port) count
# only on a line that runs that command, within the flag's reach of 1 KiB.
_CURL_USER = re.compile(
    r"(?<![\w\-])(?:-u|--user)[ \t]{0,16}(?P<q>['\"]?)[^\s:'\"]{1,128}:"
    r"(?P<value>[^\s'\"]" + _UPTO + r"+)(?P=q)"
)
_MYSQL_P = re.compile(r"(?<![\w\-])-p(?P<value>[^\s'\"]" + _UPTO + "+)")
_COMMAND_REACH = 1024
_CURL_COMMAND = re.compile(r"\bcurl\b")
_MYSQL_COMMAND = re.compile(r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b")
# PowerShell: ConvertTo-SecureString [-String] <plain text> -AsPlainText -Force.
_SECURE_STRING = re.compile(
    r"ConvertTo-SecureString(?:[ \t]+-(?:String|AsPlainText|Force)){0,4}[ \t]+(?:\\?[\"'])?"
    r"(?P<value>[^\s\"'\\]" + _UPTO + "+)",
    re.IGNORECASE,
)

# ---------------------------------------------------------------------------------------
# Value checks
# ---------------------------------------------------------------------------------------

_HEX = frozenset("0123456789abcdefABCDEF")
_BASE64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_")
_IDENTIFIER_SYMBOLS = frozenset("_.-")
_STOP_VALUES = _words(
    "none null nil true false undefined empty blank required optional password passwd "
    "secret token changeit redacted removed hidden masked placeholder example sample "
    "dummy string str text int bool any object bytes value default"
)
_PLACEHOLDER = re.compile(
    r"<|\$\{|\$\(|\{\{|%\(|#\{|%\{|\$[A-Za-z_][A-Za-z0-9_]*$|%[A-Za-z_][A-Za-z0-9_]*%$"
    r"|%[sd]$|\?$|:[A-Za-z_][A-Za-z0-9_]*$|@[A-Za-z_][A-Za-z0-9_]*$|0[xX][0-9a-fA-F]+$"
)
_NUMBER = re.compile(r"(?<![0-9.+\-])[-+]?[0-9]++(?:\.[0-9]++)?$")
_NESTED_KEY = re.compile(r"(?<![A-Za-z_./\-])[A-Za-z_./\-]++[=:]$")
_EMAIL = re.compile(r"(?<![^@\s])[^@\s]{1,64}@[A-Za-z0-9.\-]{1,253}\.[A-Za-z]{2,63}$")
_PATH_LIKE = re.compile(r"(?<![A-Za-z0-9_./\-~])(?:~?/|\./)[A-Za-z0-9_./\-]*+$")


def shannon_entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character (0.0 for an empty string)."""
    if not value:
        return 0.0
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def high_entropy(value: str) -> bool:
    """Whether ``value`` reaches detect-secrets' limit for its alphabet (hex, then base64)."""
    chars = set(value)
    if chars <= _HEX:
        return shannon_entropy(value) >= _HEX_LIMIT
    if chars <= _BASE64:
        return shannon_entropy(value) >= _BASE64_LIMIT
    return False


def _has_symbol(value: str) -> bool:
    return any(not c.isalnum() and c not in _IDENTIFIER_SYMBOLS for c in value)


def value_is_secret(value: str, cue: str = "strong") -> bool:
    """Whether a value assigned to a cue looks like a credential rather than code or a mask.

    Args:
        value: the candidate, quotes removed.
        cue: ``"any"`` for a password slot (a URI's userinfo, a connection string's
            ``Password=``): every value but a placeholder or a mask,
            ``"password"`` for the password family (a number may be a PIN),
            ``"weak"`` when the cue was only "key", "api" or "auth", else ``"strong"``.
    """
    if cue == "any":
        # A password slot of a URI or a connection string: any value is one, except a
        # placeholder or a mask that stands in for it.
        masked = set(value) <= {"*"} or (len(value) >= 3 and set(value) <= {"x", "X"})
        return not (masked or _PLACEHOLDER.match(value) or "***" in value)
    if len(value) < _MIN_PASSWORD or value.lower() in _STOP_VALUES:
        return False
    if len(set(value)) == 1 or _PLACEHOLDER.match(value) or "***" in value or "://" in value:
        return False
    # Jasypt's ENC(...) is ciphertext; an e-mail address is a login name, not a secret.
    if value.startswith("ENC(") or _EMAIL.match(value):
        return False
    if _NUMBER.match(value) and cue != "password":
        return False
    has_digit = any(c.isdigit() for c in value)
    has_upper = any(c.isupper() for c in value)
    has_lower = any(c.islower() for c in value)
    has_symbol = _has_symbol(value)
    if _PATH_LIKE.match(value) and not (has_digit and has_upper and has_lower):
        return False
    if high_entropy(value):
        return True
    if cue == "weak":
        return len(value) >= _MIN_WEAK and has_upper and has_lower and (has_digit or has_symbol)
    return has_digit or has_symbol


def _word_before(text: str, start: int, stop: int) -> str:
    words = [w for w in _WORD_SPLIT.split(text[start:stop]) if w]
    return words[-1].lower() if words else ""


def _word_after(text: str, start: int, stop: int) -> str:
    words = [w for w in _WORD_SPLIT.split(text[start:stop]) if w]
    return words[0].lower() if words else ""


def _is_word_start(text: str, pos: int, key_start: int) -> bool:
    if pos == key_start:
        return True
    before, here = text[pos - 1], text[pos]
    if before in _IDENTIFIER_SYMBOLS or before.isdigit():
        return True
    if before.islower() and here.isupper():
        return True
    # "APIKey": an upper-case letter followed by a lower-case one starts a word.
    return here.isupper() and before.isupper() and text[pos + 1 : pos + 2].islower()


def _is_word_end(text: str, pos: int, key_end: int) -> bool:
    if pos == key_end:
        return True
    before, here = text[pos - 1], text[pos]
    return here in _IDENTIFIER_SYMBOLS or here.isdigit() or (before.islower() and here.isupper())


def cue_strength(text: str, key_start: int, key_end: int) -> str | None:
    """Classify the identifier ``text[key_start:key_end]`` as a secret's name.

    Returns:
        ``"password"``, ``"strong"`` or ``"weak"`` (only "key", "api" or "auth"), or
        ``None`` when no cue word stands as a word of the identifier, or the word next to
        it names something else (``password_length``, ``reset_password``).
    """
    best: str | None = None
    all_caps = text[key_start:key_end].isupper()
    for match in _CUE.finditer(text, key_start, key_end):
        cue = match.group().lower()
        start, end = match.span()
        if not _is_word_end(text, end, key_end):
            # A plural "s" may close the word: "passwords", "tokens", "SECRETS".
            if text[end] in "sS" and _is_word_end(text, end + 1, key_end):
                end += 1
            else:
                continue
        if (
            len(cue) <= 4
            and not _is_word_start(text, start, key_start)
            and not (all_caps and end == key_end)
        ):
            continue
        before = _word_before(text, key_start, start)
        if _word_after(text, end, key_end) in _NEXT_WORD_STOP or before in _PREV_WORD_STOP:
            continue
        if cue in _WEAK_CUES and not (cue == "key" and before in _STRONG_KEY_WORDS):
            strength = "weak"
        elif cue.startswith(("pa", "ps", "pw")):
            strength = "password"
        else:
            strength = "strong"
        if best is None or _RANK[strength] > _RANK[best]:
            best = strength
    return best


_RANK = {"weak": 0, "strong": 1, "password": 2}


def _run_end(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """Where the run of ``pattern`` that starts at ``pos`` ends (``pos`` if there is none)."""
    match = pattern.match(text, pos)
    return match.end() if match is not None else pos


class _RunCache:
    """The last unquoted value run, so that cues inside a rejected value cost O(1)."""

    __slots__ = ("end", "start")

    def __init__(self) -> None:
        self.start = self.end = -1

    def run_end(self, text: str, pos: int) -> int:
        if self.start <= pos < self.end:
            return self.end
        end = _run_end(_UNQUOTED_RUN, text, pos)
        while text.startswith("&", end) and not _AMPERSAND_STOP.match(text, end):
            end = _run_end(_UNQUOTED_RUN, text, end + 1)
        self.start, self.end = pos, end
        return end


def _value_span(text: str, pos: int, cache: _RunCache) -> tuple[int, int, bool] | None:
    """The value that starts at ``pos``: ``(start, end, quoted)``, or ``None`` if malformed."""
    size = len(text)
    if text.startswith("(", pos):
        pos += 1
    scheme = _SCHEME.match(text, pos)
    if scheme is not None:
        pos = scheme.end()
    if text.startswith("&quot;", pos):
        start = pos + 6
        end = _run_end(_HTML_QUOTED_RUN, text, start)
        return (start, end, True) if text.startswith("&quot;", end) else None
    if text.startswith('\\"', pos):
        start = pos + 2
        end = _run_end(_ESCAPED_RUN, text, start)
        return (start, end, True) if text.startswith('\\"', end) else None
    if pos < size and text[pos] in "\"'`":
        quote = text[pos]
        start = pos + 3 if text.startswith(quote * 3, pos) else pos + 1
        end = _run_end(_QUOTED_RUNS[quote], text, start)
        closed = end < size and text[end] == quote
        # A string continued on the next line (Python "\", an open triple quote) ends at
        # the line end; anything else that stops the run is not a value.
        if not closed and end < size and text[end] not in "\r\n":
            return None
        if end > start and text[end - 1] == "\\":
            end -= 1
        return start, end, True
    return pos, cache.run_end(text, pos), False


def _accept(
    text: str, start: int, end: int, quoted: bool, strength: str, op: str = ""
) -> tuple[int, int] | None:
    """Trim and check a candidate value; the final span, or ``None``."""
    if not quoted:
        if op.lower() == "%3d":
            cut = text.lower().find("%26", start, end)
            if cut != -1:
                end = cut
        follower = text[end : end + 1]
        if follower in ("(", "["):
            return None  # a call or an index: the code reads the secret from elsewhere
        if _NESTED_KEY.match(text, start, end):
            return None  # a key, not a value: "Token-> DemoToken: abc1", "/oauth_signature="
        if end - start > 1 and text[end - 1] == "." and (end == len(text) or follower.isspace()):
            end -= 1  # the full stop of a sentence
    if end - start > MAX_VALUE or not value_is_secret(text[start:end], strength):
        return None
    return start, end


# Prose: "my wifi password is R@inb0w1600$", or a few words then a colon, as forms ask:
# "Last password you remember: monkey824!". Seed 002's mention rule: after "is" or "was"
# the next word counts only when it holds a digit or a symbol, so "the password is wrong"
# names no secret. The value is at least CredSweeper PASSWD_PAIR's 4 characters and stops
# at an HTML entity ("NsIdksKJdj&lt;/div&gt;" in escaped markup).
_PROSE = re.compile(
    r"\b(?:pass(?:word|code|phrase)|pwd)"
    r"(?:[ \t]{1,16}(?:is|was)|(?P<label>(?:[ \t]{1,16}[a-z]{1,12}){1,4}[ \t]{0,4}:))[ \t]{1,16}"
    r"(?P<q>['\"`]?)(?P<value>(?:(?!&[a-z]{2,6};)[^\s'\"`]){4,256}+)(?P=q)",
    re.IGNORECASE | re.ASCII,
)
_SENTENCE_END = ".,;:"
# After a label ("Password expires: 2024-05-01"), digits and date or time punctuation alone
# are a field's value, not a password.
_DATE_OR_NUMBER = re.compile(r"[0-9./:\-]++")


def _prose_values(text: str) -> Iterator[tuple[int, int]]:
    for match in _PROSE.finditer(text):
        start, end = match.span("value")
        # "...is hunter20#, ok?": the comma ends the sentence, not the password.
        while end - start > _MIN_PASSWORD and text[end - 1] in _SENTENCE_END:
            end -= 1
        if text[start:end].isalpha():
            continue
        if match["label"] and _DATE_OR_NUMBER.fullmatch(text, start, end):
            continue
        span = _accept(text, start, end, bool(match["q"]), "password")
        if span:
            yield span


# (literal, pattern, family, strength, command line) of the grammars with one literal each.
_GRAMMARS: tuple[tuple[str, re.Pattern[str], str, str, re.Pattern[str] | None], ...] = (
    ("://", _URL_USERINFO, "url", "any", None),
    ("curl", _CURL_USER, "cli", "password", _CURL_COMMAND),
    ("-p", _MYSQL_P, "cli", "password", _MYSQL_COMMAND),
    ("securestring", _SECURE_STRING, "cli", "password", None),
)


# Every literal whose presence :func:`cue_values` tests before a grammar runs: a text
# whose lower-cased form holds none of them has no cue value.
CUE_LITERALS: tuple[str, ...] = (
    *_CUE_NEEDLES,
    "identified",
    "password",
    "pass",
    "pwd",
    *(needle for needle, *_ in _GRAMMARS),
)


def cue_values(text: str) -> Iterator[tuple[str, int, int]]:
    """``(family, start, end)`` for every value assigned to a cue word."""
    lowered = text.lower()
    if _may_hold_cue(lowered):
        yield from _keyed_values(text)
    # Each grammar runs only where its literal occurs (a substring test at C speed).
    if "identified" in lowered or "password" in lowered:
        for match in _SQL.finditer(text):
            group = "value" if match.group("value") is not None else "value2"
            span = _accept(text, *match.span(group), True, "password")
            if span:
                yield ("sql", *span)
    if "pass" in lowered or "pwd" in lowered:
        for start, end in _prose_values(text):
            yield ("prose", start, end)
    if "=" in text and ("pass" in lowered or "pwd" in lowered):
        yield from _connection_values(text)
    for needle, pattern, family, strength, command in _GRAMMARS:
        if needle not in lowered:
            continue
        for match in pattern.finditer(text):
            if command is not None and not _on_command_line(text, match.start(), command):
                continue
            span = _accept(text, *match.span("value"), True, strength)
            if span:
                yield (family, *span)


def _connection_values(text: str) -> Iterator[tuple[str, int, int]]:
    for match in _CONNECTION_PASSWORD.finditer(text):
        group = "braced" if match["braced"] is not None else "value"
        start, end = match.span(group)
        # A pair of a connection string: a separator before the key or after the value.
        key = match.start()
        while key > 0 and text[key - 1] in " \t" and match.start() - key < 16:
            key -= 1
        before = text[key - 1 : key]
        after = text[match.end() : match.end() + 1]
        if not ((before and before in _KEY_SEPARATORS) or after == ";"):
            continue
        if value_is_secret(text[start:end], "any"):
            yield ("connection", start, end)


def _on_command_line(text: str, pos: int, command: re.Pattern[str]) -> bool:
    line_start = text.rfind("\n", max(0, pos - _COMMAND_REACH), pos) + 1
    return command.search(text, max(line_start, pos - _COMMAND_REACH), pos) is not None


def _keyed_values(text: str) -> Iterator[tuple[str, int, int]]:
    cache = _RunCache()
    resume = 0
    for cue in _CUE.finditer(text):
        if cue.start() < resume:
            continue
        cue_start, cue_end = cue.span()
        key_start = cue_start
        floor = max(0, cue_start - _MAX_KEY)
        while key_start > floor and text[key_start - 1] in _KEY_CHARS:
            key_start -= 1
        key_end = _run_end(_KEY_TAIL, text, cue_end)
        resume = key_end
        if key_start > 0 and text[key_start - 1] in _BAD_BEFORE_KEY:
            continue
        found = _assignment(text, key_start, key_end, cache)
        if found is None:
            continue
        family, start, end, accepted = found
        if accepted:
            resume = max(resume, end)
            yield family, start, end
        else:
            # Cues inside a rejected value get their turn ("Token-> DemoToken: abc1").
            resume = max(resume, start)


def _assignment(
    text: str, key_start: int, key_end: int, cache: _RunCache
) -> tuple[str, int, int, bool] | None:
    """Parse ``key <op> value`` after a cue key: ``(family, start, end, accepted)``."""
    if key_start > 0 and text[key_start - 1] == "<":
        element = _XML_ELEMENT.match(text, key_start - 1)
        if element is not None:
            strength = cue_strength(text, key_start, key_end)
            if strength is None:
                return None
            span = _accept(text, *element.span("value"), True, strength)
            start, end = element.span("value")
            return ("assignment", *(span or (start, end)), span is not None)
    key = text[key_start:key_end]
    family = "cli" if key.startswith("-") else "assignment"
    operator = _OPERATOR.match(text, key_end)
    comma = _COMMA.match(text, key_end)
    spaces = _SPACES.match(text, key_end)
    op = operator["op"] if operator is not None else ""
    if operator is not None:
        pos = operator.end()
    elif comma is not None and key.strip("-_").isupper():
        pos = comma.end()
        if pos >= len(text) or text[pos] not in "\"'":
            return None  # CURLOPT_PASSWORD, "value": the comma form needs a quoted value
    elif spaces is not None and (
        key.startswith("-")
        or key.lower() == "bearer"
        or _PREPROCESSOR.search(text, max(0, key_start - 16), key_start)
    ):
        pos = spaces.end()
        if text.startswith("-", pos):
            return None  # the next flag, not a value
    else:
        return None
    strength = cue_strength(text, key_start, key_end)
    if strength is None:
        return None
    if key.lower() in ("bearer", "authorization") or _SCHEME.match(text, pos):
        family = "auth_header"
    value = _value_span(text, pos, cache)
    if value is None:
        return None
    start, end, quoted = value
    span = _accept(text, start, end, quoted, strength, op)
    if span is None and op == ":" and not quoted:
        # "passwd: str = 'x'": skip a type annotation and read the default.
        annotation = _ANNOTATION.match(text, start)
        if annotation is not None:
            retry = _value_span(text, annotation.end(), cache)
            if retry is not None:
                span = _accept(text, retry[0], retry[1], retry[2], strength)
    if span is None:
        return family, start, end, False
    return (family, *span, True)


__all__ = [
    "MAX_VALUE",
    "cue_strength",
    "cue_values",
    "high_entropy",
    "shannon_entropy",
    "value_is_secret",
]
