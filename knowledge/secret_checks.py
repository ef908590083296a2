"""Decisions a masking regex cannot make: is this key name secret-ish, is this value clearly not a secret.

The rules in data/secrets.toml over-report on purpose (any assignment to a name holding `token`, `key`,
`pass`, …), because Hyperscan cannot look at a name's words or a value's shape. These functions decide
on the few lines a rule flagged, so `tokens/s=1823`, `pad_token=<unk>`, `key=torchelastic/agent/x`
and `${WANDB_API_KEY:?missing}` stay readable while any real value next to such a name is masked.

Standard library only, and mirrored verbatim in deploy/slurm/denpex-slurm-hook (tests/slurm checks).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter

#: words that make a name secret whatever its value looks like (except a clear non-secret)
STRONG = frozenset(
    [
        "pass",
        "passwd",
        "password",
        "passphrase",
        "pwd",
        "pw",
        "secret",
        "secrets",
        "credential",
        "credentials",
        "creds",
        "cred",
    ]
)
#: words that make a name secret when the value looks like a token
MEDIUM = frozenset(
    ["token", "apikey", "pat", "bearer", "jwt", "privatekey", "accesskey", "secretkey", "authtoken", "sas"]
)
#: words that make a name secret when the value is long and token-like
WEAK = frozenset(["key", "auth", "session", "sessionid", "cookie", "sig", "signature"])
_COMPOUND = ("password", "passwd", "secret", "token", "apikey", "secretkey", "accesskey", "credentials")
#: a last word that makes the name about a secret, not the secret itself (`secret_name`, `key_file`)
QUALIFIERS = frozenset(
    [
        "name",
        "names",
        "id",
        "ids",
        "file",
        "files",
        "path",
        "paths",
        "dir",
        "type",
        "types",
        "len",
        "length",
        "size",
        "count",
        "url",
        "uri",
        "endpoint",
        "version",
        "ref",
        "field",
        "prefix",
        "suffix",
        "format",
        "mode",
        "policy",
        "ttl",
        "expiry",
        "expires",
        "expiration",
        "timeout",
        "enabled",
        "enable",
        "disabled",
        "required",
        "header",
        "limit",
        "env",
        "var",
        "variable",
        "source",
        "provider",
        "method",
        "scheme",
        "location",
        "store",
        "backend",
        "mount",
        "manager",
        "rotation",
        "hash",
        "algorithm",
        "alg",
        "ring",
        "pair",
        "board",
        "stdin",
        "helper",
        "host",
        "port",
        "user",
        "username",
        "login",
        "email",
        "domain",
        "index",
        "idx",
        "num",
        "max",
        "min",
        "per",
        "rate",
        "budget",
        "min",
        "dim",
        "dims",
        "shape",
        "strategy",
        "class",
        "kind",
        "level",
        "state",
        "status",
        "error",
        "errors",
        "count",
        "retries",
        "attempts",
        "label",
        "labels",
    ]
)
#: tokenizer special tokens: `eos_token`, `pad_token` name vocabulary entries, not credentials
_TOKENIZER = frozenset(
    [
        "bos",
        "eos",
        "pad",
        "unk",
        "sep",
        "cls",
        "mask",
        "special",
        "additional",
        "start",
        "end",
        "stop",
        "eot",
        "im",
        "image",
        "vision",
        "audio",
        "video",
        "default",
        "chat",
        "fim",
        "think",
        "tool",
        "extra",
        "begin",
        "sos",
    ]
)
#: `<owner>_key` is an API credential, not a lookup key (`sort_key`, `cache_key`)
_KEY_OWNERS = frozenset(
    [
        "api",
        "access",
        "private",
        "secret",
        "account",
        "storage",
        "client",
        "master",
        "signing",
        "encryption",
        "service",
        "deploy",
        "license",
        "app",
        "admin",
        "bot",
        "refresh",
        "auth",
        "ssh",
        "gpg",
        "sas",
        "shared",
        "webhook",
        "consumer",
        "subscription",
        "primary",
        "secondary",
    ]
)
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_NAME_RUN = re.compile(r"[A-Za-z0-9_.-]+")

MASK_TOKENS = re.compile(r"(?:\[MASKED:[a-z0-9_]+\])+")
PLACEHOLDER = re.compile(
    r"none|null|nil|true|false|yes|no|on|off|undefined|n/a|-|\[?redacted\]?|<[^<>]*>|\*+|x{3,}|\.{3,}"
    r"|\$\{[^{}]*\}|\$\([^()]*\)|(?-i:\$[A-Z_][A-Z0-9_]*)|%[A-Za-z_][A-Za-z0-9_]*%|\{\{[^{}]*\}\}|\{[A-Za-z_]*\}"
    r"|%\([A-Za-z_]+\)s|\[[A-Za-z_|]+\]|<\|[^|]*\|>"
    r"|(?:[A-Za-z_]\w*\.)+\w*(?:password|passwd|secret|token|key)|password|passwd|secret|token",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?(?:[a-zA-Z]{1,3}|%)?|0x[0-9a-fA-F]{1,16}")
_PATH = re.compile(r"(?:/|\./|\.\./|~/|[A-Za-z]:\\|file:)\S*")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^@\s]*")
_SEGMENT = r"(?:[a-z]*(?:[A-Z][a-z]{2,})+[0-9]*|[A-Za-z]?[a-z]+[0-9]*|[0-9]{1,8}[a-z]{0,3}|[A-Z]{1,8}[0-9]*)"
_PLAIN = re.compile(rf"{_SEGMENT}(?:[_.:/@-]{_SEGMENT})*")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_CODE = re.compile(
    r"(?:self|args|cfg|config|conf|settings|opts?|options|params?|kwargs|env|ctx|this|request|os|process)"
    r"\.\w|[A-Za-z_][\w.]*[\[(]"
)
#: the start of a template or variable reference the value regex cut short (`${X:?missing}`, `%(pw)s`)
_REFERENCE_START = ("${", "$(", "%(", "{{", "<%", "#{")
#: a key=value pair in the value position is a nested assignment, masked on its own if it is one
_ASSIGNMENT = re.compile(r"[A-Za-z_][\w.-]*=\S*")
#: prose after a flag or key (`--password via the CLI`, `authorization: skipped`)
STOPWORDS = frozenset(
    [
        "via",
        "is",
        "as",
        "the",
        "a",
        "an",
        "to",
        "for",
        "from",
        "in",
        "on",
        "at",
        "and",
        "or",
        "not",
        "with",
        "without",
        "option",
        "flag",
        "argument",
        "instead",
        "only",
        "was",
        "will",
        "must",
        "should",
        "required",
        "missing",
        "provided",
        "given",
        "set",
        "unset",
        "empty",
        "file",
        "prompt",
        "stdin",
        "environment",
        "variable",
        "are",
        "incorrect",
        "invalid",
        "expired",
        "changed",
        "updated",
        "reset",
        "ok",
        "valid",
        "wrong",
        "mismatch",
        "denied",
        "failed",
        "accepted",
        "skipped",
        "disabled",
        "enabled",
        "none",
        "here",
    ]
)


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def classes(value: str) -> int:
    """How many of lower case, upper case and digits `value` holds."""
    return sum(any(f(c) for c in value) for f in (str.islower, str.isupper, str.isdigit))


def name_of(prefix: str) -> str:
    """The key name in the text a rule matched before the value: its last run of name characters."""
    runs: list[str] = _NAME_RUN.findall(prefix)
    if len(runs) > 1 and runs[-1].lower() == "value":
        return runs[-2]  # <add key="Password" value="…">: the name is the key's
    return runs[-1] if runs else ""


def strength(name: str) -> str | None:
    """`strong`, `medium`, `weak`, or None when the name is not about a secret (or is about one, not it)."""
    words = [w.lower() for w in _WORDS.findall(name)]
    if words[-3:] == ["private", "key", "id"]:
        return "medium"  # a service-account key's id is kept as secret as the key
    if not words or words[-1] in QUALIFIERS:
        return None
    best = None
    for i, word in enumerate(words):
        if word in STRONG or (word not in WEAK and word.endswith(_COMPOUND[:3])):
            return "strong"
        if word in MEDIUM or word.endswith(_COMPOUND[3:]):
            if word == "token" and i > 0 and words[i - 1] in _TOKENIZER:
                continue
            best = "medium"
        elif word in WEAK and best is None:
            best = "medium" if i > 0 and words[i - 1] in _KEY_OWNERS else "weak"
    return best


def label_of(name: str) -> str:
    """What the reader sees for a value masked because of its name: `password` or `token`."""
    words = [w.lower() for w in _WORDS.findall(name)]
    for word in reversed(words):
        if word in STRONG or word.endswith(_COMPOUND[:3]):
            return "password"
        if word in MEDIUM or word in WEAK or word.endswith(_COMPOUND[3:]):
            return "token"
    return "secret"


def clearly_not_secret(value: str) -> bool:
    """A placeholder, boolean, path, URL without credentials, code reference or environment name."""
    return bool(
        MASK_TOKENS.fullmatch(value)
        or value.startswith(_REFERENCE_START)
        or value.lower() in STOPWORDS
        or (_ASSIGNMENT.fullmatch(value) and not value.endswith("="))
        or PLACEHOLDER.fullmatch(value)
        or _PATH.fullmatch(value)
        or _URL.fullmatch(value)
        or _ENV_NAME.fullmatch(value)
        or _CODE.match(value)
    )


def value_is_secret(grade: str, value: str) -> bool:
    """Whether `value`, assigned to a name of strength `grade`, is to be masked."""
    if clearly_not_secret(value):
        return False
    if _NUMBER.fullmatch(value):
        return grade == "strong" and value.isdigit() and len(value) >= 6
    if grade == "strong":
        return True
    if len(value) < (8 if grade == "medium" else 12) or ("/" in value and _plain_path(value)):
        return False
    return not (_PLAIN.fullmatch(value) and max(map(len, re.split(r"[_.:/@-]", value))) <= 20)


def _plain_path(value: str) -> bool:
    return all(_PLAIN.fullmatch(p) for p in value.split("/") if p)


def token_like(value: str, min_len: int = 8) -> bool:
    """A value of token shape: long enough, two character classes, not a placeholder."""
    return len(value) >= min_len and classes(value) >= 2 and not PLACEHOLDER.fullmatch(value)


def high_entropy(value: str) -> bool:
    """A random-looking value: >= 16 characters, two classes, >= 3 bits/char, not a word chain."""
    if not token_like(value, 16) or entropy(value) < 3.0:
        return False
    return not (_PLAIN.fullmatch(value) or clearly_not_secret(value))


def b64_decoded(value: str, limit: int = 120) -> bytes:
    """The first bytes `value` decodes to as (url-safe) base64, or b"" when it is not base64."""
    head = value[: limit // 3 * 4].replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(head + "=" * (-len(head) % 4), validate=True)
    except (binascii.Error, ValueError):
        return b""


def b64_pem_key(value: str) -> bool:
    """Base64 of a PEM block that is not a certificate (kubeconfig `client-key-data`)."""
    head = b64_decoded(value, 60)
    return head.startswith(b"-----BEGIN") and b"CERTIFICATE" not in head and b"PUBLIC KEY" not in head


_SECRET_JSON_KEY = re.compile(
    rb'"(?:[a-z_]*(?:private_key|secret|password|token|auth|api_key|apikey|key))"', re.I
)


def b64_secret_json(value: str) -> bool:
    """Base64 of a JSON object holding a secret-ish key (service-account files, docker auths, Neptune)."""
    head = b64_decoded(value, 3000)
    return head.lstrip()[:1] == b"{" and bool(_SECRET_JSON_KEY.search(head))
