"""Follow-up sentences about a job as a whole: a job no single rank started (a scheduler's kill, a
launcher that failed before any worker ran), and the facts of the launcher's summary.

Plain sentences (the Slack renderer escapes them); `knowledge.answer_job` fills in this job's facts.
Split from `followups.py` so each texts module stays readable.
"""

from __future__ import annotations

#: Slurm's `DUE TO …` reason as people say it
REASON_WORDS = {
    "TIME LIMIT": "it hit its time limit (wall-clock, `--time`)",
    "PREEMPTION": "it was preempted",
    "NODE FAILURE": "its node failed",
    "REQUEUE": "it was requeued",
    "SIGNAL": "a signal",
}


def scheduler_end(scheduler: str, job: str, node: str, at: str, reason: str, ref: str) -> str:
    on = f" on {node}" if node else ""
    return f"{scheduler} ended job {job}{on}{at}: {reason} ({ref})."


def no_rank_failed(count: int, ranks: str, at: str, ref: str, signal: str) -> str:
    every = f"all {count} ranks ({ranks})" if count > 1 else f"rank {ranks}"
    return (
        f"It did not crash and no rank failed on its own: {every} got {signal} together{at} ({ref}), "
        "the scheduler's signal, not an error of theirs."
    )


def ran_for(start: str, end: str, length: str) -> str:
    return f"The job ran {length}, from {start} to {end} (first to last log line)."


def last_progress(step: int, loss: str, at: str, before: str, ref: str) -> str:
    of_loss = f" (loss {loss})" if loss else ""
    gap = f", {before} before the end" if before else ""
    return f"Its last logged step was {step}{of_loss}{at}{gap} ({ref})."


RANK_SIGNALLED = (
    "Rank {rank} did not fail on its own: it got SIGTERM{at} ({ref}) together with every other rank, "
    "when the scheduler ended the job. {end}"
)
NOT_THAT = "Not {name}, by this job's evidence."
NOT_PREEMPTED = "Not a preemption: the scheduler's own line gives the reason as {reason}."
SCHEDULER_YES = "It was the scheduler, not a failure of the job:"
LIMIT_UNKNOWN = (
    "The limit itself is not in the logs; the scheduler's accounting shows it next to the elapsed time:"
)
NOT_OOM = "Not an out-of-memory kill: no memory error or OOM-killer line is in this job's evidence."
SIGTERM_FROM = "The signal 15 (SIGTERM) came from {who}: {why}"

NO_WORKER = (
    "No rank failed: the launcher failed before any worker started ({what}, {ref}), so no rank ran, "
    "no training step ran and nothing was lost."
)
NOTHING_LOST = (
    "No training was lost: it failed at launch ({what}), before any worker started, so no step ran and"
    " there is nothing to resume; relaunch once the cause is fixed."
)

# ---------------------------------------------------------------- the launcher's summary
SUMMARY_ROW = "rank {rank}: exitcode {code}{signal}{pid}"
SUMMARY_ROWS = "The launcher's failure summary ({ref}): {rows}."
STOPPED_AFTER = "They were stopped {gap} after rank {rank}'s failure."
MAIN_PID = (
    "Rank {rank}'s main (training) process was pid {pid} ({ref}); the process that died was its "
    "DataLoader worker, pid {worker}."
)

# ---------------------------------------------------------------- drain or not
NO_DRAIN = (
    "No need to drain: nothing in this job's evidence points at {node}'s hardware — it failed with "
    "{what}, a software/configuration cause that follows the job, not the node."
)
DRAIN_CMD = "To take it out of service in Slurm:"

# ---------------------------------------------------------------- the mechanism, for this job
COPIES = "{n} ranks ran on {node}, each building its own full copy: {n} copies at once{total}."
COPIES_TOTAL = (
    "; the killed one{pid} alone held {rss}, so the node needed about {n} × {rss} = {total}{tib} of host RAM"
)
CAUSE_LINE = "In this job the copy is built here: `{code}` ({ref})."
SMALL_LAST = (
    "The {size} is only the last small allocation that failed: host RAM was already full of the copy "
    "being built."
)
VICTIMS = (
    "Rank(s) {ranks} were victims (collateral): they were only waiting{inside} for rank {rank}, which "
    "had failed on its own; nothing of theirs failed first."
)
EXIT_READ = (
    "Rank(s) {own} exited with an error of their own; rank(s) {stopped} were stopped by the launcher "
    "(a negative exit code is the signal that ended them)."
)
WHEN_VICTIM = (
    "It was a victim (collateral), not the real failure: rank {ini} failed first{at} ({ref}) and rank "
    "{rank} was left waiting for it."
)

