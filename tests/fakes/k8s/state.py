"""The fake API server's object store: resources, resourceVersions, watch history, selectors, logs.

Objects are kept as the JSON dicts the real API server sends (built from the `kubernetes` client's own
models by the caller, so their shape is right). Every mutation bumps one global resourceVersion and
appends a watch event to a history that `compact()` can truncate, which is how tests provoke the
`410 Gone` a real etcd compaction causes.
"""

from __future__ import annotations

import copy
import re
import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from kubernetes.client import ApiClient

_SERIALIZER = ApiClient()


@dataclass(frozen=True)
class Resource:
    """One REST resource the fake serves."""

    plural: str
    kind: str
    group: str  # "" for the core group
    version: str
    namespaced: bool = True

    @property
    def group_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version


RESOURCES: dict[str, Resource] = {
    r.plural: r
    for r in (
        Resource("pods", "Pod", "", "v1"),
        Resource("events", "Event", "", "v1"),
        Resource("nodes", "Node", "", "v1", namespaced=False),
        Resource("jobs", "Job", "batch", "v1"),
        Resource("pytorchjobs", "PyTorchJob", "kubeflow.org", "v1"),
        Resource("jobsets", "JobSet", "jobset.x-k8s.io", "v1alpha2"),
    )
}
CRD_PLURALS = ("pytorchjobs", "jobsets")


def to_dict(obj: Any) -> dict[str, Any]:
    """A client model (V1Pod, …) or dict → the API's JSON dict (camelCase, no None)."""
    if isinstance(obj, dict):
        return copy.deepcopy(obj)
    return _SERIALIZER.sanitize_for_serialization(obj)


def rfc3339(ts: datetime) -> str:
    return ts.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def rfc3339_nano(ts: datetime) -> str:
    return ts.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f") + "000Z"


# ---------------------------------------------------------------------------------------- selectors

_SET_RE = re.compile(r"^\s*([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)\s*$")


def _split_requirements(selector: str) -> list[str]:
    """Split on commas that are not inside `in (a,b)` parentheses."""
    parts, depth, cur = [], 0, ""
    for ch in selector:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def label_matches(selector: str | None, labels: dict[str, str] | None) -> bool:
    """Kubernetes label selector semantics: =, ==, !=, in, notin, exists, !exists."""
    labels = labels or {}
    for req in _split_requirements(selector or ""):
        m = _SET_RE.match(req)
        if m:
            key, op, values = m.group(1), m.group(2), {v.strip() for v in m.group(3).split(",")}
            if op == "in" and labels.get(key) not in values:
                return False
            if op == "notin" and key in labels and labels[key] in values:
                return False
        elif "!=" in req:
            key, value = (s.strip() for s in req.split("!=", 1))
            if labels.get(key) == value:
                return False
        elif "=" in req:
            key, value = (s.strip() for s in req.replace("==", "=").split("=", 1))
            if labels.get(key) != value:
                return False
        elif req.startswith("!"):
            if req[1:].strip() in labels:
                return False
        elif req not in labels:
            return False
    return True


def _field(obj: dict[str, Any], path: str) -> str:
    cur: Any = obj
    for part in path.split("."):
        cur = cur.get(part) if isinstance(cur, dict) else None
    return "" if cur is None else str(cur)


def field_matches(selector: str | None, obj: dict[str, Any]) -> bool:
    """Field selectors: `a.b=v`, `a.b==v`, `a.b!=v`, comma-separated (AND)."""
    for req in _split_requirements(selector or ""):
        if "!=" in req:
            key, value = req.split("!=", 1)
            if _field(obj, key.strip()) == value.strip():
                return False
        else:
            key, value = req.replace("==", "=").split("=", 1)
            if _field(obj, key.strip()) != value.strip():
                return False
    return True


# ---------------------------------------------------------------------------------------- the store


