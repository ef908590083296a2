"""Texts for `knowledge.answer_grounds` and `knowledge.answer_terms_job`: what a conclusion rests on
when the logs do not say it outright, and what a term or line means in this job."""

from __future__ import annotations

TIE_SPLIT = (
    "What tells them apart is in the tracebacks, not the scores: {odd} A timeout alone (a slow rank or"
    " a slow link) leaves every rank in the same collective; ranks in different ones never match, so"
    " a longer timeout would only have waited longer."
)
NO_ENOSPC = (
    "No line of this job says `No space left on device` (ENOSPC, errno 28): the full-disk verdict is an"
    " inference. It rests on {what}: a write that came up short while saving. A full volume or quota is"
    " the usual cause of that, but a dropped network mount or a disk I/O error gives the same lines."
    " To confirm: `df -h <checkpoint dir>`, `df -i` (inodes), `quota -s`, and the node's kernel log"
    " (`dmesg -T | grep -iE 'i/o error|nfs|ext4|xfs'`)."
)
SHORT_POS = "`unexpected pos {a} vs {b}` ({ref}: the zip writer's position did not match what it had written)"
IOSTREAM = "`basic_ios::clear: iostream error` ({ref}: the C++ output stream failed a write)"
CONFIG_SHOWN = "Yes: `{key}` is printed in the logs: `{text}` ({ref})."
CONFIG_INFERRED = (
    "`{key}` is not printed in the logs I have: no line of this job shows that setting, so it is"
    " inferred. It rests on rank {rank}'s traceback: it runs `{func}` ({path} line {number}, {ref}),"
    " {why}. To confirm, read the config the job was launched with (or have it logged at start)."
)
CONFIG_NOT_SEEN = (
    "`{key}` is not printed in the logs I have: no line of this job shows that setting, and no frame of"
    " the tracebacks names it, so treat it as an assumption; read the config the job was launched with."
)
PORT_OTHER = "No: this job's port was {port} ({ref}), not {asked}. {asked_default}"
PORT_SAME = "Yes: this job's port was {port} ({ref})."
DEFAULT_29500 = "29500 is torchrun's default MASTER_PORT; this job set its own."
PORT_TOOL = (
    "A kernel log says nothing about a port clash: EADDRINUSE is the socket call's own answer to the"
    " launcher, not a kernel event. Instead, on the host that binds the rendezvous port, run"
    " `ss -ltnp 'sport = :{port}'` (or `lsof -iTCP:{port} -sTCP:LISTEN`) to see which process holds it."
)
PCI_TIE = (
    "The tie is the node plus the bus id: the kernel line is {node}'s ({kref}), and on {node} the GPU at"
    " bus {bus} is rank {rank}'s: {ids}."
)
PCI_NODE = (
    "The tie is the node first: the kernel line is {node}'s ({kref}), so the fault is a GPU of {node}'s"
    " ranks ({ranks}), not of a rank on another machine with the same bus id. Which of them sits at bus"
    " {bus} is not printed in the kept lines (NCCL's init line with `busId` would say it, under"
    " NCCL_DEBUG=INFO; or `nvidia-smi --query-gpu=index,pci.bus_id --format=csv` on {node}). {inferred}"
)
COLLATERAL_HERE = (
    "Here, from their tracebacks: {rows}; they were waiting on rank {ini}, which failed first ({ref})."
)
RAISED = "Rank {rank} raised it in your code: `{func}` ({path} line {number}, {ref}){code}."
UNDER = "It came from `{func}` ({path} line {number}, {ref}){outer}, on rank {rank}."
CORE_NONE = (
    "A core dump is the memory image the kernel writes when a process crashes (if `ulimit -c` allows),"
    " read with `gdb python <core>` for the native stack. None came with this job's logs. The crashed"
    " process was pid {pid} (rank {rank}) on {node} ({ref}): look there with `coredumpctl list {pid}`"
    " or for a `core.{pid}` file in its working directory."
)