# ---------------------------------------------------------------- a rank that went silent
SILENT_NO_ERROR = "Rank {rank} logged no error of its own: it went silent, stuck or dead without a traceback."
SILENT_STEP = (
    "No step line is from rank {rank}; the last step any rank logged was step {step} (rank {other}, {ref})."
)
SILENT_STOPPED = "The launcher stopped it (SIGTERM){at} ({ref}), while it was still running."
SILENT_NEXT = (
    "To tell stuck from dead, next: `py-spy dump --pid {pid}` on {node} if it is still running (its "
    "Python stack); `dmesg -T | grep -i -E 'oom|killed process|xid'` on {node} (a kernel OOM kill or a GPU "
    "fault leaves no Python error); `sacct -j <jobid> -o JobID,State,ExitCode,MaxRSS` (how the scheduler "
    "saw it end, and its peak memory)."
)

# ---------------------------------------------------------------- the fix, fitted
GREP_OTHERS = "To find the other places in the code with the same call, run in the repo:"
NO_FP16_LINES = (
    "No fp16 loss-scale or overflow line is in this job's logs, so bf16 alone is not the fix: lower the "
    "learning rate (or a longer warm-up), clip gradients, and find the batch first "
    "(`torch.autograd.set_detect_anomaly(True)` for a few steps names the op)."
)
NO_FP16_OTHER = "No: no fp16 loss-scale or overflow line is in this job's logs; it failed with {what}."
FP16_SEEN_OTHER = (
    "The logs show fp16 loss scaling ({ref}), but that is not what ended the job: it failed with {what}."
)
FP16_LINES = "The logs show fp16 loss scaling at work ({ref}): switching to bf16 removes the overflow."

# ---------------------------------------------------------------- how long it ran, guesses checked
RUNNING_FOR = (
    "It had been running {length} when rank {rank} failed: the job's first log line is at {start}, "
    "rank {rank}'s failure at {at}."
)
RAN_UNTIL = "Its last line came at {end}, {length} after the first."
NOT_HANG_PROGRESS = (
    "Not a hang: it was still training when it was stopped. {progress} "
    "A hang shows as no progress for a long time (at least {quiet}) before the kill; here the last step "
    "came {gap} before it. {end} The job needed more time than it asked for."
)
MAYBE_HANG = (
    "Likely a hang the time limit only ended: no step was logged for {gap} before the kill. {progress} {end}"
)
NOT_HANG_ERROR = "Not a hang: rank {rank} failed with {what}{at} ({ref}), an error of its own."
HANG_WAIT_COLLATERAL = (
    "The other ranks then waited for rank {rank} in a collective until their timeout: that wait looks "
    "like a hang, but it is collateral."
)
ALLOC_MAY_HELP = (
    "It may: `{name}` lets the allocator reuse reserved-but-unallocated memory, and rank {rank} had "
    "{spare} of it against a shortfall of {short} (it asked for {asked} with {free} free){where}{step}."
)
ALLOC_TOO_LITTLE = (
    "Not on its own: `{name}` only lets the allocator reuse reserved-but-unallocated memory, and rank "
    "{rank} had {spare} of it against a shortfall of {short} (it asked for {asked} with {free} free)"
    "{where}{step} — the step needs less memory."
)
ALLOC_NONE = (
    "Not on its own: `{name}` only lets the allocator reuse reserved-but-unallocated memory, and rank "
    "{rank}'s out-of-memory line shows none to reuse; it was {short} short (it asked for {asked} with "
    "{free} free){where}{step}."
)
REAL_FIX = "The fix for this job: {step}"
HANG_IN_COLLECTIVE = (
    "Yes, it hung in a collective: rank {rank} ended with {what}{at} ({ref}), and the other ranks waited "
    "for it until their timeout."
)
HANG_SILENT = "Likely, on rank {rank}: the others timed out waiting for it."

