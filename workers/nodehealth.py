"""Node health: which nodes keep failing, from the incident history, and when to advise a drain.

A node counts an incident when it was the initiating node, or when its kernel log carried a
hardware-class signal: an Xid the catalogue (`knowledge/data/xid.toml`) marks as hardware, or a
machine check, PCIe AER, ECC or NVLink error. Application-level Xids (13, 31, 43, 45: user code or
collateral) never count against a node. The thread of a new failure names each implicated node's
record ("gpu-07 was the initiating node in 3 of the last 5 failed jobs (Xid 79 twice, …)") and, when
the catalogue or the count says so, the scheduler's drain command and the checks that clear it.
Advice only: nothing here acts on a node.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import structlog
from pydantic import BaseModel, Field
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from denpex.core.models import Diagnosis, EvidenceLine, JobRef, PastIncident
from denpex.core.plans import Plan
from denpex.core.texts import incidents as texts
from knowledge.facts import load_catalogue, parse_xid
from knowledge.schema import Xid
from workers.context import WorkerContext
from workers.incidents import HistoryLimits, Incident, IncidentBook, NodeSignal

log = structlog.get_logger("denpex.nodehealth")

#: Xid catalogue actions that take a node out at once, whatever the count
DRAIN_ACTIONS = frozenset({"reboot_node", "drain_rma"})
#: earlier incidents named (with links) per node in a thread
EARLIER_SHOWN = 3

#: kernel-log formats of hardware faults that are not Xids: (label, class, pattern)
_TEXT_SIGNALS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    (
        "MCE",
        "mce",
        re.compile(r"mce: \[Hardware Error\]|Machine Check Exception|Machine check events logged"),
    ),
    ("PCIe AER", "pcie_aer", re.compile(r"\bAER: (?:Uncorrected|Corrected|Multiple)|PCIe Bus Error")),
    ("ECC", "ecc", re.compile(r"EDAC \S+: .*\b(?:UE|CE)\b|uncorrectable ECC|double[- ]bit ECC", re.I)),
    (
        "NVLink",
        "nvlink",
        re.compile(r"NVRM: .*NVLink.*(?:error|fatal|fault)|nvswitch.*(?:fatal|error)", re.I),
    ),
    ("fell off the bus", "fallen_off_bus", re.compile(r"GPU has fallen off the bus", re.I)),
)


def xid_kind(row: Xid) -> str:
    """The metric's `class` of a hardware Xid, from its catalogue row."""
    if row.code == 79:
        return "fallen_off_bus"
    if row.entry == "xid-ecc-memory-error":
        return "ecc"
    if row.entry == "xid-nvlink-error" or row.action == "check_fabric":
        return "nvlink"
    return "gpu"


def line_signal(text: str, catalogue: Mapping[int, Xid]) -> NodeSignal | None:
    """The hardware-class signal of one kernel line, or None (application Xids are None too)."""
    event = parse_xid(text)
    if event is not None:
        row = catalogue.get(event.code)
        if row is None or not row.hardware:
            return None
        return NodeSignal(label=f"Xid {row.code}", kind=xid_kind(row), drain=row.action in DRAIN_ACTIONS)
    for label, kind, pattern in _TEXT_SIGNALS:
        if pattern.search(text):
            return NodeSignal(label=label, kind=kind)
    return None


def node_signals(lines: Iterable[EvidenceLine], catalogue: Mapping[int, Xid]) -> list[NodeSignal]:
    """One signal per label; a text form of a fault an Xid already names (its class) is dropped."""
    found: dict[str, NodeSignal] = {}
    for line in lines:
        sig = line_signal(line.text, catalogue)
        if sig is not None:
            found.setdefault(sig.label, sig)
    xid_kinds = {s.kind for s in found.values() if s.label.startswith("Xid ")}
    return [s for s in found.values() if s.label.startswith("Xid ") or s.kind not in xid_kinds]


