"""Follow-up sentences about what a rank was doing, a whole timeline, whose pid or busId it is, why a
challenged alternative does not fit (used by the answer modules).

Kept apart so `followups` stays small; every sentence is a format string filled with this job's facts.
"""

from __future__ import annotations

DOING_PREFIX = "Rank {rank} was {phase} when it failed"
DOING_LINE_OWN = "Rank {rank}'s last line before the failure ({ref}, {at} UTC) says: `{words}`."
DOING_LINE_PHASE = "The job's last line of that phase ({ref}, {at} UTC) says: `{words}`."

# what the initiating rank was doing, in words, from its own last line before the failure
DOING_OWN = (
    "Rank {rank} was {phase} when it failed; its last line before that ({ref}, {at} UTC) says: `{words}`."
)
DOING_PHASE = (
    "Rank {rank} was {phase} when it failed; the job's last line of that phase ({ref}, {at} UTC) says: "
    "`{words}`."
)

# why the alternative a challenge names does not fit
NOT_OOM = (
    "Not the OOM killer: its kill is SIGKILL, exit -9; rank {rank} ended with exit {code} ({ref}), "
    "which the process raised itself (-11 is SIGSEGV, signal 11: a native crash inside it)."
)
NOT_FLAKY = (
    "Not a flaky filesystem: the save failed on a short write (fewer bytes landed than were written), "
    "which is what a full disk or quota does; a flaky mount shows I/O errors or stale handles. Check "
    "the free space and quota where the checkpoint goes (`df -h <ckpt dir>`, `quota -s`)."
)
NOT_PORT = (
    "It is a port thing, but not {asked}: the port that could not be bound in this job was {port} ({ref}), "
    "already held by another process."
)

# a rank (or several) blamed: the launcher's "root cause" is the first rank it saw exit
LAUNCHER_FIRST_EXIT = (
    'The launcher\'s "root cause" is the first rank it saw exit with an error: its summary lists the '
    "first rank to exit, not the first to fail, and a rank that gave up waiting can exit before the one "
    "it waited on."
)
CULPRIT_NONE = "No: ranks {ranks} were {what}; rank {ini} started it."
CULPRIT_OTHERS = "Ranks {ranks} were {what}."

# a whole timeline, every event the facts have
TIMELINE = "Timeline (UTC): {events}."
TIMELINE_AFTER_STEP = "Rank {rank} failed {gap} after the last good step ({step})."
TIMELINE_AFTER_STEP_BORROWED = (
    "Rank {rank} failed at or after the last good step ({step}); how long after is not known: its "
    "failure line has no time of its own."
)
TIMELINE_END = "The last line is at {at}."
EV_STEP = "last good step {step}"
#: the job's first timed line: a timeline starts where the run began, not at its last good step
EV_START = "the job's first line (start)"
EV_PHASE = "`{words}`"
EV_KERNEL = "the kernel's line"
EV_OWN_ERROR = "rank {rank}'s own error `{text}`"
EV_COLLATERAL = "first collateral failure ({n} rank(s) in all)"
#: an event whose line has no time of its own: the time shown is an earlier line's
EV_BORROWED = " (at or after this time: its line has no time of its own)"

# whose pid / busId it is
PID_RANK = "pid {pid} is rank {rank}'s {what}{node} ({ref})."
PID_WORKER_KILLED = (
    "'Killed' is SIGKILL; whether the kernel's OOM killer sent it, the node's kernel log says: "
    "`dmesg -T | grep -iE 'killed process|out of memory'` (look for pid {pid})."
)
BUS_RANK = "That GPU ({bus}) is rank {rank}'s, on {node}: the kernel line that names it is {node}'s ({ref})."
BUS_OTHER = (
    "Rank {other} runs on {node}: the same busId there is another physical GPU in the same slot of "
    "another machine, so the fault on {at} is rank {rank}'s GPU, not rank {other}'s."
)

NOT_LOGGED = (
    "Those losses are rank {logger}'s: only rank {logger} logs its loss, and it was rank {rank} whose "
    "loss was NaN, on its own batch, which no logged value shows. One bad sample or batch on rank {rank} "
    "fits that (a sudden NaN with no climb before it); a divergence would show climbing losses first."
)

