"""A protocol-faithful fake Kubernetes API server (aiohttp, own thread and event loop).

It speaks the REST paths, query parameters, watch streams and Status error bodies that the real
`kubernetes` client expects, so the code under test runs the real client over real HTTP. See the
package docstring for the surface it covers.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from datetime import timedelta
from typing import Any

from aiohttp import web

from tests.fakes.k8s.state import CRD_PLURALS, RESOURCES, Store, rfc3339_nano

_POLL = 0.03
#: the patch types the API server accepts for PATCH (server-side apply, `apply-patch+yaml`, is not faked)
JSON_PATCH = "application/json-patch+json"
MERGE_PATCHES = ("application/merge-patch+json", "application/strategic-merge-patch+json")


def status_body(code: int, reason: str, message: str, **details: Any) -> dict[str, Any]:
    """The `Status` object the API server returns for errors (and inside 410 watch events)."""
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }
    if details:
        body["details"] = details
    return body


def status_response(code: int, reason: str, message: str, **details: Any) -> web.Response:
    return web.json_response(status_body(code, reason, message, **details), status=code)


def not_found(plural: str, name: str) -> web.Response:
    res = RESOURCES[plural]
    kind = plural if not res.group else f"{plural}.{res.group}"
    return status_response(404, "NotFound", f'{kind} "{name}" not found', name=name, kind=plural)


class _Handlers:
    def __init__(self, store: Store, stopping: threading.Event) -> None:
        self.store = store
        self.stopping = stopping

    # ------------------------------------------------------------------ discovery
    async def api_versions(self, request: web.Request) -> web.Response:
        return web.json_response(
            {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}
        )

    async def api_groups(self, request: web.Request) -> web.Response:
        groups = {}
        for plural, res in RESOURCES.items():
            if not res.group or (plural in CRD_PLURALS and plural not in self.store.crds):
                continue
            gv = {"groupVersion": res.group_version, "version": res.version}
            groups[res.group] = {"name": res.group, "versions": [gv], "preferredVersion": gv}
        return web.json_response(
            {"kind": "APIGroupList", "apiVersion": "v1", "groups": list(groups.values())}
        )

    def resource_list(self, group_version: str) -> web.Response:
        resources = [
            {
                "name": p,
                "singularName": r.kind.lower(),
                "namespaced": r.namespaced,
                "kind": r.kind,
                "verbs": ["get", "list", "watch", *(["patch"] if p == "nodes" else [])],
            }
            for p, r in RESOURCES.items()
            if r.group_version == group_version and (p not in CRD_PLURALS or p in self.store.crds)
        ]
        if not resources:
            return web.Response(status=404, text="404 page not found\n")
        if group_version == "v1":
            resources += [
                {"name": "pods/log", "singularName": "", "namespaced": True, "kind": "Pod", "verbs": ["get"]},
                {
                    "name": "nodes/proxy",
                    "singularName": "",
                    "namespaced": False,
                    "kind": "NodeProxyOptions",
                    "verbs": ["get"],
                },
            ]
        return web.json_response(
            {
                "kind": "APIResourceList",
                "apiVersion": "v1",
                "groupVersion": group_version,
                "resources": resources,
            }
        )

    # ------------------------------------------------------------------ routing
    async def core(self, request: web.Request) -> web.StreamResponse:
        return await self.dispatch(request, "v1", request.match_info["rest"])

    async def grouped(self, request: web.Request) -> web.StreamResponse:
        gv = f"{request.match_info['group']}/{request.match_info['version']}"
        return await self.dispatch(request, gv, request.match_info["rest"])

    async def dispatch(self, request: web.Request, gv: str, rest: str) -> web.StreamResponse:
        self.store.requests.append((request.method, str(request.rel_url)))
        parts = [p for p in rest.split("/") if p] if rest else []
        if not parts:
            return self.resource_list(gv)
        namespace = None
        if parts[0] == "namespaces" and len(parts) >= 3:
            namespace, parts = parts[1], parts[2:]
        plural = parts[0]
        res = RESOURCES.get(plural)
        if (
            res is None
            or res.group_version != gv
            or (plural in CRD_PLURALS and plural not in self.store.crds)
        ):
            return web.Response(status=404, text="404 page not found\n")
        if len(parts) == 1:
            if request.query.get("watch") in ("true", "1"):
                return await self.watch(request, plural, namespace)
            return self.list(request, plural, namespace)
        name = parts[1]
        if len(parts) == 2:
            obj = self.store.get(plural, namespace or "", name)
            return web.json_response(obj) if obj else not_found(plural, name)
        if plural == "pods" and parts[2] == "log" and len(parts) == 3:
            return self.pod_log(request, namespace or "", name)
        if plural == "nodes" and parts[2] == "proxy":
            return self.node_proxy(name, "/".join(parts[3:]))
        return web.Response(status=404, text="404 page not found\n")

    # ------------------------------------------------------------------ patch (nodes)
    async def patch_node(self, request: web.Request) -> web.Response:
        """PATCH /api/v1/nodes/{name} (cordon: `spec.unschedulable`), as the API server answers it:
        415 for a media type it does not take, 400 for a body that is not of the patch type named
        (a JSON object sent as json-patch+json is the classic one), 404 for an unknown node; a merge
        or strategic merge patch is merged (RFC 7386: null deletes; a strategic merge treats lists
        as a plain merge does here), a JSON patch's add/replace/remove ops are applied."""
        self.store.requests.append((request.method, str(request.rel_url)))
        name, kind = request.match_info["name"], request.content_type
        if kind != JSON_PATCH and kind not in MERGE_PATCHES:
            accepted = ", ".join((JSON_PATCH, *MERGE_PATCHES))
            msg = "the body of the request was in an unknown format - accepted media types include: "
            msg += accepted
            return status_response(415, "UnsupportedMediaType", msg)
        try:
            patch = json.loads(await request.text())
        except ValueError as exc:
            return status_response(400, "BadRequest", f"error decoding patch: {exc}")
        with self.store.lock:
            obj = self.store.get("nodes", "", name)
            if obj is None:
                return not_found("nodes", name)
            if kind == JSON_PATCH and not isinstance(patch, list):
                msg = "json: cannot unmarshal object into Go value of type jsonpatch.Patch"
                return status_response(400, "BadRequest", msg)
            if kind != JSON_PATCH and not isinstance(patch, dict):
                return status_response(400, "BadRequest", "json: cannot unmarshal array into Go value")
            try:
                merged = apply_json_patch(obj, patch) if isinstance(patch, list) else merge_patch(obj, patch)
            except (KeyError, IndexError, TypeError, ValueError) as exc:
                return status_response(422, "Invalid", f"the patch could not be applied: {exc}")
            return web.json_response(self.store.put("nodes", merged))

    # ------------------------------------------------------------------ list / watch
    def list(self, request: web.Request, plural: str, namespace: str | None) -> web.Response:
        q = request.query
        items = self.store.select(plural, namespace, q.get("labelSelector"), q.get("fieldSelector"))
        offset = int(q.get("continue") or 0)
        limit = int(q.get("limit") or 0)
        page = items[offset : offset + limit] if limit else items[offset:]
        more = bool(limit) and offset + limit < len(items)
        res = RESOURCES[plural]
        meta: dict[str, Any] = {"resourceVersion": str(self.store.rv)}
        if more:
            meta["continue"] = str(offset + limit)
            meta["remainingItemCount"] = len(items) - offset - limit
        return web.json_response(
            {"kind": f"{res.kind}List", "apiVersion": res.group_version, "metadata": meta, "items": page}
        )

    async def watch(self, request: web.Request, plural: str, namespace: str | None) -> web.StreamResponse:
        q = request.query
        labels, fields = q.get("labelSelector"), q.get("fieldSelector")
        timeout = float(q.get("timeoutSeconds") or 1800)
        resp = web.StreamResponse(headers={"Content-Type": "application/json"})
        resp.enable_chunked_encoding()
        await resp.prepare(request)

        async def send(type_: str, obj: dict[str, Any]) -> None:
            await resp.write(json.dumps({"type": type_, "object": obj}).encode() + b"\n")

        rv_param = q.get("resourceVersion")
        with self.store.lock:
            if rv_param in (None, "", "0"):
                last = self.store.rv
                initial = self.store.select(plural, namespace, labels, fields)
            else:
                last, initial = int(rv_param), []
            too_old = last < self.store.oldest_rv
            oldest = self.store.oldest_rv
        if too_old:
            msg = f"too old resource version: {last} ({oldest})"
            await send("ERROR", status_body(410, "Expired", msg))
            return resp
        for obj in initial:
            await send("ADDED", obj)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        bookmark_every = 0.5 if q.get("allowWatchBookmarks") in ("true", "1") else None
        next_bookmark = loop.time() + (bookmark_every or 0)
        while loop.time() < deadline and not self.stopping.is_set():
            for ev in self.store.events_after(last, plural, namespace, labels, fields):
                await send(ev.type, ev.obj)
                last = ev.rv
            if bookmark_every and loop.time() >= next_bookmark:
                res = RESOURCES[plural]
                await send(
                    "BOOKMARK",
                    {
                        "kind": res.kind,
                        "apiVersion": res.group_version,
                        "metadata": {"resourceVersion": str(max(last, 0))},
                    },
                )
                next_bookmark = loop.time() + bookmark_every
            await asyncio.sleep(_POLL)
        return resp

    # ------------------------------------------------------------------ logs and node proxy
    def pod_log(self, request: web.Request, namespace: str, name: str) -> web.Response:
        pod = self.store.get("pods", namespace, name)
        if pod is None:
            return not_found("pods", name)
        q = request.query
        names = [c["name"] for c in pod.get("spec", {}).get("containers", [])]
        container = q.get("container")
        if not container:
            if len(names) != 1:
                return status_response(
                    400,
                    "BadRequest",
                    f"a container name must be specified for pod {name}, choose one of: [{' '.join(names)}]",
                )
            container = names[0]
        if container not in names:
            return status_response(400, "BadRequest", f"container {container} is not valid for pod {name}")
        previous = q.get("previous") in ("true", "1")
        lines = self.store.logs.get((namespace, name, container, previous))
        if lines is None:
            if previous:
                return status_response(
                    400,
                    "BadRequest",
                    f'previous terminated container "{container}" in pod "{name}" not found',
                )
            lines = []
        if q.get("sinceSeconds"):
            cutoff = self.store.now() - timedelta(seconds=int(q["sinceSeconds"]))
            lines = [ln for ln in lines if ln.ts >= cutoff]
        if q.get("tailLines"):
            tail = int(q["tailLines"])
            lines = lines[-tail:] if tail else []
        stamp = q.get("timestamps") in ("true", "1")
        body = "".join((f"{rfc3339_nano(ln.ts)} " if stamp else "") + ln.text + "\n" for ln in lines).encode()
        if q.get("limitBytes"):
            body = body[: int(q["limitBytes"])]
        return web.Response(body=body, headers={"Content-Type": "text/plain"})

    def node_proxy(self, node: str, path: str) -> web.Response:
        if self.store.get("nodes", "", node) is None:
            return not_found("nodes", node)
        if self.store.node_proxy_forbidden:
            return status_response(
                403,
                "Forbidden",
                f'nodes "{node}" is forbidden: User "system:serviceaccount:denpex:denpex" cannot get '
                f'resource "nodes/proxy" in API group "" at the cluster scope',
                name=node,
                kind="nodes",
            )
        data = self.store.node_files.get((node, path))
        if data is None:
            return web.Response(status=404, text="404 page not found\n")
        return web.Response(body=data, headers={"Content-Type": "text/plain; charset=utf-8"})


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


