"""Asks naming fields an error line prints: "DistNetworkError fields: useIpv6 and code?", "gfp_mask in
the oom-killer line?", "what's the errno `code` it printed?".

Why: a message naming a field (`useIpv6`, `code`, `gfp_mask`) matched no intent, or the memory answer,
and the field's value, printed in one of this job's lines, was never said. Here each field the message
names is read from the job's own lines (`key: value` or `key=value`) and said as printed, with the line.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_fields as tx
from knowledge import answer_grounds
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import Match

#: a `key: value` / `key=value` field of a line (`useIpv6: false`, `code: -98`, `gfp_mask=0x140cca(…)`)
_FIELD = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)(?=(?::\s*|=)(-?[A-Za-z0-9_.x]+))")
#: a key that reads as a field name by itself: snake_case or camelCase (`gfp_mask`, `useIpv6`)
_NAMED = re.compile(r"_|[a-z][A-Z]")
#: the message calls them fields, or asks what a line printed
_FIELD_WORDS = re.compile(r"\bfields?\b|\bprint(?:s|ed)?\b|\bin the [\w-]+ line\b|\bvalues?\b")
#: a class name (`DistNetworkError: The …`), not a field
_CLASS = re.compile(r"[A-Z][a-z]")
#: the message names a rank
_RANK = re.compile(r"\branks?\s*\d|\brank(?:s)? (?:zero|one|two|three)\b")
#: keys that are not fields an asker means (times, log prefixes)
_SKIP = frozenset({"info", "warning", "error", "http", "https", "rank", "pid"})


def _asked(key: str, text: str, lower: str, loose: bool) -> bool:
    """The message names `key` (as a whole word), as a field name or in a message about fields."""
    if key.lower() in _SKIP or len(key) < 3 or _CLASS.match(key):
        return False
    if not re.search(rf"(?<![\w-]){re.escape(key.lower())}(?![\w-])", lower):
        return False
    # the message gives its value itself ("mem_alloc was ~61GiB", `useIpv6: false`): not asked
    if re.search(
        rf"(?<![\w-]){re.escape(key.lower())}\s*(?:[:=]|was|is|of|at)\s*~?-?\d|(?<![\w-]){re.escape(key.lower())}\s*[:=]",
        lower,
    ):
        return False
    return bool(_NAMED.search(key)) or loose


def fields(c: Ctx, m: Match) -> Reply | None:
    """Each field the message names, as this job's line prints it, with the line; None when the message
    names no field printed in a line, or names only plain words outside a question about fields."""
    text = m.text
    lower = text.lower()
    if _RANK.search(lower):  # a rank's own field is that rank's line's, not the first line's
        return None
    loose = bool(_FIELD_WORDS.search(lower))
    found: dict[str, tuple[str, EvidenceLine]] = {}
    for ln in [*c.view.key_line(), *answer_grounds.all_lines(c)]:
        for key, value in _FIELD.findall(ln.text):
            if key.lower() not in found and _asked(key, text, lower, loose):
                found[key.lower()] = (f"{key}{'=' if f'{key}=' in ln.text else ': '}{value}", ln)
    if not found or not any(_NAMED.search(f.split("=")[0].split(":")[0]) for f, _ in found.values()):
        return None
    lines: list[EvidenceLine] = []
    for _, ln in found.values():
        if ln not in lines:
            lines.append(ln)
    parts = [tx.FIELD.format(field=f, ref=ref(ln)) for f, ln in found.values()]
    return reply("quote", tx.FIELDS.format(fields="; ".join(parts)), lines)


__all__ = ["fields"]