@dataclass
class WatchEvent:
    rv: int
    plural: str
    type: str
    obj: dict[str, Any]


@dataclass
class LogLine:
    ts: datetime
    text: str


@dataclass
class Store:
    """Thread-safe: tests mutate it from their thread while the server's loop reads it."""

    lock: threading.RLock = field(default_factory=threading.RLock)
    objects: dict[str, dict[tuple[str, str], dict[str, Any]]] = field(
        default_factory=lambda: {p: {} for p in RESOURCES}
    )
    history: list[WatchEvent] = field(default_factory=list)
    rv: int = 100
    oldest_rv: int = 100  # watches from a resourceVersion older than this get 410 Gone
    crds: set[str] = field(default_factory=lambda: set(CRD_PLURALS))
    logs: dict[tuple[str, str, str, bool], list[LogLine]] = field(default_factory=dict)
    node_files: dict[tuple[str, str], bytes] = field(default_factory=dict)
    node_proxy_forbidden: bool = False
    now_override: datetime | None = None
    requests: list[tuple[str, str]] = field(default_factory=list)  # (method, path_qs) seen

    def now(self) -> datetime:
        return self.now_override or datetime.now(UTC)

    def _bump(self, plural: str, type_: str, obj: dict[str, Any]) -> None:
        self.rv += 1
        obj["metadata"]["resourceVersion"] = str(self.rv)
        self.history.append(WatchEvent(self.rv, plural, type_, copy.deepcopy(obj)))

    def put(self, plural: str, obj: Any) -> dict[str, Any]:
        """Create or replace an object (ADDED or MODIFIED); fills uid, namespace, timestamps."""
        data = to_dict(obj)
        res = RESOURCES[plural]
        meta = data.setdefault("metadata", {})
        if res.namespaced:
            meta.setdefault("namespace", "default")
        data.setdefault("apiVersion", res.group_version)
        data.setdefault("kind", res.kind)
        key = (meta.get("namespace", ""), meta["name"])
        with self.lock:
            old = self.objects[plural].get(key)
            meta.setdefault("uid", old["metadata"]["uid"] if old else str(uuid.uuid4()))
            meta.setdefault(
                "creationTimestamp",
                old["metadata"]["creationTimestamp"] if old else rfc3339(self.now()),
            )
            self.objects[plural][key] = data
            self._bump(plural, "MODIFIED" if old else "ADDED", data)
            return copy.deepcopy(data)

    def get(self, plural: str, namespace: str, name: str) -> dict[str, Any] | None:
        with self.lock:
            obj = self.objects[plural].get((namespace if RESOURCES[plural].namespaced else "", name))
            return copy.deepcopy(obj) if obj else None

    def delete(self, plural: str, namespace: str, name: str) -> None:
        with self.lock:
            obj = self.objects[plural].pop((namespace, name))
            self._bump(plural, "DELETED", obj)

    def compact(self) -> None:
        """Forget the watch history, as etcd compaction does: older resourceVersions become 410."""
        with self.lock:
            self.history.clear()
            self.oldest_rv = self.rv

    def select(
        self, plural: str, namespace: str | None, labels: str | None, fields: str | None
    ) -> list[dict[str, Any]]:
        with self.lock:
            items = [
                copy.deepcopy(o)
                for (ns, _), o in sorted(self.objects[plural].items())
                if (namespace is None or ns == namespace)
                and label_matches(labels, o["metadata"].get("labels"))
                and field_matches(fields, o)
            ]
        return items

    def events_after(
        self, rv: int, plural: str, namespace: str | None, labels: str | None, fields: str | None
    ) -> list[WatchEvent]:
        with self.lock:
            return [
                e
                for e in self.history
                if e.rv > rv
                and e.plural == plural
                and (namespace is None or e.obj["metadata"].get("namespace") == namespace)
                and label_matches(labels, e.obj["metadata"].get("labels"))
                and field_matches(fields, e.obj)
            ]