# how to check a node has the host memory for a relaunch
HEADROOM = (
    "To check {node} has the host RAM before you relaunch: `free -g` on it (the `available` column is "
    "what a new job can get), and the last run's peak per task from Slurm, `sacct -j <jobid> "
    "--format=JobID,MaxRSS,ReqMem,State` (MaxRSS times the ranks on one node must fit in `available`)."
)

#: "how much do we lose": the last step reached, against the last save the logs show (or none)
LOST_NO_SAVE = (
    "No checkpoint save is logged in any of this job's logs, so nothing shows a point to resume from: "
    "the run reached step {step}{total} (rank {rank}, {ref}), and all of it is lost unless the script "
    "saved without logging it (look in its output directory)."
)
LOST_SAVED = (
    "The last save the logs show is `{name}` ({save_ref}); the run reached step {step}{total} (rank "
    "{rank}, {ref}), so the steps after that save are lost, and a restart resumes from it."
)
#: when the first rank failed, after the last step's line: the wall time a restart re-runs too
LOST_FAILED_AT = "Rank {rank} failed{at}{after}."
LOST_AFTER_STEP = ", {gap} after that step's line"
LOST_NOT_FINISHED = "The save did not finish on rank {rank}: it failed while writing it."
LOST_NO_STEP = "No step number is logged, so the logs can't say how much was lost; {saved}"
LOST_NO_STEP_SAVED = "the last save they show is `{name}` ({save_ref})."
LOST_NO_STEP_NONE = "they show no checkpoint save either."
LOST_CUT = (
    "The last save the logs show, `{name}` ({save_ref}), is the one the failure cut short, so don't "
    "count on it; the run reached step {step}{total} (rank {rank}, {ref}): resume from the last complete "
    "checkpoint before it, and the steps since that one are lost."
)

# what named the rank, for a reader who doubts it ("how can you pin it on rank 3 with nothing in its log")
DOUBT_WHICH = "Rank {rank} is the one that started it."
DOUBT_PID = (
    "The kernel's OOM killer killed pid {pid} ({kref}), and the launcher's line `local_rank: {local} (pid: "
    "{pid})` ({lref}) ties that pid to local_rank {local}{rank}{node}: the launcher's own worker, not some "
    "other process on the box."
)
DOUBT_WAITERS = (
    "Rank(s) {ranks} each timed out after {timeout} waiting on rank {rank} ({ref}): their own errors are "
    "the wait, not a fault of theirs."
)
DOUBT_NO_TIMEOUT = (
    "Rank {rank} logged no timeout or error of its own: it is the one rank that was not in the collective "
    "the others waited in, which is why a log with no error points at it rather than clearing it."
)
DOUBT_STOPPED = "Its only trace is the launcher's SIGTERM ({ref}): it was still running when it was stopped."

# a line asked for by what it says
LINE_SAYS = "The line that says it is {ref}, quoted as logged below."
KEY_NOT_PRINTED = (
    "`{key}` is not in the lines Denpex kept from this job's logs: none of them prints it or its value, "
    "so there is nothing to quote."
)
KEY_UNKNOWN = "The logs don't say what it was set to; the job's config file would."
KEY_INFERRED = (
    "The verdict infers it from the frame the failure went through, `{fn}` in `{path}` ({ref}), not "
    "from a printed value; the job's config file is where to confirm it."
)

# whether the logs say a message the reader names ("does anything actually say No space left on device?")
SAID_YES = "Yes: {ref} says `{phrase}`, quoted as logged below."
SAID_NOT = (
    "No: {said} is not in any line Denpex kept from this job's logs, in those words: it does not appear"
    " in them."
)
SAID_INSTEAD = (
    "What the logs say instead, for {who}: {quoted}. The verdict ({what}) is inferred from these lines."
)

# whose move it is ("is this us or the cluster, who do i ping")
WHO_ADMINS = (
    "Who to ping: the cluster admins (whoever runs {node}): the fault is that node's GPU, not the job, so "
    "they drain and check it; the job only needs to run elsewhere."
)
WHO_OWNER = (
    "Who to ping: nobody on the cluster side; {what} is fixed in the job itself (its code, config or "
    "launch), so it is the job owner's to change."
)