def build_incident(
    member: str, job: JobRef, d: Diagnosis, at: float, headline: str, catalogue: Mapping[int, Xid]
) -> Incident:
    """The incident of one posted diagnosis (the diagnosis is masked; so is `headline`)."""
    signals = {node: sigs for node, lines in d.nodes.items() if (sigs := node_signals(lines, catalogue))}
    node = d.initiating.node
    others = sorted(({n for n, lines in d.nodes.items() if lines} | set(signals)) - {node or ""})
    return Incident(
        member=member,
        cluster=job.cluster,
        scheduler=job.scheduler.value,
        at=at,
        node=node,
        signals=signals,
        job_key=job.key,
        job_id=job.job_id if not job.namespace else f"{job.namespace}/{job.job_id}",
        category=d.category,
        entry=d.entry.id if d.entry else None,
        rank=d.initiating.rank,
        nodes=others,
        headline=headline,
        job_name=job.name,
    )


class Earlier(BaseModel):
    job: str
    at: float
    permalink: str | None = None


class NodeRecord(BaseModel):
    """One node's record over the history (the new incident included), and the advice it earns."""

    node: str
    scheduler: str
    #: incidents of the cluster since this node's first one (the "of the last N failed jobs")
    total: int
    #: incidents this node is part of (initiating, or carrying a hardware signal)
    incidents: int
    initiating: int
    #: hardware labels and how many incidents carried each, most frequent first
    counts: list[tuple[str, int]] = Field(default_factory=list)
    since: float
    last: float
    earlier: list[Earlier] = Field(default_factory=list)
    #: why draining is advised: `catalogue` (an Xid says so) or `count` (DENPEX_DRAIN_AFTER reached)
    drain: str | None = None
    drain_label: str | None = None

    @property
    def hardware(self) -> int:
        return sum(n for _, n in self.counts)


class NodeHistory(BaseModel):
    """What the thread of a new failure says from the history (typed, rendered by the bot): its
    implicated nodes' records, and earlier incidents of the same failure mode."""

    nodes: list[NodeRecord] = Field(default_factory=list)
    seen: list[PastIncident] = Field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.nodes or self.seen)


def seen_before(
    incident: Incident, earlier: Sequence[Incident], limit: int = EARLIER_SHOWN
) -> list[PastIncident]:
    """Up to `limit` earlier incidents of the same entry (Scale: the free plan keeps no entry): those
    on the same node first, then the same job name, then the rest, newest first within each."""
    if incident.entry is None:
        return []
    same = [i for i in earlier if i.entry == incident.entry and i.member != incident.member and i.job_id]

    def rank(i: Incident) -> tuple[int, float]:
        if incident.node and i.node == incident.node:
            return 0, -i.at
        if incident.job_name and i.job_name == incident.job_name:
            return 1, -i.at
        return 2, -i.at

    return [
        PastIncident(job=i.job_id or "", at=i.at, node=i.node, permalink=i.permalink, fix=i.fix)
        for i in sorted(same, key=rank)[:limit]
    ]


def _involved(incident: Incident, node: str) -> bool:
    return incident.node == node or bool(incident.signals.get(node))


def node_record(node: str, history: Sequence[Incident], drain_after: int) -> NodeRecord | None:
    """`node`'s record over `history` (oldest first); None if it has no incident. Drain advice and
    `earlier` are relative to the node's last incident (in a thread: the new one)."""
    mine = [i for i in history if _involved(i, node)]
    if not mine:
        return None
    counts: Counter[str] = Counter()
    for incident in mine:
        counts.update({s.label for s in incident.signals.get(node, [])})
    last = mine[-1]  # in a thread: the new incident
    catalogue = next((s.label for s in last.signals.get(node, []) if s.drain), None)
    hardware = sum(1 for i in mine if i.signals.get(node))
    drain = "catalogue" if catalogue else ("count" if hardware >= drain_after else None)
    since = mine[0].at
    return NodeRecord(
        node=node,
        scheduler=last.scheduler,
        total=sum(1 for i in history if i.at >= since),
        incidents=len(mine),
        initiating=sum(1 for i in mine if i.node == node),
        counts=sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])),
        since=since,
        last=last.at,
        earlier=[
            Earlier(job=i.job_id, at=i.at, permalink=i.permalink) for i in reversed(mine[:-1]) if i.job_id
        ][:EARLIER_SHOWN],
        drain=drain,
        drain_label=catalogue,
    )


