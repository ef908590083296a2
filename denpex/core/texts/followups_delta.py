"""Follow-up sentences for a two-event delta ask ("time of A vs time of B, delta?").

Plain sentences (the Slack renderer escapes them); `knowledge.answer_delta` fills in this job's times.
"""

from __future__ import annotations

#: one event: its name, its own line's time and the line
EVENT = "{name}: {clock} UTC ({ref})"
#: an event whose line carries no time of its own
NO_TIME = "{name} ({ref}) has no time of its own"
LEAD = "From the lines' own times: {events}."
GAP = "Delta from {first} to {second}: {gap}."
#: a span with one end given to the whole second only
ABOUT = "about {about} ({exact}; one of the two times is given to the whole second only)"
SAME = "0.0 s: both lines carry the same time"
#: a gap under a second between two lines timed to the millisecond
SUB_SECOND = "{exact}, within one second"
KERNEL_BOTH = (
    "The kernel's two lines: the OOM killer invoked at {a} ({ref_a}), the process killed at {b} ({ref_b})."
)
EV_STEP = "the last logged step (step {step})"
EV_STEP_N = "the step {step} line"
EV_SAVE = "the save line"
EV_KERNEL = "the kernel's OOM-killer line"
EV_KERNEL_KILL = "the kernel's kill line"
EV_TEARDOWN = "torchrun's SIGTERM to the other ranks"
EV_REPORT = "the launcher's failure record"
EV_FAILURE = "rank {rank}'s failure line"
EV_PHRASE = "the `{phrase}` line{whose}"
