"""Sentences about PyTorch Flight Recorder dumps (collective traces) that reach a person.

The analysis in `knowledge.flightrec` decides *who* did not arrive and *why we think so*; these
functions only word it, so the CLI, Slack and the JSON `why` fields read the same.
"""

from __future__ import annotations

from collections.abc import Iterable

from denpex.core.ranks import ranges


def _ranks(ranks: Iterable[int]) -> str:
    rs = sorted(set(ranks))
    return f"rank {rs[0]}" if len(rs) == 1 else f"ranks {ranges(rs)}"


def op_label(op: str, seq: int | None, group: str) -> str:
    """`all_gather #39416 in TENSOR_MODEL_PARALLEL_GROUP`."""
    where = f" in {group}" if group else ""
    return f"{op} #{seq}{where}" if seq is not None else f"{op}{where}"


def missing(op: str, seq: int, group: str, entered: Iterable[int], last: int, last_state: str) -> str:
    state = f" ({last_state})" if last_state else ""
    before = f"its last collective there was #{last}{state}" if last > 0 else "it had none there"
    return f"never entered {op_label(op, seq, group)} ({_ranks(entered)} did); {before}"


def desync_op(
    op: str, sizes: str, seq: int, group: str, other_op: str, other_sizes: str, others: Iterable[int]
) -> str:
    return (
        f"called {op} {sizes} as {op_label('collective', seq, group)} where {_ranks(others)} "
        f"called {other_op} {other_sizes}"
    )


def desync_size(op: str, sizes: str, seq: int, group: str, other_sizes: str, others: Iterable[int]) -> str:
    return f"entered {op_label(op, seq, group)} with sizes {sizes} where {_ranks(others)} used {other_sizes}"


def not_completed(op: str, seq: int, group: str, state: str, done: Iterable[int]) -> str:
    return f"{op_label(op, seq, group)} was {state} but never completed while {_ranks(done)} completed it"


def p2p_unmatched(peer: int, kind: str, sent: int, posted: int, group: str, seq: int | None) -> str:
    other = "recv" if kind == "send" else "send"
    last = f" (last {kind} p2p #{seq})" if seq is not None else ""
    return (
        f"rank {peer} posted {sent} {kind}(s) to it in {group}{last} but it posted only {posted} "
        f"matching {other}(s)"
    )


def evidence_line(rank: int, why: str) -> str:
    return f"Flight Recorder: rank {rank} {why}"


def summary(ranks: Iterable[int], op: str, seq: int | None, group: str, others: int) -> str:
    """The one-line form for a thread: ranks 12 and 14 never entered all_gather #39416 in TP (...)."""
    rs = sorted(set(ranks))
    who = f"rank {rs[0]}" if len(rs) == 1 else "ranks " + ", ".join(map(str, rs[:-1])) + f" and {rs[-1]}"
    return f"Flight Recorder: {who} never entered {op_label(op, seq, group)} (the {others} others did)"


def unreadable(name: str, reason: str) -> tuple[str, str]:
    return (
        f"Flight Recorder dump {name} ({reason})",
        "copy the dump again from the rank's node; a dump cut short while the job was killed is "
        "unreadable — set TORCH_FR_DUMP_TEMP_FILE on a local disk with room for it",
    )


def rank_mismatch(name: str, from_name: int, from_dump: Iterable[int]) -> tuple[str, str]:
    return (
        f"rank of Flight Recorder dump {name}: the name says {from_name}, its process groups say "
        f"{_ranks(from_dump)}",
        "check that each rank writes its own dump "
        "(TORCH_FR_DUMP_TEMP_FILE is a prefix; torch appends the rank)",
    )


def no_rank(name: str) -> tuple[str, str]:
    return (
        f"rank of Flight Recorder dump {name}",
        "keep torch's file names (<TORCH_FR_DUMP_TEMP_FILE><rank>) so each dump's rank is known",
    )


def missing_dumps(ranks: Iterable[int]) -> tuple[str, str]:
    return (
        f"Flight Recorder dumps of {_ranks(ranks)}",
        "collect every rank's dump (where `TORCH_FR_DUMP_TEMP_FILE` points, plus the rank; torch's default "
        "is nccl_trace_rank_<rank> under ~/.cache/torch, /tmp on older releases); a rank whose process died "
        "hard writes none",
    )


# -- collection (integrations.slurm.dumps, integrations.kubernetes.dumps)


def too_large(name: str, size: int, cap: int) -> tuple[str, str]:
    return (
        f"Flight Recorder dump {name} ({size} bytes, over the {cap}-byte limit, not read)",
        "raise DENPEX_FR_MAX_BYTES, or make dumps smaller (TORCH_NCCL_TRACE_CPP_STACK=0, a smaller "
        "TORCH_FR_BUFFER_SIZE)",
    )


def agent_dumps_failed(node: str, pod: str, why: str) -> tuple[str, str]:
    return (
        f"Flight Recorder dumps of pod {pod} on {node} ({why})",
        "check the node agent's DENPEX_FR_HOST_PATH (Helm value nodeAgent.flightRecorder.hostPath) and "
        "that the pods mount it with subPathExpr $(POD_NAMESPACE)/$(POD_NAME)",
    )


#: the node agent's answers about dumps (HTTP bodies)
AGENT_NO_HOST_PATH = "404: no Flight Recorder host path is configured here (DENPEX_FR_HOST_PATH)\n"
AGENT_BAD_POD = "400: namespace and pod must be Kubernetes names\n"
AGENT_BAD_NAME = "400: name must be a file name in the pod's folder, not a path\n"
AGENT_NO_DUMP = "404: no such dump\n"


def agent_refused(why: str) -> str:
    return f"403: not served ({why}); only regular files, never links\n"


def agent_unreadable(error: str) -> str:
    return f"503: the Flight Recorder host path cannot be read here: {error}\n"


def suspects_line(ranks: Iterable[int]) -> str:
    """The text output's line under the initiating rank: every rank the dumps implicate."""
    return f"Flight Recorder suspects: {_ranks(ranks)}"


def suspect_detail(rank: int, why: str) -> str:
    return f"rank {rank}: {why}"