# a network or firewall guess at a rendezvous whose port was taken on the host itself
NOT_NETWORK_PORT = (
    "No, not a firewall or the network between nodes: nothing failed on the wire. The rendezvous could not "
    "even listen on {port} on its own host because another process already held it (EADDRINUSE, {ref})."
)
# what shows the port's holder, after a network guess at a port clash: the check that settles it
PORT_HOLDER_CHECK = "`{command}` on that host shows what holds it; no network team needed."

# an exit code put to be confirmed ("exit code for the rank that died was -9 right")
EXIT_YES = "Yes: rank {rank} ended with {exit}{where}."
EXIT_NO = "No: rank {rank} ended with {exit}{where}, not the code you name."
EXIT_SHELL = "{code} is how a shell or the scheduler reports it: 128 + signal {signal}."

# whether collateral ranks would have failed anyway ("would rank 0 have failed anyway?")
ANYWAY_NO = (
    "No: {who} collateral, waiting on rank {rank}, which failed first on its own ({what}); nothing in "
    "{their} lines shows a failure of {their} own before that."
)
ANYWAY_OWN = "{their_cap} own error is the echo of it: {lines}."

# a pasted (or described) line asked about: the cause, or a symptom of another rank's failure
CAUSE_IS = (
    "The cause: {who} printed it ({ref}), and it is the failure that started this job ({what}); the "
    "other ranks' errors came after it."
)
CAUSE_SYMPTOM = (
    "A symptom, not the cause: {who} printed it ({ref}){why}. Rank {ini} failed first, with {what} ({iref})."
)
CAUSE_OUTSIDE = (
    "Not the cause: a consequence. That line ({ref}) is the processes being told to stop; no rank "
    "failed on its own: the job was ended from outside, {what} ({iref}), and the signal came after that."
)
CAUSE_WAITED = ": collateral, {subj} {why}"
CAUSE_FALLOUT = ": collateral, fallout of rank {ini}'s failure"
CAUSE_CONTEXT = (
    "Not the cause, and not an error itself: rank {rank} printed it ({ref}) before it failed; rank "
    "{rank} is the rank that started this job's failure ({what}), so the line shows what it was doing "
    "when it did."
)
CAUSE_LAST = (
    "It is rank {rank}'s last line of its own: nothing after it is logged from rank {rank} until it failed."
)
CLAIM_NOT = (
    "No: rank {rank} did not have {what}; rank {ini} did ({ref}), and failed first. Rank {rank}'s "
    "traceback is its own error after rank {ini} went away (collateral)."
)
NOT_XID = (
    "Not the same as an Xid failure: no GPU fault (Xid) is in this job's evidence; rank {rank} failed "
    "with {what} ({ref})."
)

# where a number or a time quoted from the thread comes from ("where does the 600 s come from?")
ORIGIN_TIMEOUT = (
    "{value} is the collective timeout in the watchdog lines: `Timeout(ms)={ms}` ({span}) on rank(s) "
    "{ranks} ({ref}), the process group's timeout (`timeout=` of `init_process_group`; 10 min is "
    "PyTorch's default for NCCL); `ran for {ran} milliseconds` is how long that collective had waited "
    "when the watchdog gave up."
)
ORIGIN_RAN = (
    "{value} ms is how long the collective had waited when the watchdog fired: `ran for {ran} "
    "milliseconds` on rank(s) {ranks} ({ref}), just past the timeout, `Timeout(ms)={ms}` ({span})."
)
ORIGIN_GLOO_TIMEOUT = (
    "{value} is gloo's collective timeout: `Timed out waiting {ms}ms` ({span}) on rank(s) {ranks} ({ref}), "
    "the process group's `timeout=` (of `init_process_group`): the rank waited that long for a peer's "
    "data in the collective, then gave up."
)
ORIGIN_TIME = "{value} is when rank(s) {ranks} logged {what} ({ref}): `{text}`."
ORIGIN_AFTER = "That is {gap} after rank {rank} failed at {then} ({what})"
ORIGIN_WAITED = (
    ": the watchdog's `Timeout(ms)={ms}` ({span}): they waited that long for rank {rank} in the "
    "collective, then timed out."
)
ORIGIN_LINE = "{value} is in {ref}: `{text}`."
ORIGIN_FIX = "Not from this job's logs: it is in the suggested fix, `{text}`."
ORIGIN_SIGNAL = (
    " `--signal={sig}@{secs}` asks Slurm to send {sig} {span} before the time limit, so the "
    "job can save a checkpoint first; {secs} is a choice: make it longer than one save takes."
)

