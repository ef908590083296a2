"""Follow-up sentences for yes/no answers about the job's limits and its hardware, and for a guess
put against the user's code.

"What was the time limit set to?", "reboot anything?", "network or our code?": each says its verdict
first (not logged, no need, your code), then the job's facts. `knowledge.answer_time_limit`,
`knowledge.answer_node` and `knowledge.answer_checks` fill them in. Kept apart from `followups.py`,
which is full.
"""

from __future__ import annotations

LIMIT_AT_LEAST = "The limit was at least that long: the scheduler ended the job when it ran out."
LIMIT_NOT_REACHED = (
    "The time limit is not in the logs (`sacct -j <jobid> -o JobID,Elapsed,Timelimit` shows it), and it is "
    "not what ended this job: rank {rank} failed first, with {what}."
)
LIMIT_MORE = "How much longer it needs depends on the steps still to run:"
#: "safe to resubmit with the same --time?" for a job the scheduler ended at its time limit
LIMIT_SAME_TIME = (
    "Not with the same `--time`: the scheduler ended the job at its time limit ({ref}), not a fault, so the"
    " same limit stops it again at about the same point ({span}). Resubmit with a longer `--time` (within the"
    " partition's limit), or let it resume from a checkpoint in requeued chunks."
)
NOT_HARDWARE = (
    "No sign of hardware: not a hardware problem — this job failed with {what}, and no Xid (GPU fault) "
    "is in its evidence."
)
NO_HW_ACTION = "No need to {act} anything: nothing in this job's evidence points at {node}'s hardware."
HW_ACTION_UNSURE = (
    "Not on this evidence: nothing in it points at {node}'s hardware yet; {act} only if its kernel log "
    "shows an Xid (the check below)."
)
XID_ACTION = "Yes: {step}"
NO_KERNEL_FAULT_ON = (
    "No kernel-log (dmesg) line in this job's evidence names a GPU fault; to rule it out, check "
    "`dmesg -T | grep -i xid` on rank {rank}'s node, {node}."
)
CODE_NOT_NETWORK = "Your code, not the network or the hardware. {why}"

# a yes/no check whose premise may be false (`knowledge.answer_premise`): the verdict, then the fact
PREMISE_RANK_YES = "Yes: rank {rank} started it, with {what}."
PREMISE_RANK_NO = "No: rank {rank} {verb}, with {what}; rank {named} was {role}."
PREMISE_WAITED_IN = "collateral: it was waiting on rank {rank} in `{op}`{where} when it failed"
PREMISE_KILLED_PID = "The kernel OOM killer killed rank {rank}'s process, pid {pid}."
PREMISE_STEP = (
    "the last step any rank logged was step {last}{total} (rank {rank}, {ref}); the job ended after "
    "that{doing}, before step {next} was logged."
)
PREMISE_STEP_AT = "it failed at step {last}{total} (rank {rank}, {ref}), the last step any rank logged."
PREMISE_NO_STEP = "No step line is in the logs, so step {step} cannot be confirmed: no rank logged its steps."
DESYNC_YES = "Yes, a desync: {why}"
DESYNC_NOT_SEEN = "No evidence of a desync: no rank is seen in a different collective. Instead, {what}."
DESYNC_SILENT = (
    "rank {rank} went silent without an error of its own, and ranks {ranks} timed out waiting for it"
)
DESYNC_NO = "No: not a desync — rank {rank} failed with {what}, not in a mismatched collective."
PREMISE_RANK_NOT_KILLED = "Rank {rank} started it, but nothing killed it: it failed with {what}."
JOB_ID = "Job {job} ({ref})."
JOB_ID_NAMED = "Job {job} (the log's name or its environment line gives it)."
JOB_ID_NONE = (
    "No line of this job's logs gives its scheduler id: the alert that queued it has it "
    "(`squeue -u $USER` / `sacct -u $USER -S today` on Slurm, the pod's name on Kubernetes)."
)
SACCT_CMD = "Run `{code}`: the scheduler's record of how this job ended."
SACCT_NO_ID = "Run `{code}` with the job's id (no log here names it): the scheduler's record of how it ended."

