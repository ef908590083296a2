"""PyTorch Flight Recorder dumps over the node agent: the agent's side and the collector's side.

The pods mount a `hostPath` trace volume with `subPathExpr: $(POD_NAMESPACE)/$(POD_NAME)` and point
`TORCH_FR_DUMP_TEMP_FILE` into it, so a rank's dump lands on its node at
`<DENPEX_FR_HOST_PATH>/<namespace>/<pod>/<prefix><rank>`. The node agent mounts that host folder
read-only and serves it, with the bearer token of the kernel logs:

    GET /fr-dumps?namespace=NS&pod=POD             -> {"files": [{"name", "size"}], "skipped": [...]}
    GET /fr-dumps/file?namespace=NS&pod=POD&name=F -> the dump's bytes (application/octet-stream)

A dump is written by the job, so the folder is untrusted: namespace and pod must be Kubernetes names
and a file a plain name (no path can be smuggled in), every component is opened relative to its
parent with `O_NOFOLLOW` (`integrations.safeopen`: a link is refused by the kernel when opened, so a
pod cannot make the agent read the node's files), only regular files are served, at most
`max_bytes` each and `max_files` a pod; what is skipped is listed with why. Dumps are binary
pickles, so the agent does not mask them; the engine reads them through its restricted unpickler and
the worker masks the diagnosis.

The collector lists the dumps of every pod on a node with an agent and hands each on as a
`flight_recorder` source whose bytes are fetched only when the engine reads it (one dump in memory at
a time). An agent without a host path answers 404, which is not a gap: dumps are optional; nor is an
agent that cannot be reached or refuses the token, which the node's kernel-log item already names.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from io import FileIO
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import urllib3
from aiohttp import web

from denpex.core.models import LogSource, MissingEvidence
from denpex.core.texts import flightrec as texts
from denpex.core.texts import k8s as k8s_texts
from integrations import safeopen

#: namespaces are DNS-1123 labels, pod names DNS-1123 subdomains
_NAMESPACE = re.compile(r"^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$")
_POD = re.compile(r"^[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?$")
CHUNK = 1 << 20


@dataclass(frozen=True)
class DumpOptions:
    """How the collector asks the agents for dumps (`enabled`: ask at all) and how much it takes."""

    enabled: bool = True
    byte_cap: int = 256 << 20
    timeout: float = 60.0


# ---------------------------------------------------------------------------------- the agent's side


def _plain(name: str) -> bool:
    return (
        bool(name) and name not in (".", "..") and "/" not in name and "\0" not in name and len(name) <= 255
    )


def _pod_folder(request: web.Request) -> tuple[str, str]:
    ns, pod = request.query.get("namespace", ""), request.query.get("pod", "")
    if not _NAMESPACE.match(ns) or not _POD.match(pod) or ".." in pod:
        raise web.HTTPBadRequest(text=texts.AGENT_BAD_POD)
    return ns, pod


def list_pod(root: Path, ns: str, pod: str, max_bytes: int, max_files: int) -> dict[str, Any]:
    """The listing answer for one pod's folder (empty when the pod wrote no dump)."""
    try:
        with safeopen.opened_dir(root, [ns, pod]) as fd:
            files, _, skipped = safeopen.list_dir(fd)
            out: list[dict[str, Any]] = []
            gone: list[dict[str, Any]] = [{"name": s.name, "why": s.why} for s in skipped]
            for name in files:
                try:
                    size = os.stat(name, dir_fd=fd, follow_symlinks=False).st_size
                except OSError:
                    continue
                if size > max_bytes:
                    gone.append({"name": name, "why": "too large", "size": size})
                elif len(out) >= max_files:
                    gone.append({"name": name, "why": f"more than {max_files} files"})
                else:
                    out.append({"name": name, "size": size})
            return {"files": out, "skipped": gone}
    except FileNotFoundError:
        return {"files": [], "skipped": []}
    except safeopen.Refused as exc:
        return {"files": [], "skipped": [{"name": exc.name, "why": exc.why}]}


def add_routes(
    app: web.Application,
    *,
    root: Path | None,
    allowed: Callable[[web.Request], bool],
    max_bytes: int,
    max_files: int = 4096,
) -> None:
    """Mount the two dump routes on the agent's app; `allowed` checks the bearer token."""

    def guard(request: web.Request) -> None:
        if not allowed(request):
            raise web.HTTPUnauthorized(text=k8s_texts.UNAUTHORIZED, headers={"WWW-Authenticate": "Bearer"})
        if root is None:
            raise web.HTTPNotFound(text=texts.AGENT_NO_HOST_PATH)

    async def listing(request: web.Request) -> web.Response:
        guard(request)
        assert root is not None
        ns, pod = _pod_folder(request)
        try:
            body = await asyncio.to_thread(list_pod, root, ns, pod, max_bytes, max_files)
        except PermissionError as exc:
            return web.Response(status=503, text=texts.agent_unreadable(exc.strerror or str(exc)))
        return web.json_response(body)

    async def one_file(request: web.Request) -> web.StreamResponse:
        guard(request)
        assert root is not None
        ns, pod = _pod_folder(request)
        name = request.query.get("name", "")
        if not _plain(name):
            raise web.HTTPBadRequest(text=texts.AGENT_BAD_NAME)
        try:
            fh = await asyncio.to_thread(_open, root, ns, pod, name)
        except FileNotFoundError:
            raise web.HTTPNotFound(text=texts.AGENT_NO_DUMP) from None
        except safeopen.Refused as exc:
            raise web.HTTPForbidden(text=texts.agent_refused(exc.why)) from None
        except PermissionError as exc:
            raise web.HTTPForbidden(text=texts.agent_unreadable(exc.strerror or str(exc))) from None
        with fh:
            return await _send(request, fh.fileno(), max_bytes)

    app.router.add_get("/fr-dumps", listing)
    app.router.add_get("/fr-dumps/file", one_file)