# the other ranks' own errors ("and the other ranks? did 0 and 2 also see nan?")
OTHERS_OWN = "{who} logged {their} own error, `{text}` ({ref}){echo}."
OTHERS_GLOO = " — gloo's TCP transport: the connection to a peer closed under it"
OTHERS_GLOO_NAME = (
    " (so yes, this run used gloo; `nccl_comm_error` is the category for a communication error in any "
    "collective, NCCL's or gloo's)"
)
OTHERS_WATCHDOG = " — a watchdog timeout: the collective they were in never completed"
OTHERS_SIGNAL = (
    "{who} logged no error of {their} own: the launcher stopped {them} with {signal} (exitcode -{num}, "
    "{ref})."
)
OTHERS_NONE = "{who} logged no error line of {their} own."
OTHERS_NOT_SAME = "No, not the same error as rank {rank}."
OTHERS_STARTED = "Rank {rank} started it, with {what} ({ref})."
OTHERS_SOURCE = (
    "They are collateral: rank {rank} started it, with {what} ({ref}), and the others failed because "
    "it went away."
)

# "all_reduce #5 — the 5th step?": a collective's number is not a step
COLLECTIVE_NOT_STEP = "Not a training step: one step runs many collectives, each with its own number."

# a setting's value in this job ("was it even on?")
SETTING_SEEN = "In this job `{name}` was {value} ({ref})."
SETTING_IMPLIED = "In this job `{name}` was {value}, inferred (no line prints it): {why} ({ref})."
SETTING_UNSEEN = "`{name}`'s value in this job is not in the lines Denpex read."
SETTING_ZERO3_GATHER = (
    "{who} traceback is in `_zero3_consolidated_16bit_state_dict`, which a save runs only when it is "
    "true (with false, the save writes each rank's shard and gathers nothing)"
)
SETTING_RANK0_ONLY = "{who} `FullStateDictConfig(...)` does not pass `rank0_only=True`"

# the save the failure cut short is the only one the logs show: nothing earlier to resume from
LOST_CUT_FIRST = (
    "`{name}` ({save_ref}) is the save the failure cut short: it may be missing or partial (incomplete). "
    "It is also the first: its log, read from its first line, shows no earlier save, so there is no complete "
    "checkpoint to resume from: restart "
    "from scratch (step 0), unless the script saved without logging it. The run had reached step "
    "{step}{total} (rank {rank}, {ref})."
)
LOST_CUT_ONLY = (
    "`{name}` ({save_ref}) is the save the failure cut short: it may be missing or partial (incomplete). No "
    "earlier save is in the lines Denpex kept: unless the output directory holds an earlier complete "
    "checkpoint, restart from scratch (step 0). The run had reached step {step}{total} (rank {rank}, {ref})."
)
LOST_CUT_UNNAMED_FIRST = (
    "The save the failure cut short ({save_ref}: `{text}`) did not finish, and it was the first: its log, "
    "read from its first line, shows no earlier save, so no completed checkpoint exists to resume from: "
    "restart from scratch (step 0); the run had reached step {step}{total} (rank {rank}, {ref})."
)
LOST_CUT_UNNAMED_ONLY = (
    "The save the failure cut short ({save_ref}: `{text}`) did not finish, and no earlier save is in the "
    "lines Denpex kept, so no completed checkpoint is logged: unless the output directory holds an earlier "
    "one, restart from scratch (step 0); the run had reached step {step}{total} (rank {rank}, {ref})."
)
LOST_CUT_UNNAMED = (
    "The save the failure cut short ({save_ref}: `{text}`) is not complete, so don't count on it; the run "
    "reached step {step}{total} (rank {rank}, {ref}): resume from the last complete checkpoint before it "
    "(check the output directory for it), and the steps since that one are lost."
)