def thread_history(incident: Incident, earlier: Sequence[Incident], drain_after: int) -> NodeHistory:
    """What the thread of `incident` says from the history: its initiating node and the nodes that
    carried a hardware signal, each named when it has a hardware signal (now or before) and either an
    earlier incident or drain advice (a node with only software failures is left to the job's own
    diagnosis); and the earlier incidents of the same failure mode (`seen_before`)."""
    history = [*sorted((i for i in earlier if i.member != incident.member), key=lambda i: i.at), incident]
    names = ([incident.node] if incident.node else []) + [
        n for n in incident.hardware_nodes if n != incident.node
    ]
    records = []
    for name in names:
        record = node_record(name, history, drain_after)
        if record is not None and record.hardware and (record.incidents > 1 or record.drain):
            records.append(record)
    return NodeHistory(nodes=records, seen=seen_before(incident, earlier))


def ranked_nodes(incidents: Iterable[Incident], drain_after: int) -> list[tuple[str, NodeRecord]]:
    """Every node with incidents, worst first (hardware faults, then initiations, then recency):
    `/denpex nodes`. Each is (cluster, record)."""
    by_cluster: dict[str, list[Incident]] = {}
    for incident in incidents:
        by_cluster.setdefault(incident.cluster, []).append(incident)
    rows: list[tuple[str, NodeRecord]] = []
    for cluster, items in by_cluster.items():
        items.sort(key=lambda i: i.at)
        names = {i.node for i in items if i.node} | {n for i in items for n in i.hardware_nodes}
        for name in names:
            record = node_record(name, items, drain_after)
            if record is not None:
                rows.append((cluster, record))
    rows.sort(key=lambda cr: (-cr[1].hardware, -cr[1].initiating, -cr[1].incidents, -cr[1].last, cr[1].node))
    return rows


def permalink(client: WebClient, channel: str, ts: str) -> str | None:
    """The thread's Slack link (`chat.getPermalink`; else built from `auth.test`'s workspace URL).
    A link is a nicety: no answer means no link, never a failed post."""
    try:
        return str(client.chat_getPermalink(channel=channel, message_ts=ts)["permalink"])
    except SlackApiError:
        pass
    except OSError:
        return None
    try:
        base = str(client.auth_test()["url"]).rstrip("/")
    except (SlackApiError, OSError, KeyError):
        return None
    return f"{base}/archives/{channel}/p{ts.replace('.', '')}"


@dataclass(frozen=True)
class IncidentStep:
    """The history's part of posting one diagnosis: the thread's node lines, computed before the
    post, and the incident, recorded (once) in the step that records the post."""

    book: IncidentBook
    incident: Incident
    history: NodeHistory | None
    full: bool
    client: WebClient

    def record(self, channel: str, ts: str) -> None:
        link = permalink(self.client, channel, ts) if self.full else None
        if self.book.record(self.incident.model_copy(update={"permalink": link}), full=self.full):
            log.info("incident_recorded", cluster=self.incident.cluster, node=self.incident.node)


def incident_step(
    ctx: WorkerContext, job: JobRef, diagnosis: Diagnosis, member: str, at: float, plan: Plan
) -> IncidentStep:
    """Read the cluster's history and prepare this diagnosis' incident (free plan: node health only)."""
    assert ctx.slack is not None  # only posted diagnoses become incidents
    book = IncidentBook(ctx.redis, HistoryLimits.from_settings(ctx.settings))
    d = diagnosis
    title = d.entry.title if d.entry else d.category
    headline = ctx.masker.mask(texts.headline(title, d.initiating.rank, d.initiating.node))
    incident = build_incident(member, job, d, at, headline, load_catalogue())
    history = thread_history(incident, book.incidents(job.cluster), ctx.settings.drain_after)
    full = plan is not Plan.free
    if not full:  # "seen before" is history, a Scale feature; node health is every plan's
        history = history.model_copy(update={"seen": []})
    return IncidentStep(book, incident, None if history.empty else history, full, ctx.slack)


def earlier_of(history: Iterable[Incident], job_key: str, entry_id: str | None) -> list[PastIncident]:
    """The follow-up "has this happened before?": earlier incidents of `entry_id` than job `job_key`'s
    newest one, as the thread's "Seen before" orders them."""
    mine = [i for i in history if i.job_key == job_key]
    if entry_id is None:
        return []
    others = [i for i in history if i.job_key != job_key]
    if mine:
        return seen_before(max(mine, key=lambda i: i.at), others)
    return seen_before(Incident(member="", cluster="", scheduler="", at=0.0, entry=entry_id), others)
