"""The incident history: every posted diagnosis, remembered per cluster, bounded, written once.

Each diagnosis the worker posts becomes one `Incident`, recorded in the same posting step that
marks the job posted (`workers.posting`, just before the journal's `finish`), so a retry that
finds the thread already in Slack records nothing new: the write is one Lua script that does
nothing when the occurrence was recorded before. It also trims the cluster to the last
`DENPEX_HISTORY_MAX` incidents within `DENPEX_HISTORY_DAYS` of the newest one and bumps the
counters `/metrics` shows, so counts and history never disagree.

Plans: history is a Scale-plan feature. On the free plan an incident keeps only what node-health
advice needs (when, which node started it, which nodes carried which hardware signals) and no job
id, category, headline or link; its member is a digest of the occurrence, not the job key.

Keys (all under `denpex:incidents:`):

- `index:{cluster}`  — sorted set: occurrence digest → incident time.
- `data:{cluster}`   — hash: occurrence digest → `Incident` JSON.
- `seen:{digest}`    — once-only marker of a recorded occurrence (outlives trimming for the window).
- `clusters`         — set of clusters with incidents (`/denpex nodes`, `/denpex history`).
- `stats`, `stats:nodes` — counters: `[cluster, category]` and `[cluster, node, class]` → count.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass

import redis
import structlog
from pydantic import BaseModel, Field, ValidationError

from denpex.core.settings import Settings
from workers.store import as_str

PREFIX = "denpex:incidents:"
CLUSTERS = f"{PREFIX}clusters"
STATS = f"{PREFIX}stats"
NODE_STATS = f"{PREFIX}stats:nodes"
_DAY = 86400

log = structlog.get_logger("denpex.incidents")

# KEYS: index, data, seen, clusters, stats, node stats
# ARGV: member, score, json, max, cutoff, ttl, cluster, stats field, node stats fields...
# -> 1 when recorded now, 0 when this occurrence was recorded before
_RECORD = """
if not redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[6]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[5])
local extra = redis.call('ZCARD', KEYS[1]) - #gone - tonumber(ARGV[4])
if extra > 0 then
  for _, m in ipairs(redis.call('ZRANGE', KEYS[1], #gone, #gone + extra - 1)) do table.insert(gone, m) end
end
for _, m in ipairs(gone) do
  redis.call('ZREM', KEYS[1], m)
  redis.call('HDEL', KEYS[2], m)
end
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('EXPIRE', KEYS[2], ARGV[6])
redis.call('SADD', KEYS[4], ARGV[7])
redis.call('HINCRBY', KEYS[5], ARGV[8], 1)
for i = 9, #ARGV do redis.call('HINCRBY', KEYS[6], ARGV[i], 1) end
return 1
"""

# KEYS: data | ARGV: member, json -> 1 when the incident was still there and was replaced
_REPLACE = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""


class NodeSignal(BaseModel):
    """One hardware-class signal a node carried in one incident (`Xid 79`, `MCE`, `PCIe AER`)."""

    label: str
    #: `fallen_off_bus`, `ecc`, `nvlink`, `gpu`, `mce`, `pcie_aer` (the metric's `class` label)
    kind: str
    #: the Xid catalogue says the node must come out at once (`reboot_node`, `drain_rma`)
    drain: bool = False


class Incident(BaseModel):
    """One posted diagnosis as the history keeps it (already masked: built from a masked diagnosis)."""

    member: str
    cluster: str
    scheduler: str
    at: float
    node: str | None = None
    signals: dict[str, list[NodeSignal]] = Field(default_factory=dict)
    # -- Scale plan only: cleared by `node_health_only`
    job_key: str | None = None
    job_id: str | None = None
    category: str | None = None
    entry: str | None = None
    rank: int | None = None
    nodes: list[str] = Field(default_factory=list)
    headline: str | None = None
    permalink: str | None = None
    job_name: str | None = None
    #: what fixed it, as someone in the workspace recorded it (`/denpex solved`), masked
    fix: str | None = None

    def node_health_only(self) -> Incident:
        """What the free plan keeps: the node-health facts, nothing that names the job."""
        keep = {"member", "cluster", "scheduler", "at", "node", "signals"}
        return Incident.model_validate(self.model_dump(include=keep))

    @property
    def hardware_nodes(self) -> list[str]:
        return sorted(n for n, sigs in self.signals.items() if sigs)


def occurrence_member(job_key: str, received_at: float) -> str:
    """The history's id of one occurrence of a job: the same across RQ retries (they read the same
    record), a new one when the job is reported again; a digest, so it does not name the job."""
    return hashlib.sha256(f"{job_key}@{received_at:.6f}".encode()).hexdigest()[:24]


@dataclass(frozen=True)
class HistoryLimits:
    max_incidents: int = 500
    days: int = 30

    @classmethod
    def from_settings(cls, settings: Settings) -> HistoryLimits:
        return cls(settings.history_max_incidents, settings.history_days)


def _field(*parts: str) -> str:
    return json.dumps(list(parts))


class IncidentBook:
    """Reads and writes the incident history (sync: the worker, and the bot through a thread)."""

    def __init__(self, client: redis.Redis, limits: HistoryLimits | None = None) -> None:
        self.r = client
        self.limits = limits or HistoryLimits()
        self._record = client.register_script(_RECORD)
        self._replace = client.register_script(_REPLACE)

    @staticmethod
    def index_key(cluster: str) -> str:
        return f"{PREFIX}index:{cluster}"

    @staticmethod
    def data_key(cluster: str) -> str:
        return f"{PREFIX}data:{cluster}"

    def record(self, incident: Incident, *, full: bool) -> bool:
        """Record one posted diagnosis once; False when this occurrence was recorded before."""
        stored = incident if full else incident.node_health_only()
        ttl = self.limits.days * _DAY
        node_fields = [_field(incident.cluster, incident.node, "initiating")] if incident.node else []
        for node, sigs in sorted(incident.signals.items()):
            node_fields += [_field(incident.cluster, node, kind) for kind in sorted({s.kind for s in sigs})]
        keys = [
            self.index_key(incident.cluster),
            self.data_key(incident.cluster),
            f"{PREFIX}seen:{incident.member}",
            CLUSTERS,
            STATS,
            NODE_STATS,
        ]
        args: list[str | int | float] = [
            incident.member,
            incident.at,
            stored.model_dump_json(exclude_defaults=True),
            self.limits.max_incidents,
            incident.at - ttl,
            ttl,
            incident.cluster,
            _field(incident.cluster, incident.category or "unknown"),
            *node_fields,
        ]
        return bool(self._record(keys=keys, args=args))

    def record_fix(self, job_id: str, note: str) -> Incident | None:
        """Store what fixed job `job_id` (its newest incident, any cluster); `note` is masked by the
        caller. None when the history has no such job (or only its node-health form)."""
        found = [i for i in self.all_incidents() if i.job_id == job_id]
        if not found:
            return None
        newest = max(found, key=lambda i: i.at).model_copy(update={"fix": note})
        args = [newest.member, newest.model_dump_json(exclude_defaults=True)]
        return newest if self._replace(keys=[self.data_key(newest.cluster)], args=args) else None

    def clusters(self) -> list[str]:
        return sorted(as_str(c) for c in self.r.smembers(CLUSTERS))

    def incidents(self, cluster: str) -> list[Incident]:
        """The cluster's incidents, oldest first. One that no longer reads (written by another
        version) is skipped and logged: a bad record must not stop every post on its cluster."""
        members = [as_str(m) for m in self.r.zrange(self.index_key(cluster), 0, -1)]
        if not members:
            return []
        found = []
        for member, raw in zip(members, self.r.hmget(self.data_key(cluster), members), strict=True):
            if raw is None:
                continue
            try:
                found.append(Incident.model_validate_json(raw))
            except ValidationError:
                log.warning("incident_unreadable", cluster=cluster, member=member)
        return found

    def all_incidents(self) -> Iterator[Incident]:
        for cluster in self.clusters():
            yield from self.incidents(cluster)

    def counts(self) -> tuple[dict[tuple[str, ...], int], dict[tuple[str, ...], int]]:
        """The `/metrics` counters: (cluster, category) → n and (cluster, node, class) → n."""

        def read(key: str) -> dict[tuple[str, ...], int]:
            return {tuple(json.loads(as_str(k))): int(v) for k, v in self.r.hgetall(key).items()}

        return read(STATS), read(NODE_STATS)
