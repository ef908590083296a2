"""Follow-up sentences that list a job's events with their times and the spans between them.

Plain sentences (the Slack renderer escapes them); `knowledge.answer_spans` fills in this job's times.
"""

from __future__ import annotations

EV_FIRST = "the logs' first line"
EV_STEP = "the last step line (step {step})"
EV_SAVE = "the save started"
EV_FAILURE = "rank {rank}'s failure line"
EV_KERNEL = "the kernel's line"
EV_TEARDOWN = "torchrun's SIGTERM to the other workers"
EV_END = "the logs' last line (the launcher's failure report)"
EV_COLLATERAL = "their own first failure line"
#: an event whose line carries no time of its own
EV_NO_TIME = "{name}{where} has no time of its own"
LISTED = "From the lines' own times (UTC): {events}."
SPAN = "From {first} to {second}: {gap}."
BOUND = (
    "So {name} falls between {first} ({at_a}) and {second} ({at_b}): at most {gap} after {first}, "
    "not an exact time."
)
#: the same window counted from an earlier event the message names ("how long after 'Starting training'")
BOUND_FROM = "Counted from {first} ({at}): between {low} and {high} after it."
WAITED = "Ranks {ranks} waited from {first} ({at_a}) to {second} ({at_b}): {gap}."
#: a wait whose start or end is a bound (a failure with no time of its own, the launcher's report)
WAITED_AT_MOST = "Ranks {ranks} waited at most from {first} ({at_a}) to {second} ({at_b}): {gap} at most."
#: a span with one end given to the whole second only (the launcher's summary)
ABOUT = "about {about} ({exact} counted from a time given to the whole second)"
SAME_SECOND = "within the same second (one of the two times is given to the whole second only)"
ONE_SECOND = "All of them fall within one second."
EV_REPORT = "the launcher's `failed (exitcode: …)` line"
EV_QUOTED = "the `{phrase}` line"
EV_LAUNCH = "the job's first line of its own (its launch)"
EV_TRAIN_START = "the start of training"
EV_NAN = "the first NaN line"
EV_STEP_ONE = "the step 1 line"
EV_CANCEL = "the cancellation"
EV_WATCHDOG = "the others' watchdog timeout"
EV_FIRST_NOT_STEP = "the logs' first line (step 1's own line was not kept)"
EV_RANK_ERROR = "rank {rank}'s own error line"
#: the failing rank's own timed lines around a failure line without a time: its last line before, its exit
EV_PRIOR = "rank {rank}'s last line before it ({ref})"
EV_EXIT = "rank {rank}'s exit line"
#: the silence from the last step line to the end, counted in the job's own step times
INTERVALS = (
    "That is {count} step intervals of silence: {silence} from the last step line (step {step}, {ref}, "
    "{at}) to {end} ({until}), at one step every {every}."
)
INTERVALS_END = "the end"
INTERVALS_FAILED = "rank {rank}'s failure"
