"""Texts of the answers about who waited on whom, and what a rank died with (`knowledge.answer_victims`),
and about an Xid held against the user's code or the node's return (`knowledge.answer_xid_code`)."""

from __future__ import annotations


def waited(ranks: str, op: str, where: str, error: str, ref: str) -> str:
    """The waiting ranks' collective and the error it ended in."""
    return (
        f"Their own tracebacks show it: rank(s) {ranks} were inside `{op}`{where} and failed with `{error}`"
        f" ({ref}) — the collective's socket to a peer closed, which happens when that peer's process has"
        " already exited."
    )


def own_failure(rank: int, error: str, ref: str, where: str) -> str:
    """The first rank's failure is its own, in no collective."""
    return (
        f"Rank {rank} was in no collective: it failed on its own, with `{error}` ({ref}){where}. A rank"
        " waiting on the others would show a collective in its traceback and a closed peer or a timeout,"
        f" as the waiting ranks do; rank {rank} shows neither."
    )


def in_code(func: str, file: str, line: int, code: str) -> str:
    return f", in `{func}` ({file} line {line}){code}"


def died_with(rank: int, text: str, ref: str) -> str:
    """What a rank died with: its own failure line."""
    return f"Rank {rank} died with `{text}` ({ref})."


def xid_not_code(code: int, name: str, ref: str, rank: int, pci: str) -> str:
    """A hardware Xid held against the user's code: no, and what it is."""
    return (
        f"Not by this job's evidence: Xid {code} is *{name}* ({ref}, rank {rank}'s GPU at PCI {pci}), which"
        " the Xid catalogue marks as a hardware fault (the GPU stopped answering on the PCIe bus: the GPU,"
        " its baseboard or riser, power or cooling), not something training code can cause."
    )


def xid_own(rank: int, text: str, ref: str, gap: str) -> str:
    """The rank's own error next to the Xid."""
    return (
        f"Rank {rank}'s own log agrees: `{text}` ({ref}){gap} — that is what CUDA reports for whatever"
        " kernel was running once the device is gone, not a sign of that kernel's own bug."
    )


def xid_apps(codes: str) -> str:
    """What a kernel bug would have looked like instead."""
    return (
        f"A bug in a kernel (an illegal memory access) shows as an application Xid ({codes}) and CUDA's"
        " `an illegal memory access was encountered`, not as this Xid."
    )


def back_in(node: str, steps: str) -> str:
    """The checks before a node returns to the pool, from the fix."""
    return f"Before {node} goes back into the pool: {steps}."


def back_cmds(cmds: str) -> str:
    return f"run `{cmds}` and put it back only if they come back clean"


def xid_pid(rank: int, own: str, pid: str, ref: str) -> str:
    """The rank's pid as its NCCL line prints it, held against the kernel's."""
    return (
        f"Rank {rank}'s own NCCL init line prints its process as pid {own} ({ref}), not {pid}: the kernel"
        " and the job can see one process under different pids (a container's pid namespace), so the pid"
        f" neither ties the Xid to rank {rank} nor rules it out; the bus id does."
    )


DATA_PHASE_YES = (
    "Yes, the data, by this job's evidence: rank {rank} failed first, with {what}; the last line it printed"
    " before that says what it was doing: `{text}` ({ref})."
)
DATA_NOT_MODEL = (
    "Not the model loading: that line is the rank building its data, and nothing in the kept lines shows a"
    " model being loaded when it was killed."
)
MMAP_PATTERN = (
    "A pattern to drop in: build the index once, on one rank, into a file, and have every rank memory-map"
    " it read-only, so the pages are shared through the page cache instead of one copy per rank:"
    " `if rank == 0 and not os.path.exists(path): idx = np.lib.format.open_memmap(path + '.tmp', mode='w+',"
    " dtype=np.int64, shape=(n,)); fill idx in chunks; idx.flush(); os.replace(path + '.tmp', path)`, then"
    " `dist.barrier()` and on every rank `idx = np.load(path, mmap_mode='r')` (or keep the data as HF"
    " datasets Arrow files, which are memory-mapped the same way)."
)


def data_fix(steps: str) -> str:
    """The fix's steps about the data code, for a "how do I restructure the dataset code" ask."""
    return f"For the data code, the fix says: {steps}."


def points_at(rank: int, text: str, ref: str, pid: str, killed: bool) -> str:
    """The first rank's own last line before its failure, what it was doing, against another cause."""
    who = f"the process the kernel killed (pid {pid})" if pid else f"rank {rank}"
    end = "was killed" if killed else "failed"
    return (
        f"What points at it: {who} printed, just before, `{text}` ({ref}) — what rank {rank} was doing when"
        f" it {end}."
    )
