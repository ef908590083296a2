"""Round 33e: long, polite messages whose real ask hides behind context ("Could you please explain why
ranks 0, 2 and 3 also failed, even though only rank 1 ran out of memory? Rank 3 does not even seem to
have an error message of its own.", "I am a little confused about the timing: the bot says 'at or
after …', but when did the job actually end?", "I am not sure what time limit I set. Can you tell
from the logs how long the job actually ran?"); when the waiting ranks timed out ("others hung on what
seqnum, and when did they time out", "why did ranks 1 to 7 fail only about ten minutes after rank 0's
error?"); the function the ranks were in ("which function in my script were the ranks in when they
timed out?"); what to pull from the scheduler ("what do i still need to pull from slurm").

Why: the whole message was matched as one ask, so its context words (a premise after "even though", a
statement before the question, a quoted phrase of the summary) picked the intent and the question
went unanswered; the message's one question, stripped of its polite lead-in and premise, now leads
(`knowledge.answer_real_ask`). The wait answer gave a span but not the two clock times
(`knowledge.answer_timedout`); "in my script" read as "is the timeout from my script?"; "pull from
slurm" matched no intent.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "checkpoint_oom",
        "Could you please explain why ranks 0, 2 and 3 also failed, even though only rank 1 ran out of"
        " memory? Rank 3 does not even seem to have an error message of its own.",
        ["SIGTERM|-15|signal 15"],
        [],
    ),
    (
        "checkpoint_oom",
        "Could you please explain why rank 3 also failed, even though only rank 1 ran out of memory? I"
        " cannot find any error from it.",
        ["SIGTERM|-15|signal 15"],
        [],
    ),
    (
        "checkpoint_oom",
        "I am a little confused about the timing: the bot says 'at or after 21:38:30.286', but when did"
        " the job actually end?",
        ["21:38:35"],
        [],
    ),
    (
        "time_limit",
        "I am not sure what time limit I set. Can you tell from the logs how long the job actually ran?",
        ["03:00:04|03:00", "03:11:40"],
        [],
    ),
    (
        "time_limit",
        "I do not remember which --time I asked for. Could you please tell me how long the job actually ran?",
        ["03:00:04", "03:11:40"],
        [],
    ),
    ("zero3_save", "others hung on what seqnum, and when did they time out", ["4512", "03:18:20"], []),
    (
        "zero3_save",
        "Why did ranks 1 to 7 fail only about ten minutes after rank 0's error?",
        ["600000|600 s|10 min|ten minutes", "03:08:20", "03:18:20"],
        [],
    ),
    (
        "gpu_oom",
        "Why did ranks 0 to 4 fail about ten minutes after rank 5's error?",
        ["03:14:02", "03:24:02"],
        [],
    ),
    (
        "host_oom_kill",
        "the others hung on which collective, and when did they time out?",
        ["03:14:05", "03:24:06"],
        [],
    ),
    (
        "hang_before_collective",
        "Which function in my script were the ranks in when they timed out?",
        ["reduce_metric", "144"],
        [],
    ),
    (
        "desync",
        "Which function in my script were the ranks in when they got stuck?",
        ["reduce_metric", "142", "144"],
        [],
    ),
    ("host_oom_kill", "what do i still need to pull from slurm for this one", ["sacct"], []),
]
