"""A signature error quoted without the frame that made the call: read as two versions that don't fit.

`TypeError: X.save() takes 2 positional arguments but 3 were given` (or `got an unexpected keyword
argument`, `missing N required positional argument`) is CPython's check of a call against the installed
function's signature (`Python/ceval.c`). Who made the call decides the class: a call made by an installed
library is a version mismatch (`env-library-api-drift`, whose context pattern finds the library's frame
next to the error), one made by the project's own code is a code error. When a log holds only the error
lines (an issue's quoted lines, a log shipper that keeps the last line of each traceback), no frame says
who called, and the generic code entry would win on a bare exception line alone. The qualified name of
a library's method in the message and the usual cause (a framework and the library it calls installed
at releases never tested together) make the version entry the better reading; the code entry stays the
first alternative and the confidence stays at most inconclusive.

Only when the code entry's own evidence is generic (bare exception lines, below `WEAK_SCORE`): a shape
mismatch, a KeyError of a data field or any specific code signature keeps the code reading.
"""

from __future__ import annotations

import re

from knowledge.signals import Job, Signal
from knowledge.verdict import INCONCLUSIVE, WEAK_SCORE, Verdict

API_ENTRY, CODE_ENTRY = "env-library-api-drift", "python-user-code-error"
#: the version entry's signatures that are CPython's call-signature errors
SIGNATURE_IDS = frozenset({"signature-mismatch-call"})
# what a traceback puts around its exception line, wherever a relay's prefix or a paste's indent moved it:
# a frame header (`File "…", line N, in f`, the header alone), its header line, the carets under a frame's
# source (Python 3.11+); one of them stands within two lines of every exception line Python prints
_FRAMEISH = re.compile(r'File "|, line [0-9]+, in |Traceback \(most recent call last\)|[~^]{2,}[ \t\r]*$')

REASON = "no frame in the logs shows the project's code making the call the signature error is about"
NOTE = (
    "Only the error line was logged, not the traceback: no frame shows who made the call that does not "
    "fit the installed signature. A method of a library's class called with arguments its installed "
    "release does not take is most often two packages installed at releases never tested together; "
    "the full traceback (its last frame) would tell a library's call from the project's own."
)


def unframed_signature_errors(job: Job, v: Verdict) -> list[Signal]:
    """The version entry's signature-error lines when the verdict is a code error that rests on bare
    exception lines and none of those signature lines has a traceback frame next to it; [] otherwise."""
    if v.entry is None or v.entry.id != CODE_ENTRY or API_ENTRY not in job.entries:
        return []
    if sum({s.pattern.sig_id: s.pattern.weight for s in v.evidence}.values()) >= WEAK_SCORE:
        return []
    sigs = [s for s in job.signals if s.entry.id == API_ENTRY and s.pattern.sig_id in SIGNATURE_IDS]
    if not sigs or any(_framed(s) for s in sigs):
        return []
    return sorted(sigs, key=Signal.order)


def _framed(s: Signal) -> bool:
    """Does a traceback's frame (header, carets) stand next to the line? Above it as
    Python prints it; below it in a copy listed newest first or a logger that puts the message first."""
    return any(_FRAMEISH.search(line) for line in (*s.hit.before, *s.hit.after))


def as_api_drift(job: Job, v: Verdict, sigs: list[Signal]) -> None:
    """Name the versions instead of the code; the code entry stays the first alternative."""
    api = job.entries[API_ENTRY]
    if v.entry is None:
        return
    code = v.entry
    v.alternatives = [code, *(a for a in v.alternatives if a.id not in (API_ENTRY, CODE_ENTRY))][:4]
    v.scores.setdefault(API_ENTRY, sum({s.pattern.sig_id: s.pattern.weight for s in sigs}.values()))
    v.lost_why[code.id] = REASON
    v.entry, v.category = api, api.category
    v.evidence, v.context = sigs, []
    v.stamp = sigs[0].stamp
    v.confidence = min(v.confidence, INCONCLUSIVE)
    v.notes.append(NOTE)
