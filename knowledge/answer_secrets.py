"""The "anything sensitive in rank5.log before I paste it?" answer: where the masker replaced a secret.

The answer names each masked line (`source:line`), the rule that matched and the key it was set on
(`HF_TOKEN`), never the value, says to rotate it, and is honest about coverage: Denpex only ever saw
the lines it kept, so a file the message names is checked only there, with a command to scan it all.
"""

from __future__ import annotations

import re

from denpex.core.models import EvidenceLine
from denpex.core.texts import followups_secrets as ts
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.intents import Match

_MASKED = re.compile(r"\[MASKED:([a-z0-9_]+)\]")
#: the key a masked value was set on: `HF_TOKEN=[MASKED:…]`, `"api_key": "[MASKED:…]"`, `token [MASKED`
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*)[\"']?\s*[:=]?\s*[\"']?(?:Bearer\s+)?\[MASKED:")
#: a log file the message names ("rank5.log", "console.log", "node-gpu-01.dmesg")
_FILE = re.compile(r"\b[\w./-]+\.(?:log|txt|out|err|dmesg|json)\b")


def _pools(c: Ctx) -> list[EvidenceLine]:
    """Every line this diagnosis kept: the rank tails, the evidence and the node logs."""
    lines = [ln for tl in c.d.tails for ln in tl.lines] + list(c.view.evidence)
    return lines + [ln for node in c.d.nodes.values() for ln in node]


def _named_file(c: Ctx, text: str, lines: list[EvidenceLine]) -> str | None:
    """The kept log file the message names, matched on its base name; None when it names none."""
    sources = {ln.source for ln in lines}
    for word in _FILE.findall(re.sub(r"\brank (\d+)", r"rank\1", text)):
        base = word.rsplit("/", 1)[-1].lower()
        for src in sorted(sources):
            if src.lower() == word.lower() or src.rsplit("/", 1)[-1].lower() == base:
                return src
    return None


def _what(ln: EvidenceLine, rule: str) -> str:
    """One masked line in words: its place, its key (when one is written) and the masking rule."""
    key = _KEY.search(ln.text)
    named = f"`{key.group(1)}` " if key else ""
    return f"{ln.source}:{ln.line} has {named}masked by rule `{rule}` (a {rule.replace('_', ' ')})"


def _elsewhere(lines: list[EvidenceLine], file: str | None) -> str:
    """With a file named and clean: the other kept files where a secret was masked, if any."""
    if file is None:
        return ""
    other = sorted({f"{ln.source}:{ln.line}" for ln in lines if _MASKED.search(ln.text)})
    return " " + ts.ELSEWHERE.format(where=", ".join(other[:3])) if other else ""


def secrets(c: Ctx, m: Match) -> Reply:
    """Where a secret was masked in the kept lines (of the file named, if any), and how to check the rest."""
    lines = _pools(c)
    file = _named_file(c, m.text, lines)
    kept = {(ln.source, ln.line): ln for ln in lines if file is None or ln.source == file}
    hits = [(k, ln, f.group(1)) for k, ln in sorted(kept.items()) if (f := _MASKED.search(ln.text))]
    where_file = file or "the logs"
    said = (
        ts.FOUND.format(
            where="; ".join(_what(ln, rule) for _, ln, rule in hits[:3]),
            them="it" if len(hits) == 1 else "them",
            file=file or "log",
        )
        if hits
        else ts.NONE_IN.format(file=where_file) + _elsewhere(lines, file)
    )
    scan_file = file or "<logfile>"
    said += " " + ts.ONLY_KEPT.format(count=len(kept), file=scan_file, scan=ts.SCAN.format(file=scan_file))
    return reply("secrets", said, [ln for _, ln, _ in hits[:2]])
