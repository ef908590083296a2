"""A log relayed through syslog is read as the job printed it, on the node the relay names.

A job whose output goes through rsyslog or journald (a systemd unit, `logger`, a container runtime's
syslog driver, a node's log file copied off the cluster) reaches us with a header on every line:
rsyslog's traditional file format `May  1 10:00:00 gpu-node-01 python3[48213]: `, its high-precision
format `2024-05-01T10:00:00.123456+00:00 gpu-node-01 python3[48213]: `, journalctl's short format
`May 01 10:00:00 gpu-node-01 python3[48213]: ` (short-iso and short-precise alike). The host is the
node; the tag and pid name the relaying process, not a rank. Read as it is, the tag stands where a
signature's line anchor expects the job's text, and `python3[48213]:` looks like a label. So when
nearly every one of the first lines carries such a header from a few hosts, each line keeps its stamp
(the time the relay received it) and loses the host and tag, streamed like knowledge/labels.py. The
host is not made the source's node: the job's own lines (NCCL's `host:pid:tid`) and the kernel log's
name already name it where it matters, and a relay's spelling of it (an FQDN, `localhost`) would
split one node in two and cost the initiating rank (2 corpus cases did when it was set).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator

from denpex.core.models import LogSource
from knowledge import unwrap
from knowledge.dockerlog import head, lines, raw_chunks, rechunk
from knowledge.labels import _HOST, MAX_PDSH_HOSTS, MIN_STERN_LINES, SHARE

_MONTH = rb"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
#: RFC 3164 / journalctl short(-precise), and RFC 3339 (rsyslog's high-precision format, short-iso)
_STAMP = (
    rb"(?:" + _MONTH + rb" +[0-9]{1,2} [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?"
    rb"|[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:?[0-9]{2}))"
)
#: the header: stamp, host, then the tag (`python3[48213]:`, `kernel:`, `train.sh:`) and one blank
HEADER = re.compile(
    rb"^((?:\x1b\[[0-9;]*m)*" + _STAMP + rb") ([A-Za-z0-9][A-Za-z0-9._-]{0,62}) "
    rb"[A-Za-z0-9_./@-]{1,64}(?:\[[0-9]{1,10}\])?: ?"
)
#: the cue in the first bytes, before any per-line work: a tag's `]: ` or a stamp's seconds and a blank
_CUE = re.compile(rb"[0-9]{2}:[0-9]{2}:[0-9]{2}[^ \n]{0,16} [A-Za-z0-9._-]{1,63} [^ \n:]{1,80}: ")


def strip(source: LogSource) -> LogSource:
    """The source without the relay's host and tag on each line (streamed), else the source itself."""
    if source.kind == "kernel" or source.chunks is not None:
        return source
    first = head(source)
    if first is None or _CUE.search(first) is None or recognise(first) is None:
        return source
    raw = raw_chunks(source)
    if unwrap.small(source):  # kept as data, so a hard wrap can still be undone (knowledge/unwrap.py)
        data = b"".join(unheader(raw()))
        return source.model_copy(update={"data": data, "path": None, "file": None})
    return source.model_copy(
        update={"chunks": lambda: unheader(raw()), "path": None, "data": None, "file": None}
    )


def recognise(text: bytes) -> set[bytes] | None:
    """The hosts of the relay's headers when nearly every one of the first lines carries one from a
    few hosts (a short excerpt: every line), else None."""
    sample = [ln for ln in text.split(b"\n")[:-1] if ln.strip()] or [
        ln for ln in text.split(b"\n") if ln.strip()
    ]
    found = [m.group(2) if (m := HEADER.match(ln)) and _HOST.match(m.group(2)) else None for ln in sample]
    hosts = Counter(h for h in found if h is not None)
    labelled = sum(hosts.values())
    need = SHARE * len(sample) if len(sample) >= MIN_STERN_LINES else len(sample)
    if not hosts or labelled < need or len(hosts) > MAX_PDSH_HOSTS:
        return None
    return set(hosts)


def unheader(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Each line with its stamp and without the relay's host and tag (other lines pass as they are)."""
    return rechunk(HEADER.sub(rb"\1 ", line, count=1) + b"\n" for line in lines(chunks))
