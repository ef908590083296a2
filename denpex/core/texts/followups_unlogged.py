"""Replies for a kernel log the job lacks and for values no line of the job prints."""

#: no node log at all in the job's evidence
NO_KERNEL_LOG = (
    "No kernel log (dmesg) was collected for this job, so nothing here can show a kernel OOM kill, "
    "an Xid, a filesystem I/O error or another kernel event. What the job's own lines show: rank {rank} "
    "failed first with "
    "{what} ({ref}: `{text}`)."
)
#: a node asked about whose kernel log was not collected, another node's was
NODE_NOT_COLLECTED = (
    "No kernel log (dmesg) from {node} is in this job's evidence: it was not collected, so nothing here can "
    "show an Xid or another kernel event on {node}; only {have} was. Run `dmesg -T | grep -iE 'xid|oom'` on "
    "{node} to check it."
)
#: the first rank was ended by SIGTERM: who sends that
SIGTERM_SENDER = (
    " SIGTERM (signal 15) is what the launcher (torchrun's elastic agent) sends to stop its workers; "
    "the kernel OOM killer sends SIGKILL (-9)."
)
#: the command to run for the missing log
KERNEL_CHECK = " To be sure, run `dmesg -T | grep -iE 'oom|xid'` on {node}."
#: node logs collected, none names a GPU fault
KERNEL_CLEAN = (
    "{node}'s kernel log ({source}) is in this job's evidence and has no Xid (GPU fault) line: nothing there "
    "points at a defective GPU or other hardware. Rank {rank} failed with {what}: a software or sizing cause "
    "that follows the job, not the GPU."
)
#: values asked that no line prints
NOT_LOGGED = "{what} is not in the logs: no line of this job prints it. {check}"
NODE_RAM = (
    "The node's total RAM (or the job's memory limit)",
    "Check `free -g` on the node, or `sacct -j <jobid> -o ReqMem,MaxRSS` for the job's limit.",
)
FREE_SPACE = (
    "The free space left on the volume when it failed",
    "No `df` output was collected; check "
    "`df -h <checkpoint dir>` (and `df -i` for inodes, `quota -s` for a quota).",
)
GPU_SENSORS = (
    "The GPU's temperature and power draw",
    "No `nvidia-smi` or DCGM readings were collected; "
    "check `nvidia-smi -q -d TEMPERATURE,POWER` or the node's DCGM history.",
)
SETTING_LOGGED = "The logs print {name} {value} ({ref})."
SETTING_MISSING = ("The", "Check the run's config or launch command.")
