"""Follow-up answer sentences about the user's code, the other ranks and how to dig further.

Plain sentences (the Slack renderer escapes them); `knowledge.answer_code` and
`knowledge.answer_overview` fill in this job's facts. The rest of the follow-up texts are in `slack.py`.
"""

from __future__ import annotations


def user_frame(rank: int, path: str, line: int, func: str, code: str, inside: str) -> str:
    shown = f": `{code}`" if code else ""
    below = f" It failed below that, inside {inside}." if inside else ""
    return f"Rank {rank}'s deepest frame in your code: `{path}` line {line}, in `{func}`{shown}.{below}"


def others_frame(ranks: str, path: str, line: int, func: str, code: str, inside: str) -> str:
    shown = f": `{code}`" if code else ""
    below = f", inside {inside}" if inside else ""
    return f"rank(s) {ranks} at `{path}` line {line}, in `{func}`{shown}{below}"


def others_frames(rows: list[str]) -> str:
    return "The other ranks' deepest frames in your code: " + "; ".join(rows) + "."


def inside(func: str, package: str) -> str:
    return f"`{func}` ({package})" if package else f"`{func}`"


def no_user_frame(rank: int, has_traceback: bool) -> str:
    if has_traceback:
        return f"Rank {rank}'s saved traceback lines are all library frames; none is from your code."
    return (
        f"Rank {rank}'s saved lines hold no traceback, so no line of your code is named: "
        "it ended without a Python exception of its own."
    )


def last_line(source: str, text: str) -> str:
    return f"Its last line ({source}): `{text}`."


def lines_before(rank: int, source: str) -> str:
    return f"What rank {rank} logged just before it failed ({source}):"


def traceback_of(rank: int, source: str) -> str:
    return f"Rank {rank}'s traceback ({source}):"


def collectives(rows: list[str]) -> str:
    return "From their tracebacks: " + "; ".join(rows) + "."


def collective_row(ranks: str, op: str, where: str) -> str:
    word = "rank" if "," not in ranks and "-" not in ranks else "ranks"
    return f"{word} {ranks} in `{op}`" + (f" ({where})" if where else "")


def mismatch(rank: int, op: str, others: str, their_op: str, where: str = "", theirs: str = "") -> str:
    at, at_theirs = (f" ({where})" if where else ""), (f" ({theirs})" if theirs else "")
    return (
        f"Rank {rank}'s traceback is in `{op}`{at} while rank(s) {others} are in `{their_op}`{at_theirs}: "
        "different collectives, a desync."
    )


def summary(title: str, lead: str) -> str:
    return f"*{title}*. {lead}" if title else lead


def others(count: int, ranks: str, rank: int | None, example: str) -> str:
    who = f" of rank {rank}" if rank is not None else ""
    return f"The other {count} failing rank(s) ({ranks}) were collateral{who}. {example}"


def verdict(title: str, confidence: float, rank: int) -> str:
    return f"The verdict is *{title}* ({confidence:.2f}), started by rank {rank}."


def started_here(rank: int, what: str, step: str) -> str:
    return f"In this job rank {rank} started it ({what}{step})."


def debug_lead(what: str, rank: int | None) -> str:
    on = f" on rank {rank}" if rank is not None else ""
    return f"To see more the next time ({what}{on}), first:"


def no_step(rank: int, other: str) -> str:
    return f"No step number is in rank {rank}'s saved lines{other}."


def other_step(step: int, rank: int, loss: str = "") -> str:
    """Ranks step in lockstep (each step's collectives need them all), so the failure came after it;
    the loss that step printed is said with it (an on-call reader quotes the two together)."""
    at = f"rank {rank}, loss {loss}" if loss else f"rank {rank}"
    return f"; the last step any rank logged is step {step} ({at}), so it failed after step {step}"


def saving_file(name: str, source: str) -> str:
    return f"; the checkpoint being written is `{name}` ({source})"


def not_this_rank(rank: int, role: str, culprit: int | None) -> str:
    owner = f" The memory error was rank {culprit}'s:" if culprit is not None else ""
    return f"Rank {rank} has no memory error of its own: it was {SHORT_ROLE.get(role, role)}.{owner}"


