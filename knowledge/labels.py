"""A label a multiplexing tool puts before every line: `docker compose logs`, `kubectl logs --prefix`,
stern, and pdsh (DeepSpeed's multi-node launcher: `worker-1: …`).

`docker compose logs` prints `trainer-1  | Traceback (most recent call last):`, `kubectl logs --prefix`
prints `[pod/llama-worker-0/pytorch] …`, stern prints `llama-worker-0 pytorch …` and pdsh, which
DeepSpeed's launcher runs on every node of a multi-node job, prints `worker-1: [rank9]: …`. Read as they are,
no line of such a log starts where a signature's anchor expects it, and a traceback's frames do not
look like frames. These labels are per-source constants (one service, pod or container per line), not
part of what the job printed, so the source is rewritten without them before the scan, streaming (a
log can be gigabytes, so it is never held whole), the way knowledge/dockerlog.py decodes Docker's JSON.

The form is recognised from the source's first lines only when nearly all of them carry it: a label
that appears on a few lines is text, and a log that merely starts with two words is not a stern log
(stern's labels must also be few, recurring, and look like Kubernetes names; pdsh's must be few host
names, and only the hosts recognised are stripped, so `RuntimeError: …` is never taken for a host).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator

from denpex.core.models import LogSource
from knowledge import unwrap
from knowledge.dockerlog import head, lines, raw_chunks, rechunk

#: the share of the first non-empty lines that must carry the label, and how many lines that takes:
#: a short excerpt needs every line labelled, and stern's two bare words need a longer sample
SHARE, MIN_LINES, MIN_STERN_LINES = 0.8, 1, 5
#: stern's labels are pods and containers: a few of them, each recurring
MAX_STERN_LABELS = 8

_COLOUR = rb"(?:\x1b\[[0-9;]*m)*"
#: `docker compose logs` (v2 `trainer-1  | `, v1 `trainer_1  | `), colours around the name and the bar
_COMPOSE = re.compile(
    rb"^" + _COLOUR + rb"[A-Za-z0-9][A-Za-z0-9_.-]{0,62} *" + _COLOUR + rb"\|" + _COLOUR + rb" ?"
)
#: `kubectl logs --prefix`: `[pod/<name>/<container>] `
_KUBECTL = re.compile(rb"^\[pod/[^\]\s/]{1,253}/[^\]\s/]{1,63}\] ")
#: stern's default template: `<pod> <container> ` (a pod name has a hyphen: `<job>-worker-0`)
_STERN = re.compile(
    rb"^"
    + _COLOUR
    + rb"([a-z0-9][a-z0-9.]*-[a-z0-9.-]{1,250}) "
    + _COLOUR
    + rb"([a-z0-9][a-z0-9-]{0,62}) "
    + _COLOUR
)

#: the end of a pod's name: a replica index or the random suffix of a ReplicaSet or a Job's pod
_POD = re.compile(rb"-(?:[0-9]{1,5}|[a-z0-9]{5})$")
#: pdsh's `<host>: ` (DeepSpeed's launcher prints its own lines unlabelled before the nodes' output)
_PDSH = re.compile(rb"^" + _COLOUR + rb"([A-Za-z0-9][A-Za-z0-9._-]{0,62}): ")
#: a host name as clusters write them: lower case, with a digit, a hyphen or a dot (`worker-1`,
#: `node003`, `10.0.0.7`), or localhost; srun's bare rank numbers (`3: `), words and exceptions
#: (`RuntimeError: `, `safetensors_rust.SafetensorError: `, `INFO: `) and `rank0: ` are not hosts
_HOST = re.compile(rb"(?=[a-z0-9.-]*[0-9.-])(?![0-9]+$)(?!rank[0-9]+$)[a-z0-9][a-z0-9.-]*$|localhost$")
MAX_PDSH_HOSTS = 64
#: how many unlabelled lines the launcher may print before the nodes' output starts
MAX_PREAMBLE = 12


def strip(source: LogSource) -> LogSource:
    """The source without the multiplexer's label on each line (streamed), else the source itself."""
    if source.kind == "kernel" or source.chunks is not None:
        return source
    first = head(source)
    label = None if first is None else recognise(first)
    if label is None:
        return source
    raw = raw_chunks(source)
    if unwrap.small(source):  # kept as data, so a hard wrap can still be undone (knowledge/unwrap.py)
        data = b"".join(unlabel(raw(), label))
        return source.model_copy(update={"data": data, "path": None, "file": None})
    return source.model_copy(
        update={"chunks": lambda: unlabel(raw(), label), "path": None, "data": None, "file": None}
    )


def recognise(text: bytes) -> re.Pattern[bytes] | None:
    """The label form nearly every one of the first lines carries, or None."""
    sample = [ln for ln in text.split(b"\n")[:-1] if ln.strip()] or [
        ln for ln in text.split(b"\n") if ln.strip()
    ]
    if len(sample) < MIN_LINES:
        return None
    need = SHARE * len(sample) if len(sample) >= MIN_STERN_LINES else len(sample)
    for form in (_COMPOSE, _KUBECTL):
        if sum(1 for ln in sample if form.match(ln)) >= need:
            return form
    if (hosts := _pdsh_hosts(sample)) is not None:
        names = b"|".join(re.escape(h) for h in sorted(hosts, key=len, reverse=True))
        return re.compile(rb"^" + _COLOUR + rb"(?:" + names + rb"): ")
    labels = Counter(m.group(1, 2) for ln in sample if (m := _STERN.match(ln)) is not None)
    if len(sample) < MIN_STERN_LINES and not (len(labels) == 1 and _POD.search(next(iter(labels))[0])):
        return None  # a short excerpt: one label throughout, named like a pod (`…-worker-0`, `…-7d9f8`)
    if labels and sum(labels.values()) >= need and len(labels) <= MAX_STERN_LABELS:
        return _STERN
    return None


def _pdsh_hosts(sample: list[bytes]) -> set[bytes] | None:
    """The hosts of pdsh's labels, when nearly every line from the first labelled one on carries one
    of a few host names (the launcher's own preamble before it is unlabelled), else None."""
    found = [m.group(1) if (m := _PDSH.match(ln)) and _HOST.match(m.group(1)) else None for ln in sample]
    first = next((i for i, h in enumerate(found) if h is not None), None)
    if first is None or first > MAX_PREAMBLE:
        return None
    rest = found[first:]
    hosts = Counter(h for h in rest if h is not None)
    labelled = sum(hosts.values())
    if len(hosts) > MAX_PDSH_HOSTS or labelled < SHARE * len(rest):
        return None
    if labelled < MIN_STERN_LINES and (first > 0 or len(hosts) != 1 or labelled < len(sample)):
        return None  # a short excerpt must carry one host on every line
    return set(hosts)


def unlabel(chunks: Iterable[bytes], label: re.Pattern[bytes]) -> Iterator[bytes]:
    """Each line without its label (a line without one passes as it is), as chunks again."""
    return rechunk(label.sub(b"", line, count=1) + b"\n" for line in lines(chunks))