async def _send(request: web.Request, fd: int, max_bytes: int) -> web.StreamResponse:
    """The opened file's bytes as it stands (by offset, never reopened), refused past `max_bytes`."""
    size = os.fstat(fd).st_size
    if size > max_bytes:
        raise web.HTTPRequestEntityTooLarge(max_size=max_bytes, actual_size=size)
    resp = web.StreamResponse(headers={"Content-Type": "application/octet-stream"})
    resp.content_length = size
    await resp.prepare(request)
    offset = 0
    while offset < size:
        chunk = await asyncio.to_thread(os.pread, fd, min(CHUNK, size - offset), offset)
        if not chunk:
            break
        offset += len(chunk)
        await resp.write(chunk)
    await resp.write_eof()
    return resp


def _open(root: Path, ns: str, pod: str, name: str) -> FileIO:
    with safeopen.opened_dir(root, [ns, pod]) as fd:
        return safeopen.open_file(fd, name)


# ---------------------------------------------------------------------------------- the collector's side


@dataclass
class PodDumps:
    """What one agent said about one pod: its dumps and gaps worth naming."""

    sources: list[LogSource] = field(default_factory=list)
    missing: list[MissingEvidence] = field(default_factory=list)
    #: the agent has no host path configured: ask it nothing more
    off: bool = False


class AgentDumps:
    """Lists and fetches pods' dumps from their nodes' agents (`base` URLs from `KernelLogs.agents`)."""

    def __init__(self, token: str, options: DumpOptions, http: urllib3.PoolManager | None = None) -> None:
        self.token = token
        self.options = options
        self.http = http or urllib3.PoolManager(retries=False, timeout=urllib3.Timeout(total=options.timeout))

    def _get(self, base: str, path: str, **query: str) -> urllib3.BaseHTTPResponse:
        return self.http.request(
            "GET",
            f"{base}{path}?{urlencode(query)}",
            headers={"Authorization": f"Bearer {self.token}"},
            preload_content=False,
        )

    def pod(self, base: str, node: str, namespace: str, pod: str) -> PodDumps:
        out = PodDumps()
        try:
            resp = self._get(base, "/fr-dumps", namespace=namespace, pod=pod)
        except urllib3.exceptions.HTTPError:
            return out  # the node's kernel-log item already says the agent is unreachable
        try:
            if resp.status in (401, 404):  # 401: the kernel-log item names the token; 404: no host path
                out.off = resp.status == 404
                return out
            if resp.status != 200:
                return self._gap(out, node, pod, f"node agent answered HTTP {resp.status}")
            body = json.loads(resp.read(4 << 20))
        except (ValueError, urllib3.exceptions.HTTPError):
            return self._gap(out, node, pod, "node agent sent an unreadable listing")
        finally:
            resp.release_conn()
        for f in body.get("files", []):
            name, size = str(f.get("name", "")), int(f.get("size", 0))
            if size > self.options.byte_cap:
                out.missing.append(_me(texts.too_large(f"{pod}/{name}", size, self.options.byte_cap)))
                continue
            out.sources.append(
                LogSource(
                    name=f"{pod}/{name}",
                    kind="flight_recorder",
                    node=node,
                    chunks=self._fetch(base, namespace, pod, name),
                )
            )
        for s in body.get("skipped", []):
            name = f"{pod}/{s.get('name', '')}"
            if s.get("why") == "too large":
                out.missing.append(_me(texts.too_large(name, int(s.get("size", 0)), self.options.byte_cap)))
            else:
                out.missing.append(_me(texts.agent_dumps_failed(node, name, str(s.get("why", "skipped")))))
        return out

    def _gap(self, out: PodDumps, node: str, pod: str, why: str) -> PodDumps:
        out.missing.append(_me(texts.agent_dumps_failed(node, pod, why)))
        return out

    def _fetch(self, base: str, namespace: str, pod: str, name: str) -> Callable[[], Iterator[bytes]]:
        cap = self.options.byte_cap

        def chunks() -> Iterator[bytes]:
            try:
                resp = self._get(base, "/fr-dumps/file", namespace=namespace, pod=pod, name=name)
            except urllib3.exceptions.HTTPError:
                return
            try:
                if resp.status != 200:
                    return
                got = 0
                for chunk in resp.stream(CHUNK):
                    got += len(chunk)
                    yield chunk
                    if got > cap:  # the reader names it truncated
                        return
            except urllib3.exceptions.HTTPError:
                return
            finally:
                resp.release_conn()

        return chunks


def _me(pair: tuple[str, str]) -> MissingEvidence:
    return MissingEvidence(what=pair[0], next_action=pair[1])
