"""One rank of a real gloo job launched by a scheduler (`srun`, a pod), writing a real dump.

    srun -n 4 python -m tests.flightrec.rank_job skip_collective

The rank and world come from the launcher (`SLURM_PROCID`/`SLURM_NTASKS`, else `RANK`/`WORLD_SIZE`),
the rendezvous from `MASTER_ADDR`/`MASTER_PORT` (default 127.0.0.1 and a port derived from the job
id). The scenario is one of `generate_fixtures.SCENARIOS`, run by the same `_steps`. After its steps
(or its collective's timeout) the rank writes `torch._C._distributed_c10d._dump_fr_trace()` to
`$TORCH_FR_DUMP_TEMP_FILE<rank>`, the path torch's own timeout dump uses. A rank that skips ahead
waits until the others have timed out, so every dump shows the same moment.
"""

from __future__ import annotations

import datetime
import os
import sys
import time
from pathlib import Path

from tests.flightrec.generate_fixtures import SCENARIOS, TIMEOUT_S, _steps


def _env_int(*names: str, default: int) -> int:
    for name in names:
        if os.environ.get(name, "").isdigit():
            return int(os.environ[name])
    return default


def main(name: str) -> int:
    os.environ.setdefault("TORCH_FR_BUFFER_SIZE", "2000")
    import torch
    import torch.distributed as dist

    rank = _env_int("SLURM_PROCID", "RANK", default=0)
    world = _env_int("SLURM_NTASKS", "WORLD_SIZE", default=1)
    port = _env_int("MASTER_PORT", default=20000 + _env_int("SLURM_JOB_ID", default=0) % 20000)
    addr = os.environ.get("MASTER_ADDR", "127.0.0.1")
    dist.init_process_group(
        "gloo",
        init_method=f"tcp://{addr}:{port}",
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
    if rank in SCENARIOS[name][1]:
        time.sleep(3 * TIMEOUT_S)  # "hung" until the others have timed out and dumped
    prefix = os.environ.get("TORCH_FR_DUMP_TEMP_FILE") or os.environ.get("TORCH_NCCL_DEBUG_INFO_TEMP_FILE")
    if prefix:
        Path(f"{prefix}{rank}").write_bytes(torch._C._distributed_c10d._dump_fr_trace())
    print(f"rank {rank}: dumped", flush=True)
    sys.stdout.flush()
    os._exit(0)  # the process group may be broken after a timeout; do not wait on its teardown


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
