"""Block Kit for no-floods messages: a group's root (count and task ids) and the cap's summary.

`BlockKitRenderer.group_root` / `fold_summary` delegate here. A group root is the first failure's
own root message (same blocks, so its buttons stay) with the count line added under the title;
both are bounded: task ids compress to ranges (`0-41,43`) and are clipped, the summary lists at
most `MAX_ROWS` rows, so 10,000 folded failures still fit Slack's limits.
"""

from __future__ import annotations

from collections import defaultdict

from bot.slack.mrkdwn import clip, context, escape, rank_ranges, section
from denpex.core.texts import groups as texts
from workers.ports import FoldedJob, FoldSummary, GroupView, SlackMessage

#: characters of task ids shown (a section holds 3,000)
TASKS_CHARS = 1500
#: rows of the summary (a section holds 3,000 characters)
MAX_ROWS = 25
ROWS_CHARS = 2800


def task_ranges(tasks: list[str]) -> str:
    """`['0', '1', '2', '5', 'restart 1']` → `0-2,5, restart 1`, escaped and clipped."""
    numbers = sorted({int(t) for t in tasks if t.isdigit()})
    others = [escape(t) for t in tasks if not t.isdigit()]
    parts = ([rank_ranges(numbers)] if numbers else []) + others
    return clip(", ".join(parts), TASKS_CHARS)


def group_root(base: SlackMessage, job_id: str, cluster: str, group: GroupView) -> SlackMessage:
    """The first failure's root, with the group's count line under its title."""
    if group.count <= 1:
        return base
    line = texts.group_line(group.kind, escape(group.parent), group.count, task_ranges(group.tasks))
    blocks = list(base.blocks)
    extra = [section(line), context(texts.GROUP_CONTEXT)]
    blocks[1:1] = extra
    text = clip(escape(texts.group_text(job_id, cluster, group.count)), 3000)
    return SlackMessage(text=text, blocks=blocks[:50])


def _rows(jobs: list[FoldedJob]) -> list[str]:
    """One row per array (and category), one per other job, in the order given."""
    arrays: dict[tuple[str, str], list[str]] = defaultdict(list)
    rows: list[str | tuple[str, str]] = []
    for job in jobs:
        category = escape(job.category or texts.NO_CATEGORY)
        if job.group is not None:
            key = (job.group, category)
            if key not in arrays:
                rows.append(key)
            arrays[key].append(job.task or "?")
        else:
            rows.append(texts.fold_job_row(escape(job.job_id), category))
    out: list[str] = []
    for row in rows:
        if isinstance(row, tuple):
            tasks = arrays[row]
            out.append(texts.fold_group_row(escape(row[0]), len(tasks), task_ranges(tasks), row[1]))
        else:
            out.append(row)
    return out


def fold_summary(summary: FoldSummary) -> SlackMessage:
    rows = _rows(summary.jobs)
    shown: list[str] = []
    for row in rows[:MAX_ROWS]:
        if sum(len(r) + 1 for r in shown) + len(row) > ROWS_CHARS:
            break
        shown.append(clip(row, 300))
    if len(shown) < len(rows):
        shown.append(texts.fold_more(len(rows) - len(shown)))
    blocks = [
        section(texts.fold_headline(summary.count)),
        section("\n".join(shown)),
        context(texts.FOLD_CONTEXT),
    ]
    return SlackMessage(text=texts.fold_text(summary.count), blocks=blocks)