def apply_json_patch(target: dict[str, Any], ops: list[Any]) -> dict[str, Any]:
    """RFC 6902 `add`, `replace` and `remove` on object paths (what a cordon patch uses)."""
    doc = json.loads(json.dumps(target))
    for op in ops:
        *parents, last = [p.replace("~1", "/").replace("~0", "~") for p in str(op["path"]).split("/")[1:]]
        node = doc
        for part in parents:
            node = node[part] if op["op"] != "add" else node.setdefault(part, {})
        if op["op"] in ("add", "replace"):
            if op["op"] == "replace" and last not in node:
                raise KeyError(op["path"])
            node[last] = op["value"]
        elif op["op"] == "remove":
            del node[last]
        else:
            raise ValueError(f"unsupported op {op['op']!r}")
    return doc


def build_app(store: Store, stopping: threading.Event) -> web.Application:
    h = _Handlers(store, stopping)
    app = web.Application()
    for slash in ("", "/"):
        app.router.add_get("/api" + slash, h.api_versions)
        app.router.add_get("/apis" + slash, h.api_groups)
    app.router.add_patch("/api/v1/nodes/{name}", h.patch_node)
    app.router.add_get("/api/v1{rest:(/.*)?}", h.core)
    app.router.add_get("/apis/{group}/{version}{rest:(/.*)?}", h.grouped)
    return app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class FakeKubeServer:
    """Runs the app on 127.0.0.1 in a thread; `stop()`/`start()` keep the port and the store."""

    def __init__(self, store: Store, port: int | None = None) -> None:
        self.store = store
        self.port = port or 0  # 0: the OS picks a free port at the first start; restarts reuse it
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._stopping = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        self._stopping.clear()
        ready = threading.Event()
        errors: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                self._runner = web.AppRunner(build_app(self.store, self._stopping), shutdown_timeout=1.0)
                loop.run_until_complete(self._runner.setup())
                site = web.TCPSite(self._runner, "127.0.0.1", self.port, reuse_address=True)
                loop.run_until_complete(site.start())
                self.port = self._runner.addresses[0][1]
            except BaseException as exc:  # reported to the starting thread
                errors.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self._runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=run, name="fake-kube", daemon=True)
        self._thread.start()
        if not ready.wait(timeout):
            raise RuntimeError("fake kube-apiserver did not start")
        if errors:
            raise errors[0]

    def stop(self, timeout: float = 10.0) -> None:
        if self._loop is None or self._thread is None:
            return
        self._stopping.set()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout)
        self._loop = None
        self._thread = None
