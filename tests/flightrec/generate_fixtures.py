"""Generate real PyTorch Flight Recorder dumps with CPU (gloo) jobs of 4-8 ranks.

    .venv/bin/python -m tests.flightrec.generate_fixtures [OUT_DIR] [--only NAME]

Each scenario is a real `torch.distributed` job (gloo, `TORCH_FR_BUFFER_SIZE=2000`). A rank that
"hangs" waits on an event instead of entering the next collective; the others time out (gloo timeout
3 s), then every rank writes its buffer with `torch._C._distributed_c10d._dump_fr_trace()` (pickle) or
`_dump_fr_trace_json()` — what the watchdog's timeout dump writes to `TORCH_FR_DUMP_TEMP_FILE<rank>`
on NCCL. gloo in torch 2.13 records collectives but not send/recv, and leaves `pg_config` unnamed,
so the p2p and process-group cases of the analysis are also covered by dumps built from this format
in the tests.

The fixtures under `tests/flightrec/fixtures/` were made by this script; the test suite reads them and
runs one scenario live.
"""

from __future__ import annotations

import datetime
import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).with_name("fixtures")
TIMEOUT_S = 3
JOIN_S = 120

#: scenario -> (world size, ranks that hold back, file name pattern, format, expected suspects)
SCENARIOS: dict[str, tuple[int, tuple[int, ...], str, str, tuple[int, ...]]] = {
    "skip_collective": (4, (2,), "nccl_trace_rank_{rank}", "pickle", (2,)),
    "two_ranks_hang": (8, (3, 5), "nccl_trace_rank_{rank}", "pickle", (3, 5)),
    "wrong_collective": (4, (), "trace-{rank}.json", "json", (1,)),
    "size_mismatch": (4, (), "dump_{rank}.bin", "pickle", (3,)),
    "send_without_recv": (4, (), "nccl_trace_rank_{rank}", "pickle", (0,)),
}


def _steps(name: str, rank: int, dist: Any, torch: Any) -> None:
    """The scenario's collectives after a common warm-up; raises when a collective times out."""
    t = torch.ones(4)
    if name == "skip_collective":
        dist.all_reduce(t)
        if rank != 2:  # rank 2 takes another code path and skips this all_reduce
            dist.all_reduce(t)
        if rank == 2:
            return
        dist.all_reduce(t)
    elif name == "two_ranks_hang":
        dist.all_reduce(t)
        if rank in (3, 5):
            return  # stuck elsewhere (data loading, a deadlock): never reaches the next collective
        dist.all_reduce(t)
    elif name == "wrong_collective":
        out = [torch.zeros(4) for _ in range(dist.get_world_size())]
        dist.all_gather(out, t) if rank == 1 else dist.all_reduce(t)
        dist.all_reduce(t)
    elif name == "size_mismatch":
        dist.all_reduce(torch.ones(8) if rank == 3 else t)
        dist.all_reduce(t)
    elif name == "send_without_recv":
        if rank == 0:
            dist.send(torch.ones(1 << 20), 1)  # rank 1 never posts the recv
        dist.all_reduce(t)


def _worker(rank: int, world: int, port: int, name: str, out: str, release: Any, done: Any) -> None:
    os.environ["TORCH_FR_BUFFER_SIZE"] = "2000"
    import torch
    import torch.distributed as dist

    _, hold, pattern, fmt, _ = SCENARIOS[name]
    dist.init_process_group(
        "gloo",
        init_method=f"tcp://127.0.0.1:{port}",
        rank=rank,
        world_size=world,
        timeout=datetime.timedelta(seconds=TIMEOUT_S),
    )
    warm = torch.ones(4)
    for _ in range(2):
        dist.all_reduce(warm)
    dist.barrier()
    try:
        _steps(name, rank, dist, torch)
    except RuntimeError as exc:
        print(f"rank {rank}: {str(exc).splitlines()[0][:160]}", file=sys.stderr, flush=True)
    if rank in hold:
        release.wait(JOIN_S)  # "hung" until the others have timed out and dumped
    c10d = torch._C._distributed_c10d
    data = c10d._dump_fr_trace_json() if fmt == "json" else c10d._dump_fr_trace()
    Path(out, pattern.format(rank=rank)).write_bytes(data)
    done.put(rank)
    done.close()
    done.join_thread()  # flush the queue before the hard exit below
    os._exit(0)  # the process group may be broken after a timeout; do not wait on its teardown


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def generate(name: str, out: Path, spawn: Callable[..., Any] | None = None) -> list[Path]:
    """Run one scenario and write its dumps into `out`; returns the files written."""
    import torch.multiprocessing as mp

    world, hold, pattern, _, _ = SCENARIOS[name]
    out.mkdir(parents=True, exist_ok=True)
    ctx = mp.get_context("spawn")
    release, done = ctx.Event(), ctx.Queue()
    procs = mp.start_processes(
        _worker,
        args=(world, _free_port(), name, str(out), release, done),
        nprocs=world,
        join=False,
        start_method="spawn",
    )
    for _ in range(world - len(hold)):
        done.get(timeout=JOIN_S)
    release.set()
    for _ in hold:
        done.get(timeout=JOIN_S)
    procs.join(JOIN_S)
    return [out / pattern.format(rank=r) for r in range(world)]


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    root = Path(args[0]) if args and args[0] != only else FIXTURES
    for name in SCENARIOS:
        if only is None or name == only:
            files = generate(name, root / name)
            print(f"{name}: {len(files)} dumps, {sum(f.stat().st_size for f in files)} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
