"""A small data-parallel training job (CPU, gloo) that fails the way real jobs fail.

Run under `torchrun --nproc_per_node 4 train.py --fault KIND --fault-rank R --fault-step S` or under
`srun --label -n 4 python train.py ...` (ranks from SLURM_PROCID). It prints what trainers print (a
per-process init line, step/loss lines, "Saving checkpoint to ..."), and injects one fault from
`faults.py` in one rank at one step, so the logs that reach Denpex are real PyTorch output.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import sys
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset, DistributedSampler

sys.path.insert(0, str(Path(__file__).resolve().parent))
import faults  # the job runs as a script: its folder is not a package
from faults import Fault

log = logging.getLogger("train")
BATCH = 8
FEATURES = 16


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--fault", choices=faults.KINDS, default="none")
    p.add_argument("--fault-rank", type=int, default=-1)
    p.add_argument("--fault-step", type=int, default=-1)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--save-every", type=int, default=0, help="0: save only when a fault needs it")
    p.add_argument("--ckpt-dir", type=Path, default=Path("checkpoints"))
    p.add_argument("--timeout", type=float, default=15.0, help="process-group timeout, seconds")
    p.add_argument("--workers", type=int, default=0, help="DataLoader workers")
    p.add_argument(
        "--dp",
        choices=("ddp", "manual"),
        default="ddp",
        help="manual: average gradients with all_reduce by hand (DDP's constructor segfaults "
        "under TORCH_DISTRIBUTED_DEBUG=DETAIL with gloo in torch 2.13.0+cpu)",
    )
    return p.parse_args()


def init_distributed(timeout: float) -> tuple[int, int]:
    """torchrun sets RANK/WORLD_SIZE; under srun they come from Slurm's task ids."""
    if "RANK" not in os.environ and "SLURM_PROCID" in os.environ:
        os.environ["RANK"] = os.environ["SLURM_PROCID"]
        os.environ["WORLD_SIZE"] = os.environ["SLURM_NTASKS"]
        os.environ["LOCAL_RANK"] = os.environ.get("SLURM_LOCALID", "0")
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29500")
    dist.init_process_group("gloo", timeout=timedelta(seconds=timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    # the line PyTorch Lightning prints for every process
    log.info("Initializing distributed: GLOBAL_RANK: %d, MEMBER: %d/%d", rank, rank + 1, world)
    return rank, world


class Synthetic(Dataset):
    """Random regression data; item `i` is the same on every run (seeded by index)."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        fault = Fault.from_env()
        info = torch.utils.data.get_worker_info()
        if info is not None and fault.kind == "worker_kill" and index == fault_index(fault):
            faults.kill_self()
        g = torch.Generator().manual_seed(index)
        return {"inputs": torch.randn(FEATURES, generator=g), "labels": torch.randn(4, generator=g)}


def fault_index(fault: Fault) -> int:
    """The sample the faulty rank reads first at the fault step (DistributedSampler, no shuffle)."""
    world = int(os.environ["WORLD_SIZE"])
    return fault.rank + world * fault.step * BATCH


def build_model(kind: str, dp: str) -> nn.Module:
    """DDP for most jobs; FSDP2 (fully_shard) for the job that gathers a full state dict."""
    if kind == "memory_gather":
        from torch.distributed.fsdp import fully_shard

        model = nn.Sequential(
            nn.Linear(FEATURES, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 4)
        )
        for layer in model:
            if isinstance(layer, nn.Linear):
                fully_shard(layer)
        return fully_shard(model)
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 4))
    return model if dp == "manual" else nn.parallel.DistributedDataParallel(model)


def average_gradients(model: nn.Module) -> None:
    """Hand-rolled data parallelism (what DDP's reducer does, one all_reduce per parameter)."""
    for param in model.parameters():
        if param.grad is not None:
            dist.all_reduce(param.grad)
            param.grad /= dist.get_world_size()


def forward_loss(
    model: nn.Module, batch: dict[str, torch.Tensor], fault: Fault, rank: int, step: int
) -> torch.Tensor:
    inputs = batch["inputs"]
    if fault.fires("shape", rank, step):
        inputs = inputs[:, : FEATURES - 1]  # a feature dropped by a preprocessing change
    if fault.fires("nan", rank, step):
        inputs = inputs * float("nan")  # a corrupt sample
    if fault.fires("memory_train", rank, step):
        faults.limit_address_space(16 * 2**20)
        inputs = inputs.repeat(2**18, 1)  # a runaway batch (a packing bug)
    if fault.fires("memory_python", rank, step):
        faults.limit_address_space(16 * 2**20)
        _cache = bytearray(512 * 2**20)  # an in-RAM sample cache growing without bound
    if fault.fires("user_error", rank, step):
        batch = {k: v for k, v in batch.items() if k != "labels"}
    out = model(inputs)
    return nn.functional.mse_loss(out, batch["labels"].expand_as(out))


def reduce_metric(loss: torch.Tensor, fault: Fault, rank: int, step: int) -> float:
    """The mean loss across ranks for the log line: one collective per step, as trainers do."""
    value = loss.detach().clone()
    if fault.fires("hang", rank, step):
        faults.hang_forever()
    if fault.fires("desync", rank, step):
        dist.broadcast(value, src=0)  # this rank takes another branch: a different collective
    else:
        dist.all_reduce(value)
    return value.item() / dist.get_world_size()


def save_checkpoint(
    model: nn.Module, optim: torch.optim.Optimizer, step: int, ckpt_dir: Path, fault: Fault, rank: int
) -> None:
    path = ckpt_dir / f"checkpoint-{step}.pt"
    if rank == 0:
        log.info("Saving checkpoint to %s", path)
        ckpt_dir.mkdir(parents=True, exist_ok=True)
    if not hasattr(model, "reshard"):  # not FSDP2: every rank has the whole model
        state = getattr(model, "module", model).state_dict()
        if fault.fires("disk_full", rank, step):
            faults.full_disk_path(path)
        if fault.fires("disk_full_fileobj", rank, step):
            # each rank's optimizer shard (DeepSpeed's naming), written through a file object, so
            # Python's own write reports the OS error
            shard = faults.full_disk_path(ckpt_dir / f"zero_pp_rank_{rank}_mp_rank_00_optim_states.pt")
            with shard.open("wb") as fh:
                torch.save({"optim": optim.state_dict(), "step": step}, fh)
        if rank == 0 or fault.fires("disk_full", rank, step):
            torch.save({"model": state, "step": step}, path)
    else:
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_state_dict

        if fault.fires("memory_gather", rank, step):
            faults.limit_address_space(8 * 2**20)
        # full_state_dict on every rank (no rank0-only / CPU offload): every rank holds all weights
        # and the whole optimizer state
        state, optim_state = get_state_dict(model, optim, options=StateDictOptions(full_state_dict=True))
        if rank == 0:
            torch.save({"model": state, "optim": optim_state, "step": step}, path)
    dist.barrier()
    if rank == 0:
        log.info("Checkpoint saved: %s", path)


def train(args: argparse.Namespace, rank: int, world: int) -> None:
    fault = Fault(args.fault, args.fault_rank, args.fault_step)
    torch.manual_seed(0)
    model = build_model(args.fault, args.dp)
    optim = (
        torch.optim.Adam(model.parameters(), lr=1e-3)
        if args.fault == "memory_gather"
        else torch.optim.SGD(model.parameters(), lr=0.01)
    )
    data = Synthetic(world * BATCH * (args.steps + 2))
    sampler = DistributedSampler(data, num_replicas=world, rank=rank, shuffle=False)
    loader = DataLoader(data, batch_size=BATCH, sampler=sampler, num_workers=args.workers)
    save_steps = (
        {args.fault_step} if args.fault in ("disk_full", "disk_full_fileobj", "memory_gather") else set()
    )
    log.info("Starting training: %d steps, world size %d", args.steps, world)
    for step, batch in enumerate(loader):
        if step >= args.steps:
            break
        if fault.fires("segfault", rank, step):
            faults.segfault()
        if fault.fires("sigkill", rank, step):
            faults.kill_self()
        loss = forward_loss(model, batch, fault, rank, step)
        if not math.isfinite(loss.item()):
            raise ValueError(f"Loss is {loss.item()}, stopping training")  # the timm/DeiT guard
        optim.zero_grad()
        loss.backward()
        if args.dp == "manual":
            average_gradients(model)
        optim.step()
        mean = reduce_metric(loss, fault, rank, step)
        if rank == 0:
            log.info("step %d/%d loss %.4f", step, args.steps, mean)
        if step in save_steps or (args.save_every and step and step % args.save_every == 0):
            save_checkpoint(model, optim, step, args.ckpt_dir, fault, rank)
    log.info("Training finished")


def main() -> None:
    logging.basicConfig(
        level=logging.INFO, stream=sys.stdout, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    args = parse_args()
    for key, value in (
        ("RJ_FAULT", args.fault),
        ("RJ_FAULT_RANK", args.fault_rank),
        ("RJ_FAULT_STEP", args.fault_step),
    ):
        os.environ[key] = str(value)
    if args.fault.startswith("memory_"):
        faults.pin_mmap_threshold()
    rank, world = init_distributed(args.timeout)
    train(args, rank, world)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