# ---------------------------------------------------------------- where the ranks were (answer_where)
WAITED_IN = "It was waiting in `{op}` ({where}) when it failed, for rank {ini}."
WAITED_IN_BARE = "It was waiting in `{op}` when it failed, for rank {ini}."
DEEPEST_AT = "Its deepest frame in your code was `{func}` ({file} line {line}){code}."
WAITED_IN_ALL = "Ranks {ranks} were all waiting in `{op}` ({where}) when they failed, for rank {ini}."
OTHERS_WERE = "Where the others were when rank {ini} failed: {rows}."
OTHERS_STEP = "Rank {ini} logged no step; the last step any rank logged was step {step} (rank {rank}, {ref})."
FAILED_IN = "Rank {rank} failed in `{func}` ({file} line {line}){code}."
OWN_LOG_NONE = (
    "The lines kept from rank {rank}'s own log show no error of its own: the failure shows in the "
    "launcher's or the kernel's lines instead."
)
OWN_LOG_STOPS = (
    "Its log just stops after step {step} ({ref}{when}): a clean log that stops is the silent rank, "
    "not a healthy one."
)
OWN_LOG = "Rank {rank}'s own log says ({ref}): `{text}`."
STEP_RATE = "It logged a step about every {secs} (steps {first} to {last}, {span})."
CKPT_CUT = (
    "The step {step} checkpoint is not complete: rank {rank} failed while saving it ({ref}), and no line "
    "says the save finished, so treat that file as missing or partial."
)
CKPT_WRITTEN = "The step {step} checkpoint was written before the failure ({ref})."
LIMIT_NOT_LOGGED = (
    "The time limit itself (`--time`) is not in the logs; the scheduler's accounting shows it next to the "
    "elapsed time: `{code}`."
)
FAILED_WITH = "What failed: {what} (`{text}`)."
LAUNCHER_SAID = "The launcher's error: `{text}`."

# ---------------------------------------------------------------- step pace (answer_pace)
PACE_RATE = (
    "Rank {rank}'s step lines ({src}) show steps {first} to {last} from {start} to {end}: about {per} a step "
    "(a step finished about every {per}){every}."
)
PACE_EVERY = " (one line every {n} steps, {gap} apart)"
#: "how long would 1000 steps take at this rate": the asked steps at the usual step time
PACE_PROJECT = "At about {per} a step (rank {rank}'s usual pace), {n} steps would take about {total}."
PACE_SAME = (
    "Step {step} ({at}) was not slower than the others: about {per} a step since step {prev}, as usual."
)
PACE_SLOWER = (
    "Step {step} ({at}) was slower than the others: about {per} a step since step {prev}, against the usual "
    "{typical}."
)
PACE_AFTER = "After step {step} ({at}) the next line came {gap} later, at {next_at} ({ref}): `{text}`."
PACE_END = (
    "The {what} came at {end}, {gap} after the last step line (step {step} at {at}); a step takes {per}."
)
PACE_USUAL = "Its own log keeps few step lines; the usual step time, from {src}, is about {per} a step."
PACE_SILENT = "That is about {n} steps' worth of time with no step line: no step finished in that stretch."
PACE_TOKENS = (
    "Throughput, from each rank's last progress line: rank {rank} at {value} tokens/s, ranks {others} at "
    "{span} (about {k} tokens/s across the job)."
)
PACE_TOKENS_SAME = "Rank {rank} was not slower than the rest before it failed."
PACE_TOKENS_SLOWER = "Rank {rank} was slower than the rest before it failed."
LAST_TO_DIE = "The last rank to fail was rank {rank}, {at}."
LAST_SAME_SECOND = "Ranks {ranks} failed in the same second."
OTHERS_WAITED = (
    "The other {n} rank(s) ({ranks}) sat blocked in {op}, waiting for rank {ini}, until the watchdog's "
    "timeout ran out (Timeout(ms)={ms}, {timeout}); they failed {at}{gap}."
)
#: the gloo backend has no watchdog line: its own recv/send timeout is what ran out
OTHERS_WAITED_GLOO = (
    "The other {n} rank(s) ({ranks}) sat blocked in {op}, waiting for rank {ini}, until gloo's own "
    "timeout ran out (Timed out waiting {ms}ms, {timeout}); they failed {at}{gap}."
)
PCI_SLOT = "Rank {rank}'s GPU{node} is in PCI slot {pci}."
LIBRARY_SEEN = "Rank {rank}'s crash shows a native frame ({ref}): `{text}`."
LIBRARY_UNKNOWN = (
    "No, the logs don't say which library crashed: rank {rank} died of a native crash (SIGSEGV) and no "
    "native backtrace was printed, only the signal. To get one: enable core dumps (`ulimit -c unlimited`) "
    "and open the core with gdb (`gdb $(which python) core` then `bt`), or run with `PYTHONFAULTHANDLER=1` "
    "(faulthandler prints the Python stack at the crash)."
)
BACKTRACE_NONE = (
    "There is no native backtrace in the logs: rank {rank} died of a native crash (SIGSEGV) and only the "
    "signal was printed, no C/C++ frames. To get one next time: enable core dumps (`ulimit -c unlimited`) "
    "and open the core with gdb (`gdb $(which python) core`, then `bt`), or set `PYTHONFAULTHANDLER=1` "
    "for the Python stack at the crash. The kernel logs each segfault too: `dmesg -T | grep -i segfault` "
    "on the node names the library it crashed in (`segfault at … ip … in libX.so`)."
)

