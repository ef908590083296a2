"""A local module that shadows a library: `ImportError: cannot import name 'Dataset' from 'datasets'
(./torchtitan/datasets/__init__.py)` raised by `./torchtitan/datasets/hf_datasets.py`.

Why: `cannot import name` is most often two package versions that don't fit, but when the top-level
module resolved to a file in the importing file's own folder (the script's folder is `sys.path[0]`, so a
`datasets/` or `datasets.py` beside it hides the installed library), no version is wrong: the project's
layout is, and renaming the folder or running with `python -m` fixes it. A module resolved to another
tree (a checkout of Megatron beside NeMo) stays a version question. CPython's own wording for the other
code-side case, a circular import, is matched by the user-code entry's signature.
"""

from __future__ import annotations

import posixpath
import re

from knowledge.signals import Job
from knowledge.verdict import Verdict

ENV_ENTRY, CODE_ENTRY = "env-import-undefined-symbol", "python-user-code-error"
_CANNOT = re.compile(r"cannot import name '(?P<name>[\w.]+)' from '(?P<module>\w+)' \((?P<path>[^)]+)\)")
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line \d+')
_INSTALLED = re.compile(r"/(?:site|dist)-packages/|/lib/python3")


def shadowed(job: Job, v: Verdict) -> tuple[str, str] | None:
    """(module, path) when the verdict's import error found a top-level module in a folder of the
    project that holds the importing file (not among the installed packages); None otherwise."""
    if v.entry is None or v.entry.id != ENV_ENTRY or not v.evidence:
        return None
    hit = v.evidence[0].hit
    m = _CANNOT.search(hit.text)
    if m is None or _INSTALLED.search(m["path"]):
        return None
    frames = [f for line in hit.before if (f := _FRAME.search(line))]
    if not frames:
        return None
    path = posixpath.normpath(m["path"])
    module_dir = posixpath.dirname(path)  # `…/datasets/__init__.py` -> `…/datasets`; `…/datasets.py` -> `…`
    entry = posixpath.dirname(module_dir) if posixpath.basename(path) == "__init__.py" else module_dir
    importer = posixpath.normpath(posixpath.dirname(frames[-1]["file"]))
    if importer == entry or importer.startswith(entry.rstrip("/") + "/"):
        return m["module"], m["path"]
    return None


def as_code_error(job: Job, v: Verdict, reason: str) -> None:
    """Name the project's layout instead of the versions; the version entry stays an alternative."""
    code = job.entries.get(CODE_ENTRY)
    if code is None or v.entry is None:
        return
    v.alternatives = [v.entry, *(a for a in v.alternatives if a.id != CODE_ENTRY)]
    v.scores.setdefault(CODE_ENTRY, v.scores.get(v.entry.id, 0.0))
    v.lost_why[v.entry.id] = reason
    v.entry, v.category = code, code.category
