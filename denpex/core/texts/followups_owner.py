"""Texts of whose ticket a failure is (knowledge/answer_owner.py)."""

OWNER_INFRA = (
    "Infra ticket: the cluster admins own it (whoever runs {node}), not the model team. The node's kernel "
    "log has a GPU fault (Xid), a hardware fault the job's code cannot cause or fix; the job only needs to "
    "run elsewhere. {why}"
)
OWNER_MODEL_DESYNC = (
    "Model team: it is the training script's bug, not infra. {why} The ranks ran different collectives, so "
    "the code took a different branch on one rank (a data-dependent `if`, an early exit, an uneven number "
    "of batches); the network and the GPUs only waited. Fix it in the training code, then rerun."
)
OWNER_MODEL = (
    "Model team: {what} is decided by the job itself (its code, config or launch), not the cluster, so "
    "the fix is theirs. {why}"
)
OWNER_EITHER = (
    "These logs don't settle which team owns it: {what} can come from the job's code or setup or from the "
    "cluster. {why} File it with the model team first unless the node's own logs (dmesg, the scheduler) "
    "show a fault of the machine."
)

#: "check dmesg before putting it back?": yes, and what this job's evidence already shows of the kernel
DMESG_BEFORE_RETURN = (
    "Yes: before returning {node} read its kernel log, `dmesg -T | grep -iE 'error|xid|i/o|oom'`; {kernel}"
)
DMESG_NONE = "no kernel-log (dmesg) line is in this job's evidence, so the node's own log is the only check."
DMESG_SOME = "this job's evidence already holds {n} kernel-log line(s), shown below."
