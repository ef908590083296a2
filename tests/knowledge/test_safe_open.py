"""Log files are opened once, below the root, without following links, and that open file is what
the engine reads (issue 13: a file swapped for a symlink after the collector's checks was read from
outside `DENPEX_LOG_ROOT` and posted).

A real race cannot be timed, so each test makes the swap happen at the exact point in question:
after collection and before the engine reads (the descriptor opened at collection is what is read),
or between the walk's listing of a folder and its opening of an entry (an injected step).
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from denpex.core.models import Evidence, JobRef, LogSource, Scheduler
from integrations import safeopen
from integrations.files import FilesCollector, UnsafePath, resolve_job_dir
from integrations.slurm import tails
from knowledge.engine import Engine
from knowledge.flightrec.merge import split_sources
from knowledge.flightrec.reader import read_source
from tests.flightrec.dumps import FIXTURES

OOM = b"[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
SECRET = b"[rank0]: NCCL error TOPSECRET-outside-the-root hunter2\n"


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """(log root with ci/1/rank0.log, a folder outside the root holding a secret log)."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "ci" / "1").mkdir(parents=True)
    outside.mkdir()
    (root / "ci" / "1" / "rank0.log").write_bytes(b"[rank0]: step 1 loss 2.5\n" + OOM)
    (outside / "rank0.log").write_bytes(SECRET)
    yield root, outside


def job(job_id: str = "1", cluster: str = "ci") -> JobRef:
    return JobRef(scheduler=Scheduler.files, cluster=cluster, job_id=job_id)


def swap_for_link(path: Path, target: Path) -> None:
    """Replace `path` atomically by a symlink to `target` (what an attacker's `mv -T` does)."""
    tmp = path.with_name(path.name + ".swap")
    os.symlink(target, tmp)
    os.replace(tmp, path)


def read_all(evidence: Evidence) -> bytes:
    return b"".join(b"".join(s.open_bytes()) for s in evidence.sources)


def missing_text(evidence: Evidence) -> str:
    return " ".join(f"{m.what} {m.next_action}" for m in evidence.missing)


def test_a_file_swapped_for_a_link_after_collection_is_not_read(
    tree: tuple[Path, Path], engine: Engine
) -> None:
    root, outside = tree
    evidence = FilesCollector(root).collect(job())
    assert [s.name for s in evidence.sources] == ["rank0.log"]
    swap_for_link(root / "ci" / "1" / "rank0.log", outside / "rank0.log")  # after the collector's look

    diag = engine.diagnose(evidence.sources, missing=evidence.missing)
    dumped = diag.model_dump_json()
    assert "TOPSECRET" not in dumped and "hunter2" not in dumped
    assert diag.stats.bytes == len(b"[rank0]: step 1 loss 2.5\n" + OOM)  # the file opened at collection
    assert "OutOfMemoryError" in dumped
    assert SECRET not in read_all(evidence)
    # read again (a second reader, a retry of the scan): still the collected file, from its start
    assert engine.diagnose(evidence.sources).stats.bytes == diag.stats.bytes


