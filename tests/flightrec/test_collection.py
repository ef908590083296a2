"""How the Slurm collector finds a job's dumps on disk (`integrations.slurm.dumps`), without a cluster:
globs and their expansion, the script's prefix, the job's time window, content, bounds and owners."""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from integrations.slurm import dumps, outputs
from knowledge.flightrec import sniff
from tests.flightrec.dumps import FIXTURES

START = datetime(2026, 11, 29, 19, 0, tzinfo=UTC)  # the job's start and end (never the real date)
END = START + timedelta(minutes=20)
DURING = (START + timedelta(minutes=5)).timestamp()
DUMP = FIXTURES / "skip_collective" / "nccl_trace_rank_0"


def put(path: Path, src: Path = DUMP, mtime: float = DURING) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(src, path)
    os.utime(path, (mtime, mtime))
    return path


def find(
    work: Path, script: str = "", glob: str | None = None, owner: int | None = None, **kw: object
) -> dumps.Found:
    values = outputs.Values(job_id="4242", user="alice", name="train", work_dir=str(work))
    options = dumps.DumpOptions.parse(glob, 1 << 20)
    return dumps.find(
        options,
        bases=[str(work)],
        prefixes=dumps.script_prefixes(script, values),
        values=values,
        owner=os.getuid() if owner is None else owner,
        start=kw.get("start", START),
        end=kw.get("end", END),
        skip=set(),
    )


def names(found: dumps.Found) -> list[str]:
    return sorted(s.name for s in found.sources)


def test_torch_default_names_at_any_shallow_depth_and_only_from_this_job(tmp_path: Path) -> None:
    put(tmp_path / "nccl_trace_rank_0")
    put(tmp_path / ".cache" / "torch" / "nccl_trace_rank_1")  # torch 2.13's default, under $HOME
    put(tmp_path / "nccl_trace_rank_2", mtime=(START - timedelta(days=1)).timestamp())  # an earlier job's
    put(tmp_path / "nccl_trace_rank_3", mtime=(END + timedelta(hours=2)).timestamp())  # a later job's
    put(tmp_path / ".venv" / "nccl_trace_rank_4")  # tool folders are skipped
    put(tmp_path / "a" / "b" / "c" / "d" / "e" / "nccl_trace_rank_5")  # deeper than MAX_DEPTH
    os.symlink(tmp_path / "a", tmp_path / "link")  # a linked folder is never walked
    found = find(tmp_path)
    assert names(found) == [".cache/torch/nccl_trace_rank_1", "nccl_trace_rank_0"]
    assert all(s.kind == "flight_recorder" for s in found.sources) and found.refused == []
    src = next(s for s in found.sources if s.name == "nccl_trace_rank_0")
    assert b"".join(src.open_bytes()) == DUMP.read_bytes()


def test_glob_setting_with_slurm_patterns_and_the_scripts_prefix(tmp_path: Path) -> None:
    put(tmp_path / "fr-4242" / "trace_0")
    put(tmp_path / "fr-4241" / "trace_0")  # another job's folder
    put(tmp_path / "pfx" / "4242" / "my_dump_3")
    script = (
        'export TORCH_FR_DUMP_TEMP_FILE="$SLURM_SUBMIT_DIR/pfx/$SLURM_JOB_ID/my_dump_"\nsrun python t.py\n'
    )
    assert dumps.script_prefixes(script, outputs.Values(job_id="4242", work_dir=str(tmp_path))) == [
        f"{tmp_path}/pfx/4242/my_dump_"
    ]
    found = find(tmp_path, script=script, glob="fr-%j/trace_*, /nonexistent/%u/*")
    # fr-4241/trace_0 is found by content only (it was written while the job ran)
    assert names(found) == ["fr-4241/trace_0", "fr-4242/trace_0", "pfx/4242/my_dump_3"]
    assert names(find(tmp_path, script=script, glob="fr-%j/trace_*", start=None)) == [
        "fr-4242/trace_0",
        "pfx/4242/my_dump_3",
    ]  # no known start: nothing by content alone


def test_dumps_under_other_names_are_found_by_content(tmp_path: Path) -> None:
    put(tmp_path / "out" / "weird.json", FIXTURES / "wrong_collective" / "trace-1.json")
    put(tmp_path / "out" / "r3.dump", FIXTURES / "size_mismatch" / "dump_3.bin")
    (tmp_path / "out" / "train.log").write_text("step 1 loss 2.3\n")
    put(tmp_path / "out" / "model.pt", tmp_path / "out" / "train.log")
    assert names(find(tmp_path)) == ["out/r3.dump", "out/weird.json"]


def test_the_hint_agrees_with_the_engines_reader() -> None:
    files = [p for p in FIXTURES.rglob("*") if p.is_file()]
    assert files
    for p in files:
        head = p.read_bytes()[: dumps.SNIFF_BYTES]
        assert dumps.looks_like_dump(head) == (sniff(head) is not None) == True, p  # noqa: E712
    for other in (b"step 1 loss 2.3\n", b'{"loss": 2.3}', b"\x80\x04K\x01.", b"PK\x03\x04"):
        assert not dumps.looks_like_dump(other) and sniff(other) is None


@pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")
def test_files_of_another_user_are_refused_by_name_and_never_peeked_at(tmp_path: Path) -> None:
    put(tmp_path / "nccl_trace_rank_0")
    other = put(tmp_path / "nccl_trace_rank_1")
    os.chown(other, 65534, 65534)
    peek = put(tmp_path / "renamed.bin")
    os.chown(peek, 65534, 65534)
    found = find(tmp_path)
    assert names(found) == ["nccl_trace_rank_0"]
    assert [(r.path, r.problem) for r in found.refused] == [
        (str(other), "not a regular file owned by the job's user, not read")
    ]


def test_the_size_cap_refuses_before_reading(tmp_path: Path) -> None:
    put(tmp_path / "nccl_trace_rank_0")
    values = outputs.Values(job_id="1", work_dir=str(tmp_path))
    found = dumps.find(
        dumps.DumpOptions(byte_cap=100),
        bases=[str(tmp_path)],
        prefixes=[],
        values=values,
        owner=os.getuid(),
        start=START,
        end=END,
        skip=set(),
    )
    assert found.sources == [] and [(r.problem, r.size) for r in found.refused] == [
        ("too large", DUMP.stat().st_size)
    ]
