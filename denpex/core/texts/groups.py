"""Texts of grouped failures (one thread for a job array or a requeued job) and of the thread cap's
"N more failures" summary (`workers.floods`, rendered by `bot.slack.groups`).

Plain text with Slack mrkdwn marks; values from schedulers (job ids, task ids, categories) are
escaped by the caller before they are passed in, so these functions only compose.
"""

from __future__ import annotations


def group_line(kind: str, parent: str, count: int, tasks: str) -> str:
    """The group root's count line: `*30 tasks of array 1234 failed alike:* 0-29`."""
    if kind == "array":
        what = f"{count} tasks of array `{parent}` failed alike"
    elif kind == "requeue":
        what = f"Job `{parent}` failed alike {count} times (requeued)"
    else:
        what = f"`{parent}` failed alike {count} times"
    return f":repeat: *{what}:* {tasks}" if tasks else f":repeat: *{what}*"


GROUP_CONTEXT = "Failures alike join this thread; a failure that differs gets its own."


def group_text(job_id: str, cluster: str, count: int) -> str:
    """The group root's notification text."""
    return f"Job {job_id} on {cluster} and {count - 1} more failed alike"


def fold_headline(count: int) -> str:
    noun = "failure" if count == 1 else "failures"
    return f":mailbox_with_mail: *{count} more {noun}* (thread limit for this channel reached)"


def fold_text(count: int) -> str:
    return f"{count} more failures (thread limit for this channel reached)"


FOLD_CONTEXT = "DENPEX_MAX_THREADS_PER_MIN caps new threads; `/denpex diagnose <jobid>` shows any of these."


def fold_group_row(parent: str, count: int, tasks: str, category: str) -> str:
    return f"• array `{parent}`: {count} tasks ({tasks}): {category}"


def fold_job_row(job_id: str, category: str) -> str:
    return f"• `{job_id}`: {category}"


def fold_more(count: int) -> str:
    return f"…and {count} more"


NO_CATEGORY = "no diagnosis"