SHORT_ROLE = {"collateral": "collateral", "healthy": "not failing", "missing": "missing from the logs"}


def hang(ranks: str, culprit: int | None, wait: str, gap: str) -> str:
    on = f" on rank {culprit}" if culprit is not None else ""
    how = f": {wait}" if wait else ""
    after = f" They failed {gap} after it." if gap else ""
    return f"Ranks {ranks} waited{on}{how}.{after}"


def batch_line(rank: int, source: str, text: str) -> str:
    return f"Rank {rank}'s last line about its batch before it failed ({source}): `{text}`."


def partial_checkpoint(rank: int, name: str) -> str:
    what = f"`{name}`" if name else "the checkpoint it was writing"
    return (
        f"The save did not finish on rank {rank}, so {what} may be missing or partial (incomplete): "
        "check that it loads, or resume from the one before (the previous completed checkpoint)."
    )


HISTORY_UNKNOWN = "I can't tell whether *{title}* happened before: the incident history could not be read."

#: "what changed since yesterday?": only this run's logs are read, so no diff is made up
ONLY_THIS_RUN = (
    "I only read this run's logs, not an earlier run's, so I can't say what changed; this run shows:"
)
#: "can we resume from the last checkpoint?": what resuming replays, after the restart verdict
RESUME = (
    "Resuming from the last saved checkpoint re-runs the steps after it{step}, so it meets the same "
    "cause again unless that is dealt with first."
)
#: a question with a second ask: the first is answered, the second offered as its own question
ALSO_ASKED = "You also asked _{ask}_ — ask it on its own and I'll answer that too."


def compare_times(first: int, first_at: str, second: int, second_at: str, gap: str) -> str:
    """Two ranks' first failures, earlier one first ("did rank 3 die before or after rank 5?")."""
    if not gap:
        return f"Rank {first} and rank {second} failed at the same time{first_at}."
    return f"Rank {first} failed first{first_at}; rank {second} {gap} later{second_at}."


def launcher_stopped(ranks: str, code: int, signal: str) -> str:
    """The collateral ranks' end by the launcher's failure summary ("why did the rest get SIGTERM'd?")."""
    return (
        f"The launcher's failure summary shows rank(s) {ranks} ended with exit code {code} ({signal}): "
        "the launcher stops the remaining workers once one fails."
    )


def memory_kind(host: bool, contrast: bool = True) -> str:
    if host:
        return "It was host (system) RAM, not GPU memory." if contrast else "It was host (system) RAM."
    return "It was GPU memory (the device's), not host RAM." if contrast else "It was GPU memory."


def victim_of(rank: int, what: str, when: str, gap: str) -> str:
    earlier = f", {gap} earlier" if gap else ""
    return f"a victim of rank {rank} ({what}{when}{earlier})"


def complaint(who: str, rank: int | None, source: str, text: str) -> str:
    by = f"rank {rank}'s " if rank is not None else "the "
    return f"What {who} says ({by}line {source}): `{text}`."


def complaint_none(who: str) -> str:
    return f"No line of this failure's evidence names {who}; the failure's own lines are below."


COMPLAINT_MEANS = "What it means:"