# what to change or capture before the rerun (`knowledge.answer_rerun`), after a drain or restart verdict
RERUN_CHANGE = "What to change before the rerun: {fact}{step}"
RERUN_CAPTURE = (
    "Grab something first: nothing in these logs shows where rank {rank}'s code was when it {how}, and a "
    "rerun as is would hide it again. Set up for the rerun: {steps}."
)
RERUN_HOW_SILENT = "stalled"
RERUN_HOW_CRASHED = "crashed"

# "the diagnosis says X: does that fit this run?" (`knowledge.answer_fixfit.advice_fit`)
FIT_NO_RISE = (
    "Not for this run: that advice assumes the loss rose before the NaN, and here it did not. {trend} A "
    "loss that turns NaN at once on rank {rank} points at one batch (or one op on it) more than at the "
    "learning rate, so there is no 'before the rise' to go back to. What to change: {steps}"
)
FIT_JOB = "That advice, fitted to this run: {said}"
FIT_VERIFY = (
    "To verify: rerun past step {step} with a `torch.isfinite(loss)` check on every rank, then the "
    "command below."
)

# "anything left to kill before i relaunch?" for a job that never started a worker
NOTHING_TO_KILL = (
    "No training process started: the launcher failed with {what} ({ref}), before any worker ran, so "
    "nothing of this job's is left to kill."
)
PORT_HOLDER = "What still holds the port is another process; `{check}` on {node} shows it."

# "which line of our code is doing this?" for a rank killed without a traceback (`answer_code_cause`)
CODE_FROM_OTHERS = (
    "Rank {rank} was killed without a traceback of its own, but every rank runs the same code there, and "
    "another rank's traceback names the line: {where}"
)

