"""Secret rules: what each kind of secret looks like (data/secrets.toml) and the check that decides
whether a match is really a secret.

A rule's regex may over-report on purpose (any `*_TOKEN=` assignment); `decide` looks at the name's
words and the value's shape (`secret_checks`) so placeholders, paths and numbers stay readable.
Kept apart from `masking` so the Masker is only about applying rules to text.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from knowledge import secret_checks as sc

RULES_PATH = Path(__file__).parent / "data" / "secrets.toml"

Check = Literal["none", "value", "token", "entropy", "url", "named", "adjacent", "pem_b64", "b64_json"]
_CHECKS = ("none", "value", "token", "entropy", "url", "named", "adjacent", "pem_b64", "b64_json")
Block = Literal["", "pem", "indented"]
_URL_PLACEHOLDER = re.compile(
    r"\$\{[^{}]*\}|\$\([^()]*\)|<[^<>]*>|\*+|x{3,}|\{\{[^{}]*\}\}|\{[A-Za-z_]*\}|%s|\[?redacted\]?", re.I
)


def mask_token(label: str) -> str:
    """The text a secret is replaced with."""
    return f"[MASKED:{label}]"


@dataclass(frozen=True, slots=True)
class SecretRule:
    """One kind of secret. `pattern` is matched one line at a time (see data/secrets.toml)."""

    id: str
    pattern: str
    caseless: bool = False
    label: str = ""
    check: Check = "none"
    block: Block = ""
    description: str = ""

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z0-9_]+", self.id):
            raise ValueError(f"secret rule id {self.id!r}: use [a-z0-9_]+")
        if self.check not in _CHECKS:
            raise ValueError(f"secret rule {self.id}: check must be one of {', '.join(_CHECKS)}")
        if self.block not in ("", "pem", "indented"):
            raise ValueError(f'secret rule {self.id}: block must be "pem" or "indented"')
        if re.search(r"\(\?[=!<]|\\[1-9]", self.pattern):
            raise ValueError(f"secret rule {self.id}: no lookaround or backreferences (Hyperscan)")
        if not self.label:
            object.__setattr__(self, "label", self.id)

    @property
    def flags(self) -> int:
        """Python `re` flags matching Hyperscan's byte semantics with HS_FLAG_MULTILINE."""
        return re.ASCII | re.MULTILINE | (re.IGNORECASE if self.caseless else 0)


def load_rules(path: Path = RULES_PATH) -> tuple[SecretRule, ...]:
    """Read `[[rule]]` tables; an unknown field or a bad regex fails here, naming the rule."""
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    rules = []
    for table in raw.get("rule", []):
        rule = SecretRule(**table)
        try:
            re.compile(rule.pattern, rule.flags)
        except re.error as exc:
            raise ValueError(f"{path.name}: rule {rule.id}: invalid regex: {exc}") from exc
        rules.append(rule)
    ids = [r.id for r in rules]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path.name}: rule ids repeat")
    return tuple(rules)


def decide(rule: SecretRule, text: str, start: int, s: int, e: int) -> str | None:
    """The label to mask `text[s:e]` with, or None to keep it (the regex may over-report; this decides).

    `start` is where the rule's match began: for `named`/`adjacent` the key name lies in between.
    """
    value, check = text[s:e], rule.check
    if value.startswith("[MASKED:") or sc.MASK_TOKENS.fullmatch(value):
        return None  # masked already (a value rule may see a mask token without its closing `]`)
    if check in ("named", "adjacent"):
        if text.startswith(("${", "$("), max(start - 1, 0)):
            return None  # the name inside a `${NAME:?msg}` reference, not an assignment
        name = sc.name_of(text[start:s])
        grade = sc.strength(name)
        ok = grade is not None and (
            sc.value_is_secret(grade, value) if check == "named" else sc.high_entropy(value)
        )
        return sc.label_of(name) if ok else None
    checks: dict[Check, Callable[[], bool]] = {
        "none": lambda: True,
        "url": lambda: not _URL_PLACEHOLDER.fullmatch(value),
        "pem_b64": lambda: sc.b64_pem_key(value),
        "b64_json": lambda: sc.b64_secret_json(value),
        "value": lambda: not (sc.PLACEHOLDER.fullmatch(value) or value.lower() in sc.STOPWORDS),
        "token": lambda: sc.token_like(value),
        "entropy": lambda: sc.high_entropy(value),
    }
    return rule.label if checks[check]() else None