# ------------------------------------------------ checking a guess (knowledge/answer_checks.py)
GUESS_YES = "Yes, it points at {name}: rank {rank} failed first, with {what}."
GUESS_NO = "Not {name}, by this job's evidence: rank {rank} failed first, with {what}. {echo}"
GUESS_NOT_THEIRS = "No, not of their own: {name} was rank {rank}'s problem ({what})."
GUESS_ECHO = (
    "The errors on rank(s) {ranks} came after it: they are collateral (their peer rank {rank} went away), "
    "not a fault of their own."
)
TIMEOUT_WONT_HELP = "Raising the timeout would not help: the others would only wait longer."
TIMEOUT_GONE = "Rank {rank} had already failed ({what}), so the collective they waited in could never finish."
TIMEOUT_STUCK = "Rank {rank} {what}: it was never going to join, however long they waited."
TIMEOUT_MAY_HELP = (
    "It may: rank {rank} was slow, not gone, so a longer timeout can get it through — but find why it "
    "was slow first (a slow node, an uneven data shard, a blocking save on one rank)."
)
NAMED_COLLATERAL = (
    "Rank(s) {ranks} only timed out or were torn down waiting for rank {rank}: collateral, with no GPU "
    "fault of their own in the evidence."
)
PORT_BLAME = (
    "{lead} Yes, that is it: the port was already in use on that node (EADDRINUSE), and a port fixed in "
    "the launch script collides with any other job or leftover process holding it. {step}"
)
NO_WORKER_RAN = (
    "No worker started before it failed: no rank logged a line or a step, so your training code never ran."
)
NO_WORKER_RENDEZVOUS = (
    "No worker started: the launcher's rendezvous (its TCPStore, where the workers meet before training) "
    "failed first, so no rank logged a line or a step and your training code never ran."
)
NOTHING_TO_RESUME = (
    "Nothing to resume from: it failed before any worker started, so no step ran and no checkpoint was saved."
)
REPRO_LEAD = "To reproduce it with the cause reported, run this (a short run of the same job):"
PEER_GONE = (
    "; its connection closed because a peer process went away, after rank {rank} stopped on its own failure"
)
TRACE_NEXT_TIME = "To get one next time: {step}"
TERM_SET = "The fix for this job: {steps}"
TERM_AND_FIX = "This job failed with {what}; the fix step that deals with it: {step}"
CHECK_LEAD = "To check it, run this on {node}:"
#: added to a check command asked to confirm host RAM: did the kernel run out, and kill whom
KERNEL_OOM_CHECK = "dmesg -T | grep -iE 'out of memory|oom-kill|killed process'  # the kernel's own record"
NODE_COLLATERAL = (
    "Not by this job's evidence: {node}'s rank(s) {ranks} only timed out or were torn down waiting for "
    "rank {rank} on {ini_node}: collateral, with no fault of {node}'s own in the evidence. On {ini_node}:"
)
NO_KERNEL_FAULT = (
    "No kernel-log (dmesg) line in this job's evidence names a GPU fault; to rule it out, check "
    "`dmesg -T | grep -i xid` on rank {rank}'s node."
)
NOT_THE_KILLER = (
    "Not the kernel OOM killer, by this job's evidence: no OOM-killer line or SIGKILL is in it — rank "
    "{rank}'s own allocation was refused and it raised. Check `dmesg -T | grep -i oom` (the kernel log) "
    "on its node to be sure."
)
NOT_THE_KILLER_OTHER = (
    "Not the kernel OOM killer, by this job's evidence: no OOM-killer line or SIGKILL is in it — {who} "
    "failed with {what}. Check `dmesg -T | grep -i oom` (the kernel log) on its node to be sure."
)
TIMEOUT_WAS = "The timeout was {timeout}, from the watchdog's `Timeout(ms)`."
#: the timeout with the token its line prints (`Timed out waiting 10000ms`, `Timeout(ms)=600000`)
TIMEOUT_WAS_RAW = "The timeout was {timeout} (`{raw}` in the logs)."
RMA_NEXT = "Next: {step}"
LAST_STEP = "Rank {rank}'s last logged step was {step}{total}."
WENT_QUIET = "Rank {rank}'s last line was at {at} UTC ({ref}: `{text}`); after that it wrote nothing."
VERSION_SEEN = "{what} {version}{where} ({ref})."
VERSION_DUMPS = "NCCL {version} (the Flight Recorder dumps' `comm_lib_version`)."
VERSION_GLOO = (
    "No NCCL version applies: this job's collectives ran on gloo, PyTorch's CPU backend ({ref}), not"
    " NCCL, so no NCCL bug (hang or other) can be behind it and its logs print no NCCL version."
)
VERSION_MISSING = "No {what} version is in the lines Denpex read: it is not printed in this job's logs."
MEMORY_BY_RANK = (
    "From each rank's last progress line: rank {rank} at {value} {unit}, ranks {others} at {span} {unit} — "
    "it was using more all along, not only in the last step."
)
LAUNCHER_PID = "The launcher reported rank {rank}'s process as pid {pid} ({ref})."
COLLECTIVE_NUMBER = (
    "#{n} is the collective's sequence number in its process group: the {n}th collective that group "
    "ran, counted the same on every rank, so ranks at different numbers are out of step."
)
PCI_OTHER_NODE = (
    "Not the same card: the Xid was on {xid_node}'s GPU at PCI {pci} (rank {xid_rank}'s); the same bus id "
    "on {node} is that node's own GPU in the same slot."
)
INVESTIGATE_FIRST = "Before restarting, find out why rank {rank} stalled: {step}"
BACKEND_IS = "It is {name} ({ref}): {what}."
BACKEND_UNKNOWN = "The failure lines don't name the collective backend (NCCL or gloo)."
BACKEND_WORDS = {
    "gloo": (
        "PyTorch's CPU backend (no GPU needed); its timeouts mean the same as NCCL's watchdog: a peer never "
        "joined"
    ),
    "NCCL": "NVIDIA's GPU collective library behind PyTorch's ProcessGroupNCCL",
}
CULPRIT_YES = "Yes: rank {rank} is the one whose failure started it."
CULPRIT_NO = "No: rank {rank} was {what}; rank {ini} started it."
CULPRIT_WHICH = "Rank {ini} is the one whose failure started it."
CULPRIT_OTHER = "Rank {rank} was {what}."
LAUNCHER_ENDED = (
    "The launcher's summary shows rank {rank} ended with exitcode {code}{signal} ({ref}): it was stopped"
    "{after}, it did not fail by itself."
)
SILENT_RANK = (
    "Its own log shows no error: it went silent (stuck or dead without a traceback), and the others "
    "timed out waiting for it."
)
NODE_UNKNOWN = "The logs don't say which node rank {rank} ran on: its host is not recorded in any line."
SAME_COLLECTIVE = "After the fix, every rank must reach the same collectives in the same order."


