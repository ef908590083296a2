"""Texts of the audit answers (knowledge/answer_lineaudit.py): a line's own time, the launcher's stamps,
the killed DataLoader worker, a backtrace next time, each named rank's own error."""

TIME_OWN = "Rank {rank}'s failure line ({ref}) carries its own timestamp, {time} UTC."
TIME_NONE = "Rank {rank}'s failure line ({ref}) carries no timestamp of its own"
TIME_FROM = (
    "{none}: the time {time} UTC is taken from the nearest earlier timed line, {src} ({whose}):"
    " `{text}`{borrowed}."
)
BORROWED = "; that is another rank's line, so the time is borrowed (it failed at or after it)"
SHARED = "; that line is the launcher's or a node's, not the rank's own output"
OWN_EARLIER = "; that is rank {rank}'s own earlier line, so it is not borrowed"
LAUNCHER = "The launcher's lines carry millisecond stamps: {items}."
LAUNCHER_ITEM = "{time} ({ref}): `{text}`"
ORDER = (
    "The launcher logs a rank's failure record only after it has stopped the others, so SIGTERMs stamped"
    " before the -11/SIGSEGV record do not make rank {rank} later: the record is written after the"
    " teardown."
)
WORKER = "Rank {rank}'s DataLoader worker (pid {pid}) was killed by signal: {sig} ({ref}): `{text}`."
BACKTRACE = (
    "For a real backtrace next time: set PYTHONFAULTHANDLER=1 (or `python -X faulthandler`) for the"
    " Python stack of every thread at the crash, and `ulimit -c unlimited` to keep a core dump, then"
    " `gdb $(which python) core` and `bt` for the native (C/C++) frames."
)
NO_TRACE_FILES = (
    "Files checked for rank {rank}'s native backtrace or faulthandler output: {files}; none holds one."
)
EACH = "Rank {rank}'s own line ({ref}): `{text}`."
QUIET_STDERR = (
    "torchrun also writes each rank's stderr beside its stdout ({files}): no line of it was kept, so it"
    " holds no trace."
)
STEP_LINE = "Rank {rank}'s step {step} line ({ref}, {time} UTC): `{text}`."
