"""Texts of the "anything sensitive in these logs?" answer (knowledge/answer_secrets.py).

Kept apart so the wording is reviewed in one place: it must name where a secret was and its kind,
never its value, and say honestly that only the lines Denpex kept were looked at.
"""

from __future__ import annotations

FOUND = (
    "Yes: {where}. Denpex masked {them} (`[MASKED:<rule>]`) before storing or posting anything, but "
    "the raw {file} still holds the value: rotate that credential now, and paste the masked lines, "
    "not the raw file."
)
NONE_IN = (
    "No secret-looking value was in the lines Denpex kept from {file}; it masks tokens, keys and "
    "passwords before anything is stored or posted."
)
ELSEWHERE = "Another log had one masked, though ({where}): rotate that credential."
ONLY_KEPT = (
    "I only checked the {count} line(s) Denpex kept from {file}, not the whole file: scan it all before "
    "pasting, e.g. `{scan}` (or a secret scanner: `gitleaks detect --no-git --source {file}`)."
)
SCAN = "grep -nEi '(token|secret|passw(or)?d|api[_-]?key|authorization)|hf_[A-Za-z0-9]{{20,}}' {file}"