# a port the user means to set by hand next time, for a job whose port was taken (`answer_port`)
PORT_PROPOSED = (
    "Not by itself: port {port} is fine only if nothing else on {node} listens on it when the job starts. "
    "This job failed because port {used} was already taken ({ref}), and a fixed port collides again "
    "with any other job or leftover process on that node. Check it first with `ss -ltnp | grep :{port}`, "
    "or let torchrun pick a free port: `--standalone` on one node, or `--rdzv-endpoint=localhost:0`."
)
PORT_NEVER_AGAIN = (
    "This job asked for port {used} and found it taken ({ref}). On one node let torchrun pick a free "
    "port itself: `torchrun --standalone --nproc_per_node <gpus> train.py` (or `--rdzv-backend=c10d "
    "--rdzv-endpoint=localhost:0 --nnodes=1`); across nodes, give each job its own port "
    "(`--master_port=$((20000 + SLURM_JOB_ID % 20000))`), never a fixed one."
)
#: the host:port pairs the failure lines name, and whether any is off this machine
PORT_ADDRESSES = "The addresses in this job's error lines: {listed}."
PORT_LOOPBACK = (
    "All of them are loopback (127.0.0.1 / localhost: this same machine), so nothing external: they are "
    "the ranks' own connections to each other on the node ({backend}), and each port is the peer "
    "rank's end of that connection."
)
PORT_EXTERNAL = (
    "Not loopback: {hosts}; those are the job's own hosts (its nodes or its rendezvous master), so "
    "check they are yours, not an outside address."
)
PORT_NO_ADDRESS = (
    "No host:port pair is in this job's error lines; the hosts its lines name are {nodes}, the job's "
    "own nodes: nothing points at an outside address."
)
#: "is it my data? one bad batch?" on a NaN loss: possible, not shown; what the logged values say
NAN_DATA_MAYBE = (
    "Possibly, but the logs do not show the batch: rank {rank}'s loss went NaN, which one bad batch"
    " (or sample) can do, and so can a learning rate too high or an fp16 overflow. To find the batch:"
    " log the sample indices of each step and, on a short repro, `torch.autograd.set_detect_anomaly(True)`"
    " names the op that made the NaN."
)
#: "is this a bug in my model?" for a failure outside the model's code (`knowledge.answer_mine`)
MINE_DISK = (
    "Not your model: rank {rank} failed writing to disk{doing} ({ref}), a disk-full or I/O error in"
    " the save, not in the model's maths. Free space, or write the checkpoint to a larger volume."
)
MINE_LAUNCH = (
    "Not your model: the launcher failed with {what} ({ref}) before any worker started, so none of"
    " your code ran; the launch setup (its port, its hosts) is what to change."
)
MINE_TIME = (
    "Not your model: the scheduler ended the job at its time limit ({ref}); nothing failed, it ran out"
    " of time. Ask for a longer `--time`, or resume from checkpoints in requeued chunks."
)
#: "how do you know rank 3 was hung rather than dead?" (`knowledge.answer_hungdead`)
HUNG_NO_LINE = "Rank {rank} printed no error of its own, so no line of it says what it was doing."
HUNG_OTHERS = (
    "The evidence is the others' lines: ranks {ranks} each sat{where} until the timeout, waiting for"
    " rank {rank}, whose matching call never came."
)
HUNG_SIGTERM = (
    "Hung, not dead: the launcher's summary shows rank {rank} ended on its SIGTERM ({ref}), so its"
    " process was still running when the launcher stopped it; a rank that had died would have exited"
    " first, with a code of its own (a signal like -9 or -11, or 1)."
)
HUNG_UNKNOWN = (
    "Nothing in these logs shows whether rank {rank}'s process was still running: no exit code of it"
    " was kept, so hung and dead are not told apart here."
)
#: "what's the actual code bug?" on a line every rank runs: what to change in it
CODE_BUG_CHANGE = "The bug is what that line asks of every rank at once, not a typo in it; the change: {step}"
#: "how long was rank 2 quiet before the others gave up?"
QUIET_FOR = (
    "Rank {rank} wrote nothing for {gap} before the others gave up: its last line was at {at}"
    " ({ref}: `{text}`), and the first of the others, rank {other}, failed at {until}{ref2}."
)
#: "is GPU/NCCL involved at all?" for a job whose launcher failed before any worker started
NO_GPU_PART = (
    "No: no GPU, CUDA or NCCL code ran. The launcher failed with {what} ({ref}) before any worker"
    " started, so the fault is on the host's side (its network port, its launch setup), not the GPUs."
)
#: "how do I verify the port is free before I relaunch?"
PORT_FREE_CHECK = (
    "Before relaunching, check on {node} that port {port} is free: `{check}` prints nothing but"
    ' "port free" when nothing listens on it, else the process (pid) holding it. Port {port} is the'
    " one this job found taken ({ref})."
)
PORT_PREMISE = "Not {said}: the port this job found already taken is {used} ({ref})."
PORT_NOT_SAID = "Right, not {said}: the port in the error is {used}."
PORT_PROPOSED_SAME = (
    "No: port {port} is the one that was already taken here ({ref}); another process on {node} listened "
    "on it. Pick a free port per job instead: `--standalone` on one node, `--rdzv-endpoint=localhost:0`, "
    "or a port derived from the job id (`$((20000 + SLURM_JOB_ID % 20000))`)."
)

# "is this an NCCL problem at all?" for a job whose collectives ran on gloo (`answer_backend`)
NOT_NCCL = (
    "No: this job's collectives ran on gloo ({ref}), PyTorch's CPU backend, not NCCL — so NCCL settings "
    "(`NCCL_*`, `TORCH_NCCL_*`) do nothing for it."
)
NOT_NCCL_CATEGORY = "Its `{category}` category only says a collective timed out, on whichever backend."
NOT_NCCL_DESYNC = (
    "What it is: a desync. {note} On gloo, `TORCH_DISTRIBUTED_DEBUG=DETAIL` is the setting that checks "
    "every rank calls the same collective and names the one that does not."
)
NOT_NCCL_WHAT = "What it is: {what}, started by rank {rank}."

