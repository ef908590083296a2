"""Opening logs under a root once, without following links: the one place that walks untrusted folders.

Checking a path first (`Path.resolve()`, `is_file()`) and opening it later leaves a gap: a file swapped
for a symlink in between is read from wherever the link points. So nothing here checks a path and
opens it later. The root (the admin's `DENPEX_LOG_ROOT`) is opened once; every component below it is
opened relative to its parent's descriptor with `O_NOFOLLOW`, so a link anywhere in the walk is refused
by the kernel at the moment of opening. A file is opened with `O_NONBLOCK` (a FIFO cannot block the
worker) and `fstat`-ed as a regular file on the open descriptor; that descriptor is what the engine
reads, so what was checked is what is read.
"""

from __future__ import annotations

import errno
import os
import resource
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from io import FileIO
from pathlib import Path

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
#: folders below a job folder a walk descends into (a site's `node/rank` layout needs two or three)
MAX_DEPTH = 16
#: open files a process should be allowed: collectors hold one descriptor per log until it is read
WANTED_FILES = 1 << 16


class Refused(OSError):
    """A component is not what may be read: a link (`link`), not a folder, not a regular file."""

    def __init__(self, name: str, why: str, *, link: bool = False) -> None:
        super().__init__(errno.ELOOP if link else errno.EINVAL, why, name)
        self.name, self.why, self.link = name, why, link


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file a walk did not open, and why (for the diagnosis's missing evidence)."""

    name: str
    why: str


def _is_link(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def open_root(root: Path) -> int:
    """The root's directory descriptor. The root itself is configuration, so it may be a link."""
    return os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


def open_dir(dir_fd: int, parts: Sequence[str]) -> int:
    """Descend `parts` (plain names) from `dir_fd`, each with `O_NOFOLLOW`; the last folder's descriptor.

    Raises `Refused(link=True)` for a link, `Refused` for a name that is not a folder, and
    `FileNotFoundError` (or another `OSError`) as `os.open` does.
    """
    fd = dir_fd
    try:
        for name in parts:
            try:
                nxt = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):  # ENOTDIR: O_DIRECTORY saw the link itself
                    link = _is_link(fd, name)
                    raise Refused(name, "a link" if link else "not a folder", link=link) from None
                raise
            if fd != dir_fd:
                os.close(fd)
            fd = nxt
    except BaseException:
        if fd != dir_fd:
            os.close(fd)
        raise
    return fd if fd != dir_fd else os.dup(fd)


def open_file(dir_fd: int, name: str) -> FileIO:
    """`name` in `dir_fd`, opened without following a link or blocking, checked regular on the fd.

    The returned file is the one to read (never reopen `name`). Raises `Refused` for a link, a FIFO,
    a device or a socket; other `OSError`s as `os.open` does.
    """
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused(name, "a link", link=True) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
    except BaseException:
        os.close(fd)
        raise
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise Refused(name, "not a regular file")
    return FileIO(fd, "rb", closefd=True)


def list_dir(dir_fd: int) -> tuple[list[str], list[str], list[Skipped]]:
    """(files, folders, skipped) in `dir_fd`, sorted, by the entries' own types (links never followed).

    Only a hint for what to open next: `open_file` and `open_dir` check again at the moment of opening.
    """
    files: list[str] = []
    dirs: list[str] = []
    skipped: list[Skipped] = []
    with os.scandir(dir_fd) as entries:
        for entry in entries:
            if entry.is_symlink():
                skipped.append(Skipped(entry.name, "a link"))
            elif entry.is_dir(follow_symlinks=False):
                dirs.append(entry.name)
            elif entry.is_file(follow_symlinks=False):
                files.append(entry.name)
            else:
                skipped.append(Skipped(entry.name, "not a regular file"))
    return sorted(files), sorted(dirs), sorted(skipped, key=lambda s: s.name)


@dataclass(slots=True)
class Tree:
    """What `open_tree` found: open files by relative name (the caller owns them), and what it skipped."""

    files: list[tuple[str, FileIO]]
    skipped: list[Skipped]
    #: the walk stopped early: `limit` files, or the process ran out of file descriptors
    stopped: str | None = None


def open_tree(dir_fd: int, limit: int) -> Tree:
    """Every regular file below `dir_fd` (files of a folder first, then its folders; names sorted),
    opened by `open_file`, at most `limit`; links, FIFOs and devices are skipped, never followed."""
    tree = Tree(files=[], skipped=[])
    try:
        _walk(dir_fd, "", 0, limit, tree)
    except OSError as exc:
        if exc.errno not in (errno.EMFILE, errno.ENFILE):
            for _, fh in tree.files:
                fh.close()
            raise
        tree.stopped = "the worker's open-file limit (ulimit -n) was reached"
    return tree


def _walk(dir_fd: int, prefix: str, depth: int, limit: int, tree: Tree) -> None:
    files, dirs, skipped = list_dir(dir_fd)
    tree.skipped += [Skipped(prefix + s.name, s.why) for s in skipped]
    for name in files:
        if len(tree.files) >= limit:
            tree.stopped = f"more than {limit} files"
            return
        try:
            tree.files.append((prefix + name, open_file(dir_fd, name)))
        except Refused as exc:
            tree.skipped.append(Skipped(prefix + name, exc.why))
        except (FileNotFoundError, PermissionError) as exc:
            tree.skipped.append(Skipped(prefix + name, exc.strerror or "cannot be opened"))
    for name in dirs:
        if tree.stopped:
            return
        if depth >= MAX_DEPTH:
            tree.skipped.append(Skipped(prefix + name, f"deeper than {MAX_DEPTH} folders"))
            continue
        try:
            sub = open_dir(dir_fd, [name])
        except Refused as exc:
            tree.skipped.append(Skipped(prefix + name, exc.why))
            continue
        except (FileNotFoundError, PermissionError) as exc:
            tree.skipped.append(Skipped(prefix + name, exc.strerror or "cannot be opened"))
            continue
        try:
            _walk(sub, f"{prefix}{name}/", depth + 1, limit, tree)
        finally:
            os.close(sub)


@contextmanager
def opened_dir(root: Path, parts: Sequence[str]) -> Iterator[int]:
    """`open_dir` from `open_root(root)`, closed on leaving the block."""
    root_fd = open_root(root)
    try:
        fd = open_dir(root_fd, parts)
    finally:
        os.close(root_fd)
    try:
        yield fd
    finally:
        os.close(fd)


def raise_fd_limit(wanted: int = WANTED_FILES) -> None:
    """Raise this process's soft open-file limit towards `wanted` (never above the hard limit).

    Logs are opened at collection and held until the engine reads them, one descriptor each, and a
    service manager's default soft limit (1,024) is below what a large job needs. Raising the soft
    limit up to the hard one is what that default expects programs needing more to do.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        # a sandbox that forbids it: the walk says so in the missing evidence when it runs out
        with suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