# "what number do I change? batch 4 worked for 2000 steps": the failing step's batch shape
NUMBER_LENGTH = (
    "The sequence length: the step that failed ran the same batch of {size}, at {length} tokens each "
    "({name}={length}, {ref}); cap {name} lower (or pack shorter samples), or halve the micro-batch and "
    "double gradient accumulation."
)
NUMBER_SHAPE = (
    "The numbers in the logs: the step that failed ran a batch of {size} x {length} tokens ({ref}); cut "
    "{name} ({length}) or the micro-batch ({size}), keeping the global batch with gradient accumulation."
)

# ---------------------------------------------------------------- job-fitted commands (answer_jobcmds)
DF_DIR = (
    "`df -h {dir}` (and `df -i {dir}` for inodes, `quota -s` for a quota): that is the directory the save "
    "was writing `{path}` to ({ref})."
)
#: asked how full the disk was, or for df's output, when no kept line gives a disk figure
DF_UNSEEN = (
    "The logs don't show how full the disk was: no kept line has df output or a free-space figure, only "
    "the failed write. To read it, run on the node:"
)
DF_NO_PATH = (
    "No kept line names a path it was writing to{doing}, so the logs name no volume to check: free "
    "space matters only for the directory your script saves to (its output or checkpoint dir) on {node}."
)
DF_NOT_SAVING = ": it was not saving a checkpoint, it was {doing} when it failed ({ref})"
DUMP_SUSPECT = "Flight Recorder on rank {rank}: {why}."
WORK_COUNTS = (
    "The watchdog on rank(s) {ranks}: timed out at work {at}; last enqueued NCCL work {enqueued}, last "
    "completed NCCL work {completed} ({ref})."
)
RERUN_WITH = "Rerun once with {step}"
WATCH_RANK = "Watch rank {rank}'s log{log}: it failed first."
WAIT_BEGAN = (
    "The watchdog reported at {end} UTC after waiting {secs} ({ref}), so the collective it timed out "
    "on began waiting at about {start} UTC."
)
NODE_FIND = (
    "The logs don't say which node rank {rank} ran on: its host is not recorded in any line. To find it: "
    "`sacct -j <jobid> -o JobID,NodeList` "
    "lists the job's nodes; with torchrun, rank = node_rank × nproc_per_node + local_rank: its host "
    "is node_rank {rank} // nproc_per_node in that list."
)
NODE_DMESG = (
    "On that node: `dmesg -T | grep -i -E 'oom|killed process|xid|nvrm'` around the time it went silent "
    "(a kernel OOM kill or a GPU fault leaves no Python error)."
)
DUMP_STATES = (
    "In the Flight Recorder dumps (started: the rank launched that collective and waited in it; "
    "completed: it finished): {rows}"
)

#: "did all four ranks time out or only three?": the count, from each rank's own failure line
COUNT_ALL = "All {n} ranks ({ranks}) failed, each with the same line: `{line}`."
COUNT_SOME = "{k} of the {n} ranks ({ranks}) failed with `{line}`; rank(s) {rest} {how}."
COUNT_QUIET = "logged no failure line of their own"
COUNT_OTHER = "failed with a different line"