def test_a_folder_swapped_for_a_link_after_collection_is_not_read(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    node = root / "ci" / "1" / "gpu-01"
    node.mkdir()
    (node / "rank1.log").write_bytes(b"[rank1]: fine\n")
    evidence = FilesCollector(root).collect(job())
    assert [s.name for s in evidence.sources] == ["rank0.log", "gpu-01/rank1.log"]
    shutil.rmtree(node)
    (outside / "rank1.log").write_bytes(SECRET)
    os.symlink(outside, node)
    assert read_all(evidence).count(b"fine") == 1 and SECRET not in read_all(evidence)


def test_a_link_swapped_in_between_listing_and_opening_is_refused(
    tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk lists a folder, then opens each entry: the swap lands in that gap."""
    root, outside = tree
    sub = root / "ci" / "1" / "gpu-01"
    sub.mkdir()
    (sub / "rank1.log").write_bytes(b"[rank1]: fine\n")
    (outside / "rank1.log").write_bytes(SECRET)
    real_list = safeopen.list_dir

    def list_then_swap(dir_fd: int) -> tuple[list[str], list[str], list[safeopen.Skipped]]:
        listed = real_list(dir_fd)
        if "rank0.log" in listed[0]:  # the job folder: its file and its sub-folder become links
            swap_for_link(root / "ci" / "1" / "rank0.log", outside / "rank0.log")
            shutil.rmtree(sub)
            os.symlink(outside, sub)
        return listed

    monkeypatch.setattr(safeopen, "list_dir", list_then_swap)
    evidence = FilesCollector(root).collect(job())
    assert evidence.sources == []
    assert SECRET not in read_all(evidence)
    text = missing_text(evidence)
    assert "`rank0.log` (a link)" in text and "`gpu-01` (a link)" in text and "does not follow links" in text


def test_links_inside_the_job_folder_are_refused(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    folder = root / "ci" / "1"
    os.symlink(outside, folder / "linked-node")  # an intermediate folder that is a link out
    os.symlink(outside / "rank0.log", folder / "rank5.log")  # a file link out
    os.symlink(folder / "rank0.log", folder / "rank6.log")  # even a link that stays inside
    evidence = FilesCollector(root).collect(job())
    assert [s.name for s in evidence.sources] == ["rank0.log"]
    text = missing_text(evidence)
    assert "`linked-node` (a link)" in text and "`rank5.log` (a link)" in text
    assert "`rank6.log` (a link)" in text


@pytest.mark.parametrize("where", ["job", "cluster", "inside"])
def test_a_linked_job_or_cluster_folder_is_refused(tree: tuple[Path, Path], where: str) -> None:
    root, outside = tree
    if where == "job":
        os.symlink(outside, root / "ci" / "2")
        ref = job("2")
    elif where == "cluster":
        (outside / "2").mkdir()
        (outside / "2" / "rank0.log").write_bytes(SECRET)
        os.symlink(outside, root / "linked")
        ref = job("2", cluster="linked")
    else:  # a link to another job's folder, inside the root: not followed either
        os.symlink(root / "ci" / "1", root / "ci" / "2")
        ref = job("2")
    with pytest.raises(UnsafePath):
        resolve_job_dir(root, ref.cluster, ref.job_id)
    evidence = FilesCollector(root).collect(ref)
    assert evidence.sources == [] and "does not follow links" in missing_text(evidence)


def test_a_folder_not_yet_copied_passes_the_door(tree: tuple[Path, Path]) -> None:
    root, _ = tree
    assert resolve_job_dir(root, "ci", "3") == (root / "ci" / "3").resolve()
    assert FilesCollector(root).collect(job("3")).missing


def _without_blocking(work: Callable[[], Evidence], unblock: Path) -> Evidence:
    """Run `work`; if it blocks on the FIFO `unblock`, free it with a writer and fail."""
    out: list[Evidence] = []
    worker = threading.Thread(target=lambda: out.append(work()), daemon=True)
    worker.start()
    worker.join(timeout=30)
    if worker.is_alive():
        fd = os.open(unblock, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        worker.join()
        pytest.fail("collecting blocked on a FIFO")
    return out[0]


def test_a_fifo_is_refused_without_blocking(tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = tree
    folder = root / "ci" / "1"
    os.mkfifo(folder / "rank1.log")
    evidence = _without_blocking(lambda: FilesCollector(root).collect(job()), folder / "rank1.log")
    assert [s.name for s in evidence.sources] == ["rank0.log"]
    assert "`rank1.log` (not a regular file)" in missing_text(evidence)

    # a regular file swapped for a FIFO between the listing and the open: opened without blocking,
    # then refused by the fstat of the open descriptor
    (folder / "rank1.log").unlink()
    (folder / "rank1.log").write_bytes(b"[rank1]: fine\n")
    real_list = safeopen.list_dir

    def list_then_swap(dir_fd: int) -> tuple[list[str], list[str], list[safeopen.Skipped]]:
        listed = real_list(dir_fd)
        (folder / "rank1.log").unlink()
        os.mkfifo(folder / "rank1.log")
        return listed

    monkeypatch.setattr(safeopen, "list_dir", list_then_swap)
    evidence = _without_blocking(lambda: FilesCollector(root).collect(job()), folder / "rank1.log")
    assert [s.name for s in evidence.sources] == ["rank0.log"]
    assert "`rank1.log` (not a regular file)" in missing_text(evidence)


def test_devices_and_links_are_refused_by_the_open_itself(tree: tuple[Path, Path]) -> None:
    root, outside = tree
    dev = safeopen.open_root(Path("/dev"))
    try:
        for name in ("zero", "null"):  # `zero` would never end; the fd's fstat refuses both
            with pytest.raises(safeopen.Refused) as err:
                safeopen.open_file(dev, name)
            assert err.value.why == "not a regular file" and not err.value.link
    finally:
        os.close(dev)
    os.symlink(outside / "rank0.log", root / "ci" / "1" / "rank9.log")
    with safeopen.opened_dir(root, ["ci", "1"]) as folder:
        with pytest.raises(safeopen.Refused) as err:
            safeopen.open_file(folder, "rank9.log")
        assert err.value.link
        with safeopen.open_file(folder, "rank0.log") as fh:
            assert fh.read().endswith(OOM)
    os.symlink(outside, root / "ci" / "1" / "sub")
    with pytest.raises(safeopen.Refused) as err, safeopen.opened_dir(root, ["ci", "1", "sub"]):
        pass
    assert err.value.link and err.value.name == "sub"


def test_flight_recorder_dumps_are_found_in_the_opened_files(tmp_path: Path) -> None:
    root = tmp_path / "root"
    shutil.copytree(FIXTURES / "skip_collective", root / "ci" / "8")
    evidence = FilesCollector(root).collect(job("8"))
    assert evidence.sources and all(s.file is not None and s.path is None for s in evidence.sources)
    logs, dumps = split_sources(evidence.sources)  # found by content, read from the open files
    assert logs == [] and len(dumps) == 4
    assert {read_source(d).rank for d in dumps} == {d_rank(d) for d in dumps}


def d_rank(src: LogSource) -> int:
    return int(src.name.rsplit("_", 1)[-1])


def test_slurm_logs_are_read_from_the_file_checked(tmp_path: Path) -> None:
    """The Slurm collector checks type and owner on the open descriptor and hands that file on."""
    log, secret = tmp_path / "job_7_0.out", tmp_path / "other-users.txt"
    log.write_bytes(b"0: [rank0]: step 1\n" * 40 + b"0: " + OOM)
    secret.write_bytes(SECRET)
    fh = tails.open_log(str(log), os.getuid())
    assert fh is not None
    swap_for_link(log, secret)
    chunks = tails.tail_chunks(fh, 1 << 20)
    assert b"".join(chunks()).endswith(OOM) and b"".join(chunks()).endswith(OOM)  # re-readable
    assert tails.is_labelled(fh)
    data, _ = tails.labelled_tail(fh, 200)
    assert data.endswith(OOM) and SECRET not in data
    fh.close()
    os.mkfifo(tmp_path / "fifo.out")
    assert tails.open_log(str(tmp_path / "fifo.out")) is None  # O_NONBLOCK: refused, not blocked