# how each rank's log ended (knowledge.answer_ending)
EACH_STEP_LEAD = "Last step line on each rank:"
EACH_STEP = "{ranks}: step {step}{at} ({ref})"
EACH_STEP_NONE = "{ranks}: no step line kept"
LAST_STEP_ANY = "The last step logged was step {step} (rank {rank}, {ref})."
LAST_DEATH = (
    "The first rank to fail was rank {first} at {first_at}; the last, rank {last}, failed at {last_at}: "
    "{gap} later."
)
OWN_ERROR = "Rank {rank}'s own last error line before it exited ({ref}): `{text}`."
TAIL = "Rank {rank}'s last {n} lines from its own log ({src}), up to its failure at {at}, as printed."
SCHEDULER_LINE = "The scheduler's line ({ref}): `{text}`."


def gap_after(gap: str, rank: int, borrowed: bool) -> str:
    """`, 3.8 s after rank 2`; `at most` when rank 2's time is an earlier line's (it failed at or after)."""
    return f", at most {gap} after rank {rank}" if borrowed else f", {gap} after rank {rank}"


# which GPU of which node a rank used (answer_device)
DEVICE_NODE = "Rank {rank} ran on {node}."
DEVICE_NO_NODE = (
    "The logs don't say which node rank {rank} ran on: its host is not recorded in any line "
    "(`sacct -j <jobid> -o JobID,NodeList` lists the job's nodes)."
)
DEVICE_NO_GPU = (
    "Its GPU is not in the logs either: no line of rank {rank} records its local_rank, CUDA device or bus id "
    "(the launcher's `local_rank` in its failure summary, or `nvidia-smi` on its node, names it)."
)
DEVICE_LOCAL = (
    "Its GPU: local_rank {n} ({ref}); torchrun gives local rank {n} the node's device {n} (cuda:{n}), "
    "unless the job remaps CUDA_VISIBLE_DEVICES."
)
DEVICE_OOM = (
    "Its own out-of-memory line names GPU {n} ({ref}): the device index as the process numbered it "
    "(cuda:{n})."
)
DEVICE_DISAGREE = (
    "The two disagree (local_rank {local}, GPU {oom}): go by the local rank for the card; the OOM "
    "message's index is the process's own numbering, not a card count of the node."
)
DEVICE_CHECK = (
    "To name the physical card: `nvidia-smi --query-gpu=index,pci.bus_id,serial --format=csv` on {node} "
    "maps that index to its bus id and serial."
)
VISIBLE_UNSAID = (
    "CUDA_VISIBLE_DEVICES is not in the logs: no line of this job prints it, so its value is not recorded"
    " (if it was unset, torchrun's local rank N uses the node's device N)."
)
DEVICE_BLOCK = (
    "{node} ran ranks {ranks}, one block, as torchrun numbers a node's workers: it is that node's local_rank "
    "{n}, so its GPU is the node's device {n} (cuda:{n}), unless the job remaps CUDA_VISIBLE_DEVICES."
)
#: each rank's first error side by side: the first to fail leads, with its own words and figures
EACH_FIRST = "Rank {rank} failed first{at}, with `{text}` ({ref})."

# ---------------------------------------------------------------- counts over the ranks (answer_tally)
TRACEBACKS = "{n} rank(s) printed a Python traceback (or its error line) of their own: {ranks} ({refs})."
NO_TRACEBACK = "Rank {rank} printed no traceback in its saved lines{how}."
NO_TRACEBACK_ENDED = "; the launcher's summary says {row} ({ref})"
SIGTERMED = (
    "{n} rank(s) got SIGTERM from the launcher (exitcode -15): {ranks} ({ref}); they were stopped, they "
    "did not fail by themselves."
)
NOT_SIGTERMED = "Rank(s) {ranks} exited on their own: {rows}."
#: the launcher's failure summary's own `time :` fields, as printed
EXIT_TIMES_SAME = "The launcher's summary times every exit at `{stamp}`, as printed ({ref})."
EXIT_TIMES = "The launcher's summary times the exits: {rows}, as printed ({ref})."
NO_SIGTERM = (
    "None: no rank got SIGTERM (no exit code of -15) — all {n} exited with a code of their own, so each "
    "failed by itself before the launcher stopped anything. The launcher's failure summary ({ref}): {rows}."
)

