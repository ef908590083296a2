"""Node kernel logs for the collector: the denpex node-agent first, the kubelet's log proxy second.

The node-agent (a DaemonSet pod on each node, see `node_agent.py`) serves the masked kernel ring
buffer for a time window with bearer-token auth; the collector finds it by listing the agent pods
once (label selector, `spec.nodeName` → pod IP and the `kernel-log` container port). Without one,
`/api/v1/nodes/{node}/proxy/logs/kern.log` works where RBAC grants `nodes/proxy` and the node logs to
a file; the file is streamed and cut to the job's window. Either result is capped (`byte_cap`, the
newest bytes kept) so a node with a noisy kernel cannot exhaust the worker. The options are one frozen
`KernelLogOptions`, passed through the collector unchanged.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

import structlog
import urllib3
from kubernetes import client
from kubernetes.client.rest import ApiException

from integrations.kubernetes.api import list_all, node_proxy_path, raw_get

log = structlog.get_logger("denpex.k8s.kernel")

#: the chart's node-agent pods (any release name or nameOverride); they must also expose a port
#: named `kernel-log`, and the worker looks only in DENPEX_NODE_AGENT_NAMESPACE when that is set
AGENT_SELECTOR = "app.kubernetes.io/component=node-agent"
AGENT_PORT_NAME = "kernel-log"
_ISO = re.compile(r"^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?)")
_SYSLOG = re.compile(r"^([A-Z][a-z]{2} +\d{1,2} \d{2}:\d{2}:\d{2})")


def parse_time(value: str) -> datetime:
    """ISO 8601 (naive means UTC) or unix seconds → aware datetime. Raises ValueError."""
    value = value.strip()
    if re.fullmatch(r"\d+(\.\d+)?", value):
        return datetime.fromtimestamp(float(value), UTC)
    dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def line_time(line: str, year: int) -> datetime | None:
    """The leading timestamp of a syslog/journal line (RFC 3339 or `Nov 29 19:00:01`), if any."""
    m = _ISO.match(line)
    if m:
        try:
            return parse_time(m.group(1))
        except ValueError:
            return None
    m = _SYSLOG.match(line)
    if m:
        try:
            return datetime.strptime(f"{year} {m.group(1)}", "%Y %b %d %H:%M:%S").replace(tzinfo=UTC)
        except ValueError:
            return None
    return None


@dataclass
class KernelResult:
    node: str
    data: bytes | None  # None: unavailable
    via: str  # node-agent | kubelet
    why: str = ""


@dataclass(frozen=True)
class KernelLogOptions:
    """Where node kernel logs come from, and how much of one is kept."""

    #: bearer token of the node-agents; None: the agents are not asked
    token: str | None = None
    #: the namespace of the node-agent pods (None: every namespace)
    agent_namespace: str | None = None
    agent_selector: str = AGENT_SELECTOR
    #: the kubelet's log file under /logs/ (None: never ask the kubelet)
    kubelet_path: str | None = "logs/kern.log"
    #: newest bytes kept of one node's log
    byte_cap: int = 4 << 20
    timeout: float = 20.0


class KernelLogs:
    """Fetch kernel logs of nodes for a time window. Construct once per collect (agents listed once)."""

    def __init__(
        self,
        api: client.ApiClient,
        options: KernelLogOptions | None = None,
        *,
        http: urllib3.PoolManager | None = None,
    ) -> None:
        self.api = api
        self.options = options = options or KernelLogOptions()
        self.token = options.token
        self.kubelet_path = options.kubelet_path
        self.byte_cap = options.byte_cap
        self.timeout = options.timeout
        self.http = http or urllib3.PoolManager(retries=False, timeout=urllib3.Timeout(total=options.timeout))
        self._agents: dict[str, str] | None = None

    def agents(self) -> dict[str, str]:
        """node → base URL of its node-agent, from one pod list (empty when none is deployed)."""
        if self._agents is not None:
            return self._agents
        self._agents = {}
        if not self.token:
            return self._agents
        core = client.CoreV1Api(self.api)
        try:
            selector = self.options.agent_selector
            if self.options.agent_namespace:
                pods = list_all(
                    core.list_namespaced_pod, self.options.agent_namespace, label_selector=selector
                )
            else:
                pods = list_all(core.list_pod_for_all_namespaces, label_selector=selector)
            for pod in pods:
                if not (pod.spec.node_name and pod.status and pod.status.pod_ip):
                    continue
                port = next(
                    (
                        p.container_port
                        for c in pod.spec.containers
                        for p in (c.ports or [])
                        if p.name == AGENT_PORT_NAME
                    ),
                    None,
                )
                if port:
                    self._agents[pod.spec.node_name] = f"http://{pod.status.pod_ip}:{port}"
        except ApiException as exc:
            log.warning("node_agents_unlisted", reason=exc.reason)
        return self._agents

    def fetch(self, node: str, since: datetime, until: datetime) -> KernelResult:
        why = []
        base = self.agents().get(node)
        if base:
            result = self._from_agent(node, base, since, until)
            if result.data is not None:
                return result
            why.append(result.why)
        else:
            why.append("no node-agent on the node" if self.token else "no node-agent token configured")
        if self.kubelet_path:
            result = self._from_kubelet(node, since, until)
            if result.data is not None:
                return result
            why.append(result.why)
        return KernelResult(node, None, "", "; ".join(w for w in why if w))

    def _from_agent(self, node: str, base: str, since: datetime, until: datetime) -> KernelResult:
        url = f"{base}/kernel-log?" + urlencode({"since": since.isoformat(), "until": until.isoformat()})
        try:
            resp = self.http.request(
                "GET", url, headers={"Authorization": f"Bearer {self.token}"}, preload_content=False
            )
        except urllib3.exceptions.HTTPError as exc:
            return KernelResult(node, None, "node-agent", f"node-agent unreachable: {type(exc).__name__}")
        try:
            if resp.status != 200:
                return KernelResult(node, None, "node-agent", f"node-agent answered HTTP {resp.status}")
            return KernelResult(node, self._tail(resp.stream(64 << 10)), "node-agent")
        finally:
            resp.release_conn()

    def _from_kubelet(self, node: str, since: datetime, until: datetime) -> KernelResult:
        try:
            resp = raw_get(self.api, node_proxy_path(node, self.kubelet_path or ""), timeout=self.timeout)
        except ApiException as exc:
            return KernelResult(node, None, "kubelet", f"kubelet {self.kubelet_path}: HTTP {exc.status}")
        except urllib3.exceptions.HTTPError as exc:
            return KernelResult(node, None, "kubelet", f"kubelet proxy failed: {type(exc).__name__}")
        try:
            return KernelResult(node, self._window(resp.stream(64 << 10), since, until), "kubelet")
        finally:
            resp.release_conn()

    def _tail(self, chunks: Iterable[bytes]) -> bytes:
        buf = bytearray()
        for chunk in chunks:
            buf += chunk
            if len(buf) > 2 * self.byte_cap:
                del buf[: len(buf) - self.byte_cap]
        return bytes(buf[-self.byte_cap :])

    def _window(self, chunks: Iterable[bytes], since: datetime, until: datetime) -> bytes:
        """Lines of a syslog file inside [since - 5 min, until + 5 min]; undated lines follow the last
        dated one. Keeps at most `byte_cap` bytes (the newest)."""
        lo, hi = since - timedelta(minutes=5), until + timedelta(minutes=5)
        kept: deque[bytes] = deque()
        size, inside, rest = 0, False, b""
        for chunk in chunks:
            *lines, rest = (rest + chunk).split(b"\n")
            for raw in lines:
                ts = line_time(raw[:40].decode("utf-8", "replace"), until.year)
                if ts is not None:
                    inside = lo <= ts <= hi
                if inside:
                    kept.append(raw + b"\n")
                    size += len(raw) + 1
                    while size > self.byte_cap and kept:
                        size -= len(kept.popleft())
        return b"".join(kept)