# "network again?" for a job whose ranks all ran on one node (`answer_checks.guess`)
NET_ONE_NODE = (
    "All {count} ranks ran on one node ({node}): their collectives stayed inside that machine, so no "
    "InfiniBand or other link between nodes carried them."
)
NET_WAITED = "The others' timeouts are their wait for rank {rank}{where}: {timeout}"

# "how would I repro it and pin down the batch on one box?" (`answer_debug.pin_down`)
PIN_DOWN = (
    "To pin it down on one box, replay rank {rank}'s data, not all of it: run one process with the same "
    "seed and data order, and give its sampler rank {rank}'s shard (`DistributedSampler(ds, "
    "num_replicas={world}, rank={rank}, seed=<same seed>)`), so it sees the batches rank {rank} saw."
)
PIN_DOWN_STEP = (
    "Run it through step {step} and the one after: the last step any rank logged was step {step} "
    "(rank {by}, {ref})."
)
PIN_DOWN_NO_STEP = "No step number is in the logs, so run until it fails."

# the check that decides between the verdict and what else it could be ("what cmd tells them apart")
TELL_APART = "What tells them apart: `{command}` on {node}{shows}."
TELL_SILENT = (
    "What rules it in or out: rank {rank}'s own output — it has no error and no traceback, so it stalled "
    "or died silently; a crash of its own would have printed one. {next}"
)
# "won't it just fail at the same step again?": where this run met it
SAME_STEP = "In this run {step}"

# a memory leak put as the cause (`knowledge.answer_leak`): the rank's own figures over the kept steps
LEAK_FLAT = (
    "No sign of a leak in the steps kept: rank {rank}'s logged memory was {first} at step {s1} and {last} at "
    "step {s2} ({ref}), flat, not climbing."
)
LEAK_GREW = (
    "Its memory did climb in the steps kept: rank {rank} logged {first} at step {s1} and {last} at step {s2} "
    "({ref})."
)
LEAK_BATCH = "What tipped it is the failing step's own batch: it ran {shape}."


# which code raised (knowledge.answer_code_raised)
RAISED = "It raised in `{file}` line {line}, in `{func}`{code}."
RAISED_INNER = "The innermost frame kept: `{file}` line {line}, in `{func}`."
RAISED_EXC = "The exception: `{exc}`: {message}"
RAISED_PATH = "The {path} path, not {others}. "

# why the others went on for the whole timeout (knowledge.answer_waitout)
WAIT_WHY = (
    "Nothing tells a rank blocked in a collective that a peer is gone: rank {ini}'s failure raised no error "
    "on the others, so each waited until its own watchdog timed the collective out."
)
WAIT_ASYNC = (
    "Async error handling (TORCH_NCCL_ASYNC_ERROR_HANDLING) only acts once the watchdog sees that collective "
    "fail or time out, then tears the rank down; it does not shorten the {timeout} wait. A shorter wait "
    "needs a shorter process-group timeout."
)

# a drain asked for a rank whose node no line names (knowledge.answer_node)
NODE_UNNAMED = (
    "The logs don't name rank {rank}'s node: none of its lines carries a hostname (its node is not in the "
    "log), so the scheduler's record (`sacct -j <jobid> -o JobID,NodeList`, or the launcher's host "
    "list) is where to read it. "
)

# the node's RAM or a cgroup (--mem) limit (knowledge.answer_memlimit)
LIMIT_DECIDES = (
    "Two records decide it. The node's kernel log (`dmesg -T | grep -iE 'oom|killed process'`): a cgroup "
    "limit says `Memory cgroup out of memory` (constraint=CONSTRAINT_MEMCG), the whole box running out says "
    "`Out of memory` with no cgroup named. The scheduler's accounting (`sacct -j <jobid> -o "
    "JobID,State,ReqMem,MaxRSS`): MaxRSS at ReqMem (`--mem`) means the limit, MaxRSS well below it means "
    "the node's RAM was shared and gone."
)
LIMIT_KERNEL_HAVE = "This job has a kernel-log line ({ref}): {said}"
LIMIT_BOX_SEEN = "it names no memory cgroup, so the kill was the node's own RAM running out."
LIMIT_CGROUP_SEEN = "it names a memory cgroup, so a cgroup limit was hit, not the node's RAM."
LIMIT_KERNEL_NONE = "This job has no dmesg (kernel-log) line: none was in the logs read."
LIMIT_SCHED_HAVE = "The scheduler's accounting is in the logs ({ref})."
LIMIT_SCHED_NONE = "No sacct or MaxRSS line is in the logs either: run the sacct command above for it."

