"""The node-agent: serves this node's kernel log for a time window, masked, to the Denpex worker.

Runs as a DaemonSet (`denpex node-agent`) whose only privilege is `CAP_SYSLOG`, what reading the
ring buffer with the syslog(2) syscall needs (no privileged container, no device access).
`GET /kernel-log?since=…&until=…` (ISO 8601 or unix seconds; default: the last hour) with
`Authorization: Bearer $DENPEX_NODE_AGENT_TOKEN` answers `text/plain` lines
`2026-11-29T19:01:00.123456Z kernel: <message>`, every line passed through the masker before it
leaves the node, at most `max_bytes` (the newest kept). `GET /healthz` is unauthenticated.
`GET /fr-dumps` serves the pods' Flight Recorder dumps from `DENPEX_FR_HOST_PATH` (see `dumps`).

The source is `klog` (the syscall, default), `/dev/kmsg` (records `prio,seq,usec,flags;message`,
timestamps in microseconds since boot) or any file: a file of kmsg records is read the same way,
anything else as syslog lines with their own timestamps (e.g. `/var/log/kern.log` mounted from the host).
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import errno
import hmac
import os
import re
import time
from collections import deque
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from aiohttp import web

from denpex.core.texts import k8s as texts
from integrations.kubernetes import dumps
from integrations.kubernetes.kernel import line_time, parse_time

_KMSG = re.compile(rb"^(\d+),(\d+),(\d+),[^;]*;(.*)$")


def boot_wall_time() -> float:
    """Unix time of boot as the kernel's printk clock counts it (CLOCK_MONOTONIC, no suspend)."""
    return time.clock_gettime(time.CLOCK_REALTIME) - time.clock_gettime(time.CLOCK_MONOTONIC)


def _raw_lines(path: str) -> Iterator[bytes]:
    """Lines of `path` without blocking: /dev/kmsg yields one record per read and EAGAIN at the end;
    EPIPE means records were overwritten while reading (skip on)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        rest = b""
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                break
            except OSError as exc:
                if exc.errno == errno.EPIPE:
                    continue
                raise
            if not chunk:
                break
            *lines, rest = (rest + chunk).split(b"\n")
            yield from lines
        if rest:
            yield rest
    finally:
        os.close(fd)


_KLOG = re.compile(rb"^<(\d+)>\[\s*(\d+)\.(\d{6})\]\s?(.*)$")
SYSLOG_ACTION_READ_ALL, SYSLOG_ACTION_SIZE_BUFFER = 3, 10


def _klog_lines() -> Iterator[bytes]:
    """The ring buffer through the syslog(2) syscall, which needs only CAP_SYSLOG (no device access,
    allowed by the runtime's default seccomp profile when the capability is granted). Lines are
    rewritten as kmsg records so one parser reads both."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    size = libc.klogctl(SYSLOG_ACTION_SIZE_BUFFER, None, 0)
    if size < 0:
        raise PermissionError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    buf = ctypes.create_string_buffer(size)
    got = libc.klogctl(SYSLOG_ACTION_READ_ALL, buf, size)
    if got < 0:
        raise PermissionError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    for raw in buf.raw[:got].split(b"\n"):
        m = _KLOG.match(raw)
        if m:
            usec = int(m.group(2)) * 1_000_000 + int(m.group(3))
            yield b"%s,0,%d,-;%s" % (m.group(1), usec, m.group(4))


def read_kernel_log(path: str, since: datetime, until: datetime, boot: float) -> Iterator[str]:
    """Lines of the kernel log inside [since, until], each `ISO-time kernel: message`.

    `path` is `klog` (the syslog(2) syscall), `/dev/kmsg`, or a file of kmsg records or syslog lines.
    """
    inside = kmsg = False
    for raw in _klog_lines() if path == "klog" else _raw_lines(path):
        if kmsg and raw.startswith(b" "):  # kmsg continuation (dictionary) lines
            continue
        m = _KMSG.match(raw)
        if m:
            kmsg = True
            ts = datetime.fromtimestamp(boot + int(m.group(3)) / 1e6, UTC)
            if since <= ts <= until:
                text = m.group(4).decode("utf-8", "replace")
                yield f"{ts.strftime('%Y-%m-%dT%H:%M:%S.%f')}Z kernel: {text}"
            continue
        text = raw.decode("utf-8", "replace")
        ts_or_none = line_time(text[:40], until.year)
        if ts_or_none is not None:
            inside = since <= ts_or_none <= until
        if inside:
            yield text


def _query_time(request: web.Request, name: str, default: datetime) -> datetime:
    value = request.query.get(name)
    if value is None:
        return default
    try:  # an unencoded `+01:00` offset arrives as ` 01:00`
        return parse_time(re.sub(r" (\d{2}:?\d{2})$", r"+\1", value))
    except ValueError:
        raise web.HTTPBadRequest(text=texts.bad_time(name, value)) from None


def create_app(
    *,
    token: str,
    mask: Callable[[str], str],
    source: str = "klog",
    max_bytes: int = 4 << 20,
    boot: Callable[[], float] = boot_wall_time,
    dumps_root: Path | None = None,
    dump_max_bytes: int = 256 << 20,
) -> web.Application:
    """The node-agent app (`mask`: `Masker.default().mask`); `dumps_root` serves the pods' Flight
    Recorder dumps (`DENPEX_FR_HOST_PATH`, see `integrations.kubernetes.dumps`; None: 404)."""
    expected = f"Bearer {token}".encode()

    def allowed(request: web.Request) -> bool:
        given = request.headers.get("Authorization", "").encode()
        return bool(token) and hmac.compare_digest(given, expected)

    async def healthz(request: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    def collect(since: datetime, until: datetime) -> bytes:
        kept: deque[bytes] = deque()
        size = 0
        for line in read_kernel_log(source, since, until, boot()):
            data = (mask(line) + "\n").encode()
            kept.append(data)
            size += len(data)
            while size > max_bytes and kept:
                size -= len(kept.popleft())
        return b"".join(kept)

    async def kernel_log(request: web.Request) -> web.Response:
        if not allowed(request):
            return web.Response(status=401, text=texts.UNAUTHORIZED, headers={"WWW-Authenticate": "Bearer"})
        now = datetime.now(UTC)
        until = _query_time(request, "until", now)
        since = _query_time(request, "since", until - timedelta(hours=1))
        try:
            body = await asyncio.to_thread(collect, since, until)
        except PermissionError as exc:
            return web.Response(status=503, text=texts.NO_KERNEL_LOG.format(error=exc.strerror))
        return web.Response(body=body, content_type="text/plain", charset="utf-8")

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/kernel-log", kernel_log)
    dumps.add_routes(app, root=dumps_root, allowed=allowed, max_bytes=dump_max_bytes)
    return app
