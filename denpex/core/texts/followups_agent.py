"""Texts for the launcher's and scheduler's own facts (knowledge/answer_agent.py): torchrun's agent pid
and when it stopped the workers, the rendezvous backend, the Slurm step and srun's grace period."""

from __future__ import annotations

AGENT_PID = (
    "The torchrun agent (the launcher process itself) was pid {pid}: its own log lines carry it ({ref})."
)
AGENT_PID_UNSAID = (
    "The torchrun agent's own pid is not in the lines Denpex kept: it is the number after the time in the"
    " launcher's own glog-style lines (`W<MMDD> <time> <pid> torch/distributed/elastic/…`, e.g. its"
    " `Sending process … closing signal SIGTERM` lines); `ps -o pid,args -C torchrun` while it runs shows it."
)
TEARDOWN = (
    "The launcher began tearing the job down at {time} ({ref}): it sent SIGTERM to pid(s) {pids}{failed}."
)
TEARDOWN_SUMMARY = (
    "The launcher's own `Sending process … closing signal SIGTERM` lines are not in the kept lines; its"
    " failure summary stamps the workers it SIGTERMed, rank(s) {ranks}{pids}, with the time {time} ({ref}):"
    " the SIGTERMs had gone out by then (the summary's times are to the second)."
)
TEARDOWN_FAILED = ", after it saw local_rank {local} (pid {pid}) fail with exitcode {code} ({ref})"
AGENT_SIGNAL = "The torchrun agent itself received signal {sig} at {time} and shut down its workers ({ref})."
RDZV = "The rendezvous backend was {backend}: the launcher's traceback runs through `{file}` ({ref}){store}."
RDZV_STORE = (
    "; it blew up creating the `TCPStore` (the rendezvous key-value server the master listens on, hosted"
    " by the torchrun launcher itself, not by any rank's worker) ({ref}), before any worker started"
)
RDZV_BACKENDS = {
    "static_tcp_rendezvous": "static (`static_tcp_rendezvous`, torchrun's default without `--rdzv-backend`)",
    "c10d_rendezvous_backend": "c10d (`--rdzv-backend=c10d`, dynamic rendezvous on a TCPStore)",
    "etcd_rendezvous": "etcd (`--rdzv-backend=etcd`)",
    "etcd_rendezvous_backend": "etcd-v2 (`--rdzv-backend=etcd-v2`)",
}
SLURM_STEP = (
    "Slurm job {job}, step {step}, on {node} ({ref}): `sacct -j {step} -o JobID,NodeList,State,Elapsed`."
)
SRUN_WAIT = (
    "srun waited up to {secs} seconds for the job step to finish after it aborted it ({ref}); then Slurm "
    "kills what is left with SIGKILL: that wait is its grace period (`KillWait`)."
)

# knowledge/answer_gpu_ids.py
GPU_IDS = "Rank {rank}{node} ran as {ids} ({ref})."
GPU_LOCAL = "local_rank {local}"
GPU_NCCL = "cudaDev {cuda}, nvmlDev {nvml}, busId {bus}"
PID_NCCL = "NCCL's init line gives rank {rank}'s process as pid {pid} (`{prefix}`, {ref})."
PID_OTHER = (
    " The kernel line names pid {other} ({kref}): not the same number, so the pids alone do not show it"
    " was rank {rank}'s process (the kernel logs the host's pid while a container sees its own pid"
    " namespace; a restarted worker or another process on that GPU has another pid); what ties the fault"
    " to rank {rank} is the GPU, not the pid{bus}."
)
PID_SAME = " The kernel line names the same pid, {other} ({kref}): it was rank {rank}'s process."
PID_BUS = " (the fault's PCI {pci} is rank {rank}'s busId {bus})"
DMESG_BEFORE = "Before the {what} ({xref}), {node}'s kernel log has {count}: {lines}."
DMESG_NOTHING = "Before the {what} ({xref}), {node}'s kernel log has no other line in what was kept."
GPU_INFERRED = (
    "Rank {rank} is number {nth} of the {count} ranks on {node} ({ranks}): with torchrun's contiguous"
    " numbering (rank = node_rank × nproc_per_node + local_rank) that is local_rank {local}, device"
    " cuda:{local}{bus} — inferred, the kept lines do not print its local_rank or NCCL's cudaDev."
)
PID_QUOTED = (
    "The kernel line names pid {other} ({kref}); the {pid} you quote is another number, so the pids"
    " alone do not show it was the same process: the kernel logs the host's pid while a container's"
    " processes see their own pid namespace, and a restarted worker or another process on that GPU has"
    " another pid. Rank {rank}'s own pid line is not in the kept lines to check {pid} against; what ties"
    " the fault to rank {rank} is the GPU{bus}, not the pid."
)