# a stall's length claimed against the lines' own times (knowledge.answer_premise)
PREMISE_SPAN_NO = (
    "No, not {claim}: the last step line is at {start} UTC and the job's last line at {end} UTC, {gap} later."
)

#: an Xid the reader was told of, on a job whose evidence holds none
XID_CLAIMED = (
    "No Xid: no GPU fault (Xid) is in this job's evidence, on any rank or node; rank {rank} started it, "
    "with {what} ({ref})."
)

#: "adding X; what else do I set before resubmitting?": the setup steps the reader has not named
RERUN_ELSE = "For rank {rank}'s next failure ({what}), also set: {steps}."
RERUN_ELSE_NAMED = "Keep {named}. "
RERUN_ELSE_CHANGE = " Setting these only records the next failure; what fixes this one: {step}"

#: the same bus id on a node whose kernel log holds no Xid (knowledge.answer_node.same_slot)
PCI_NO_XID_THERE = (
    "No Xid on {node}: none of the kernel-log lines kept for {node} names one; it is a different node's card."
)

#: "did pytorch crash?" when the error is the user's own check (knowledge.answer_code_raised.own_raise)
OWN_RAISE = (
    "No, {lib} did not crash: your own training code raised it, on purpose. Rank {rank}'s script has a "
    "guard at `{file}` line {line}, in `{func}`: `{code}`; it raised `{exc}` ({message}) and stopped the run."
)

#: two world sizes put against each other (knowledge.answer_world)
WORLD_IS = "{n} ranks: this job's logs show ranks {ranks} on {nodes} ({how})."
WORLD_HOW_LINE = "{ref} prints it: `{text}`"
WORLD_HOW_RANKS = "one log per rank; no kept line prints a world size"
WORLD_AGREES = "`world_size={n}` agrees with that."
WORLD_PRINTED_OTHER = (
    "{m} is printed too ({ref}: `{text}`), but not by these ranks' own count: that line counts something"
    " else (another process group, or the GPUs on the nodes) or comes from another run's config."
)
WORLD_OTHER = (
    "{m} ranks is not what these logs show: no kept line of this job says {m}, so a line saying {m} comes "
    "from another run, or counts something else (another process group, the GPUs on the nodes); check "
    "which log it is in."
)
WORLD_READ = "The read stands on these {n} ranks' own lines: rank {rank} started it, with {what}."

#: "ckpt_dir is on /tmp, should I move it?" (knowledge.answer_ckpt_move)
CKPT_WRITING = "The save it failed in was writing `{file}` ({ref}), in `{folder}`{tmp}."
CKPT_ON_TMP = ", which is on /tmp"
CKPT_MOVE_DISK = (
    "Yes, move it: that save failed with {what} ({eref}), so the filesystem under `{folder}` ran out of room "
    "or failed mid-write. Point the checkpoint dir at a volume with room for several full checkpoints "
    "(shared or scratch storage; /tmp is often small, node-local and cleaned), and check it first with "
    "`df -h <new dir>` on the node."
)
CKPT_MOVE_OTHER = (
    "Moving it would not change this failure: the save failed with {what} ({eref}), not a disk error, "
    "so where the file goes is not what broke."
)

# ------------------------------------------------ a fix step doubted (knowledge/answer_fixdoubt.py)
FIX_DOUBTED = (
    "That is step {n} of the fix: {step} It answers the verdict (*{title}*, {conf:.2f}); whether it is "
    "enough on its own here the logs do not show. When it is not, the fix goes on: {others}"
)
