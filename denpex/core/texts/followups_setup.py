"""Texts of the answers about the job's set-up lines (`knowledge.answer_setup`)."""

from __future__ import annotations


def model(name: str, text: str, ref: str, more: int) -> str:
    """The model the job loaded, with the line that names it."""
    others = f" — the same line in {more} other log{'s' if more != 1 else ''}" if more else ""
    return f"The model was {name}: `{text}` ({ref}){others}."


def world(size: int, what: str, ref: str) -> str:
    """One world size, as every kept line says it."""
    return f"World size {size}: {what} ({ref})."


def world_disagree(parts: list[str]) -> str:
    """Two world sizes in the job's own lines: each with the line it comes from."""
    return "The logs disagree on the world size: " + "; ".join(parts) + "."


def world_part(size: int, what: str, ref: str) -> str:
    """ "world_size=4 in the launch line (rank0.log:1)"."""
    return f"{size} in {what} ({ref})"


def driver(version: str, node: str, text: str, ref: str) -> str:
    """The NVIDIA driver a node loaded, from its kernel log."""
    where = f" on {node}" if node else ""
    return f"The NVIDIA driver{where} was {version}: `{text}` ({ref})."


def no_driver() -> str:
    """No kept line shows a driver version."""
    return (
        "No driver version is in the logs I have: no kernel log with NVIDIA's `NVRM: loading NVIDIA UNIX"
        " … Kernel Module` line and no `nvidia-smi` header (`Driver Version:`) was given."
    )


def no_driver_on(node: str, others: str) -> str:
    """The asked node's kernel log is not among the logs; another node's driver line is."""
    return (
        f"No driver line for {node}: its kernel log (`dmesg -T | grep NVRM`) is not among the logs; the"
        f" driver line I have is from another node ({others})."
    )


def rank_line(rank: int, what: str, fields: str, text: str, ref: str) -> str:
    """ "Rank 5's NCCL init line (pid 4521, cudaDev 1, busId 3b000): `…` (rank5.log:6)"."""
    shown = f" ({fields})" if fields else ""
    return f"Rank {rank}'s {what}{shown}: `{text}` ({ref})."


def no_rank_line(rank: int, what: str) -> str:
    """The asked rank printed no such set-up line."""
    return f"Rank {rank} printed no {what} in the logs I have."


#: what each kind of set-up line is called in an answer
KIND_NAMES = {
    "model": "model load line",
    "process_group": "ProcessGroupNCCL init line",
    "nccl_init": "NCCL init line",
    "launch": "launch line",
    "driver": "driver load line",
}