def in_call(func: str, file: str, line: int, code: str, inner: str) -> str:
    shown = f": `{code}`" if code else ""
    below = f" It failed below that, inside {inner}." if inner else ""
    return f"It was in `{func}` ({file} line {line}){shown}.{below}"


QUOTED = "`{frag}` is from {ref}{role}. {meaning}"
QUOTED_SAVING = "It came while rank {rank} was saving `{name}` ({ref}): that file was cut short."
QUOTED_MEANS = "`{frag}` is how it says it: {meaning}"
QUOTED_VERDICT = ": the line of {what} on rank {rank}, the failure that started it"
QUOTED_JOB = ": the line of {what}, the failure this job ended with"
QUOTED_CONTEXT = ". The job failed with {what}, started by rank {rank}"
QUOTED_ENDED = ". The job ended with {what} ({ref})"
QUOTED_COLLATERAL = ": rank {rank}'s own error, a consequence of rank {ini}'s failure (collateral)"
WRITING_TO = "It was writing to `{path}` ({ref})."
RANK_WRITING_TO = "Rank {rank} was writing to `{path}` ({ref})."
PORT_IS = "Port {port} ({ref})."
NO_RANK_STARTED = (
    "No rank: the launcher failed before any worker started ({what}), so there is no first rank to name."
)
NO_STACK_SILENT = (
    "Rank {rank} has no traceback in the logs: it printed no error of its own and went silent (stuck or "
    "dead), so there is no stack to show; the others' timeouts waiting on it are what the logs hold."
)
NO_NATIVE_STACK = (
    "Rank {rank} has no Python traceback in the logs: a native crash (SIGSEGV) kills the process before "
    "Python can print one. Next time run with PYTHONFAULTHANDLER=1 (a Python stack of every thread on "
    "the signal), or get a native backtrace from a core dump (`ulimit -c unlimited`, then `gdb python core`)."
)
EXIT_PARTIAL = "The saved lines keep only part of the launcher's summary: rank(s) {ranks} are not in it."
EXIT_CODES = (
    "Rank {rank} exited with {code} (its own error); rank(s) {others} got {other_code}{signal}: the launcher "
    "stopped them after rank {rank} failed ({ref})."
)
STOPPED_ALIVE = (
    "The launcher's summary shows it was ended by SIGTERM ({ref}): it was still running — stuck, not "
    "crashed — when torchrun stopped it."
)
NOT_THESE_RANKS = (
    "Rank(s) {ranks} had no memory error of their own: they were collateral, each failing with its own "
    "line below after rank {ini}'s memory error."
)
KILLED_UNSEEN = (
    "{what} on rank {rank}: the process was ended by SIGKILL (`Killed` is signal 9, {ref}); no kernel "
    "log came with this job, so the logs don't show who sent it. A SIGKILL with no Python error is "
    "most often the kernel OOM killer (host RAM running out): check "
    "`dmesg -T | grep -i -E 'oom|killed process'` on {node} to confirm."
)
CHECKPOINT_NAMED = "The save it was in was writing `{name}` ({ref})."
PORT_HOLDER = "To see what holds it, run on that node:"
PORT_HOLDER_UNNAMED = (
    "The logs don't name the process holding it: they don't say which and don't show a pid or a job; the "
    "error says only "
    "that the address was taken, so whether it is your old job can't be told from them."
)
GAPS_LEAD = "To confirm it, this job's evidence lacks: {gaps}."
GAP_KERNEL = (
    "the kernel log (`dmesg -T`) of {nodes} — pull it off the node: it shows OOM kills, cgroup memory "
    "limits and GPU Xid errors at the failure's time"
)
GAP_DUMPS = "Flight Recorder dumps (the last collective each rank entered)"
GAP_RANKS = "any log from rank(s) {ranks}"
GAPS_NONE = (
    "Nothing obvious is missing: this job's evidence has the ranks' logs and the kernel log of {nodes}."
)
LOSS_TREND = "The last logged losses ({who}, steps {first}–{last}): {values}."
LOSS_FLAT = (
    "No spike in those logged values (range {low}–{high}){down}; the last one was {value} at step {step}."
)
LOSS_DOWN = ", going down overall: no sign of divergence"
LOSS_SPIKE = "The loss rose before the end: {value} at step {step}, against {median} typical before it."
LOSS_READS_LR = (
    "More likely the learning rate (or a warm-up too short) than one bad batch: the loss climbed before "
    "the NaN, which is how a learning rate too high shows; the logs alone cannot prove either."
)
LOSS_READS_DATA = (
    "More likely one batch (or one op on it) than the learning rate: the loss was not climbing and then "
    "went NaN at once, while a learning rate too high usually shows as a rising loss first. The logs "
    "alone cannot prove either: `torch.autograd.set_detect_anomaly(True)` on a short repro names the op."
)
LOSS_THEN = "Then rank {rank} failed with {what} ({ref})."
LOSS_NONE = "No loss values are in the lines Denpex read (no progress line prints a loss)."
GAP_SCHEDULER = (
    "the scheduler's record of the job's memory (`sacct -j <jobid> -o JobID,State,ExitCode,MaxRSS,ReqMem` "
    "under Slurm, `kubectl describe pod` on Kubernetes): its peak resident memory against its limit"
)
PORT_DEFAULT = (
    "That is not torchrun's default ({default}, used when neither `--master-port` nor `MASTER_PORT` is "
    "set): this port was chosen by the launch."
)
PORT_IN_USE = (
    "`EADDRINUSE` means another process was already listening on it — often a leftover or concurrent "
    "run on the same node (a stale process of an earlier job)."
)
EVENT_SAVE = "the save started"
EVENT_TEARDOWN = "torchrun sent SIGTERM to the other workers"
EVENT_FAILURE = "rank {rank} failed"
EVENT_GAP = "{gap} between them: {first} at {at_a} ({ref_a}), {second} at {at_b} ({ref_b})."
EVENT_ABOUT = "About {about} ({exact} counted from the launcher's summary, which gives whole seconds)"
LAST_GOOD_STEP = "The last step rank {rank} logged before step {failed}, where it failed, was {step} ({ref})."
GAP_ENGINE = "the {what} ({action})"

DESYNC_RECURS = (
    "A desync in the code is not a fluke: it happens again on every run that takes the same code path, "
    "until every rank makes the same call in the same order."
)
XID_ELSEWHERE = (
    "The job itself can go back on now, away from {node}: resubmit excluding it (Slurm `--exclude={node}`) "
    "while {node} is drained and tested."
)
PORT_NONE = (
    "No port appears in this job's kept lines: it failed with {what} on rank {rank}, not a port or "
    "rendezvous problem."
)
