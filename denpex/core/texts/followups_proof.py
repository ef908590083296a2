"""Follow-up sentences that prove which rank started a failure: its own error line and time, then each
other rank's own line and why it is a consequence (`knowledge.answer_started_proof` fills them in).

Plain sentences (the Slack renderer escapes them).
"""

from __future__ import annotations

#: the initiating rank's own error, quoted with its place and time
STARTED = "Rank {rank} started it: its own error is `{quote}` ({ref}{at}){what}."
#: the initiating rank printed no error of its own: the line that names its failure
STARTED_NO_ERROR = "Rank {rank} started it: the line that shows its failure is `{quote}` ({ref}{at}){what}."
#: the answer names the initiating rank already: its own line only
OWN_ERROR = "Rank {rank}'s own error line is `{quote}` ({ref}{at}){what}."
OWN_LINE = "The line that shows rank {rank}'s failure is `{quote}` ({ref}{at}){what}."
#: the other ranks' own line, and why it is a consequence of the initiating rank's failure
OTHERS = "Ranks {ranks}: `{quote}` ({ref}{at}): {why}."
OTHER = "Rank {ranks}: `{quote}` ({ref}{at}): {why}."
WHY_PEER = (
    "a consequence, not a second problem: gloo's socket to another rank was closed or reset because "
    "a peer's process had already exited after rank {ini}'s failure, so the collective failed at once"
)
WHY_SIGTERM = (
    "stopped by the launcher (SIGTERM, exitcode -15) because rank {ini} had failed, not an error of their own"
)
WHY_TIMEOUT = (
    "they sat in the collective rank {ini} never joined until their timeout ran out{gap}: "
    "waiting, not failing"
)
WHY_TIMEOUT_GAP = ", {gap} after rank {ini}'s failure"
WHY_AFTER = "it came after rank {ini}'s failure and is not the same error"
#: closing: only the initiating rank's line names a failure of its own
NONE_OWN = (
    "Only rank {ini}'s line names a failure of its own; each of the others' names a peer that had gone, "
    "the launcher's signal or a wait that ran out."
)
#: the initiating rank printed no error: it started it by not arriving, and was stopped later
STARTED_SILENT = (
    "Rank {rank} started it without an error of its own{what}: the others waited for it until their timeout; "
    "its own last line is `{quote}` ({ref}{at}), the launcher stopping it after they had failed."
)

#: which timeout fired: the watchdog's figure and how long the collective ran against it
DUMP_FIRED = (
    "The timeout that fired is the watchdog's: Timeout(ms)={timeout}, and the collective ran {ran} ms "
    "before it was caught ({ref})."
)
#: the dump entries' own `timeout_ms` is not read by the diagnosis; a figure the reader quotes is theirs
DUMP_NOT_READ = (
    "The Flight Recorder entries' own `timeout_ms` field is not read into this diagnosis (it reads each "
    "entry's collective, sequence number and state), so I can't tell you what they record from here."
)
DUMP_QUOTED = (
    "The {figure} you read in the dump's `timeout_ms` is not read into this diagnosis (it reads each "
    "entry's collective, sequence number and state), so it is your reading, not checked here; if the "
    "entries do say {figure}, they were recorded with another timeout than the one that fired, and the "
    "watchdog's line is what ended the job."
)
DUMP_CHECK = (
    'To see the field, print it from a dump: `python -c "import pickle,sys; '
    "d=pickle.load(open(sys.argv[1],'rb')); print(sorted({{e.get('timeout_ms') for e in d['entries']}}))\" "
    "nccl_trace_rank_0` and compare it with {timeout}."
)