# ---------------------------------------------------------------- a time asked, none printed (answer_untimed)
NO_TIME = (
    "The logs don't say: no line of this job has a timestamp — the failure line ({ref}) is printed "
    "without a time, so there is no time to give from the logs."
)
NO_TIME_NO_WORKER = "It failed in the launcher, before any worker started."
NO_TIME_WHERE = (
    "For the ticket, take the time from the scheduler (`sacct -j <jobid> -o JobID,Start,End,State`) or "
    "the log file's modification time (`stat -c %y {log}`)."
)

# ---------------------------------------------------------------- a pid tied to its rank (answer_pid)
PID_EXIT = (
    "The launcher's line names it: local_rank {local} (pid: {pid}) failed with exitcode {code} (a negative "
    "code is the signal: -9 is SIGKILL)."
)
PID_KERNEL = "The kernel's line ({ref}) killed that same pid, {pid}."
EV_REPORT = "the launcher reported local_rank {local} (pid {pid}) failed with exitcode {code}{signal}"
TIMED_OUT = "{n} rank(s) logged a collective timeout of their own: {ranks}{at} ({refs})."
TIMED_OUT_SAME = ", each at `{stamp}` as printed (the log's own clock; no time zone is printed)"
TIMED_OUT_NONE = "Rank(s) {ranks} logged no timeout of their own."
TIMED_OUT_NONE_ONE = "Rank {rank} logged no timeout of its own."
OWN_ERROR_FRAME = "In your code it failed at {file} line {line}, in `{func}` ({ref}):"

# ---------------------------------------------------------------- printed or inferred (answer_printed)
SETTING_PRINTED = "Printed: a line of the logs names `{name}` with its value."
SETTING_INFERRED = (
    "Not printed: no line of the logs names `{name}`; its value is inferred from a line that implies it."
)
SETTING_NEITHER = "Not printed: no line of the logs names `{name}`, and no line implies its value."

# ---------------------------------------------------------------- host memory per rank (answer_hostmem)
HOST_KILLED = (
    "Only the killed process's host memory is printed: the kernel's line ({ref}) killed pid {pid} "
    "({proc}){who}, which held anon-rss {kb} kB = {gib:.1f} GiB resident."
)
HOST_WHO_RANK = " (local_rank {rank}, by the launcher's line)"
HOST_OTHERS = "No kept line gives rank(s) {ranks}'s host memory."
HOST_WHERE = (
    "The kernel's OOM report lists every process's rss just above the kill line, if the node's full "
    "kernel log is kept: `dmesg -T | grep -B60 'Killed process'`; per job, `sacct -j <jobid> -o "
    "JobID,MaxRSS,MaxRSSTask`."
)

# the run's whole length (first to last log line) and its size, asked beside another fact
RUN_LENGTH = "The whole run took {span} of wall clock{size}, from {start} to {end} (first to last log line)."
RUN_SIZE = " on {n} ranks (world size {n})"
RUN_UNTIMED = "The run's length is not in the logs: no kept line carries a time."

# the stuck collective's tensor size, from the watchdog's own line
TENSOR_SIZE = (
    "The stuck {op} (SeqNum {seq}) was on a tensor of {n} elements (NumelIn={raw}{out}; {sizes}: the "
    "line gives elements, not the dtype) ({ref})."
)
TENSOR_OUT = ", NumelOut={n}"
TENSOR_UNLOGGED = "No kept line prints the collective's tensor size (no watchdog `NumelIn=` line)."

# asked whether the loss climbed before a NaN: the logged values' answer, first
LOSS_NO_CLIMB = (
    "No, not gradual: the logged loss did not climb before the failure ({first} at step {first_step}, "
    "{last} at step {last_step}), so the NaN came suddenly, without warning in the logged values."
)
LOSS_CLIMBED = "Yes, it climbed: from {first} at step {first_step} to {last} at step {last_step}."

# the collaterals' stuck collective and the first rank's raising frame (knowledge.answer_seqframe)
SEQ_TIMED_OUT = "Rank{many} {ranks} timed out in {op} (SeqNum {seq}) at {at} ({ref}){ran}{after}."
SEQ_RAN = ": the watchdog line says it ran for {ran} ms against Timeout(ms)={limit}"
SEQ_AFTER = ", {gap} after rank {ini} failed at {at}"
RAISED_IN_FRAME = (
    "Rank {rank}'s error was raised in `{func}` ({path} line {line}), the innermost frame of its "
    "traceback ({ref})."
)
