"""Every text the Slack app shows people: failure posts, `/denpex` replies, thread answers.

Functions take the facts and return mrkdwn; callers escape any text that came from logs or users
before passing it in (`bot.slack.render.escape`). Wording rule: every refusal says what to do next.
"""

from __future__ import annotations

from datetime import UTC, datetime

from denpex.core.plans import Plan, RedemptionStatus

UPGRADE_HINT = "Ask your Denpex admin for an evaluation code and run `/denpex redeem <code>`."


def _date(ts: float | None) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d") if ts else "-"


# ---------------------------------------------------------------- quota
def quota_exhausted_note(plan: str, limit: int) -> str:
    """Shown on automatic failure posts and `/denpex diagnose` when the day's quota is used up."""
    if plan == Plan.scale:
        return (
            f"Today's {limit} diagnoses for this workspace are used up; the quota resets at 00:00 UTC. "
            "Ask your Denpex admin for a higher daily limit."
        )
    return (
        f"This workspace has used its {limit} free diagnoses for today (resets at 00:00 UTC). "
        f"{UPGRADE_HINT} It unlocks 50 a day, history and follow-up questions."
    )


def quota_status(plan: str, used: int, limit: int, expires_at: float | None, in_progress: int = 0) -> str:
    running = f", {in_progress} more in progress" if in_progress else ""
    line = (
        f"*Plan:* {plan.capitalize()} — {used} of {limit} diagnoses used today{running} (resets 00:00 UTC)."
    )
    if plan == Plan.scale:
        return line + f"\n*Scale plan until:* {_date(expires_at)}"
    return line + "\n" + UPGRADE_HINT


def redeem_ok(expires_at: float | None, daily_limit: int) -> str:
    return (
        f":tada: This workspace is on the *Scale* plan until {_date(expires_at)}: "
        f"{daily_limit} diagnoses a day, `/denpex history` and follow-up questions in diagnosis threads."
    )


REDEEM_ERRORS: dict[RedemptionStatus, str] = {
    RedemptionStatus.unknown: (
        "That code is not valid. Check it for typos (codes look like `DPX-XXXXX-XXXXX-XXXXX-XXXXX`)."
    ),
    RedemptionStatus.used: "That code has already been redeemed. Ask your Denpex admin for a new one.",
    RedemptionStatus.expired: (
        "That code expired before it was redeemed. Ask your Denpex admin for a new one."
    ),
}
REDEEM_USAGE = "Usage: `/denpex redeem <code>` — the evaluation code your Denpex admin gave you."


# ---------------------------------------------------------------- commands
HELP = (
    "*Denpex* tells you why a distributed training job died.\n"
    "• `/denpex diagnose <jobid> [--cluster X]` — diagnose a failed job; the answer comes in a thread here\n"
    "• `/denpex quota` — today's diagnoses left and your plan\n"
    "• `/denpex redeem <code>` — redeem an evaluation code (Scale plan: 50 a day, history, follow-ups)\n"
    "• `/denpex history [node:X] [category:Y] [job:Z]` — earlier incidents, filtered (Scale plan)\n"
    "• `/denpex nodes` — the nodes with incidents, worst first, and drain advice\n"
    "• `/denpex solved <jobid> <what fixed it>` — record the fix with the incident (Scale plan)\n"
    "• In a diagnosis thread, ask things like _which rank failed first?_, _show rank 3's last lines_, "
    "_is this hardware?_, _how do I verify the fix?_ (Scale plan)"
)


def unknown_subcommand(word: str) -> str:
    return f"I don't know `{word}`. Try `/denpex help`."


DIAGNOSE_USAGE = (
    "Usage: `/denpex diagnose <jobid> [--cluster X]`, e.g. `/denpex diagnose 4242 --cluster ci`;"
    " on Kubernetes the job is `<namespace>/<name>`."
)


def bad_job_id(job_id: str) -> str:
    return (
        f"`{job_id}` is not a job id I can look up (letters, digits, `.`, `_`, `+`, `-` only). "
        + DIAGNOSE_USAGE
    )


def unknown_cluster(cluster: str, known: list[str]) -> str:
    choices = ", ".join(f"`{c}`" for c in known) or "none configured"
    return f"I don't know the cluster `{cluster}`. Known clusters: {choices}. Pass one with `--cluster`."


def unknown_job(job_id: str, cluster: str) -> str:
    return (
        f"Cluster `{cluster}` has no job `{job_id}`. Check the id (e.g. with `sacct -j {job_id}` or "
        "`kubectl get jobs`); old jobs may have been purged from the scheduler's records."
    )


def diagnose_queued(job_id: str, cluster: str, channel: str) -> str:
    if channel and channel[0] in "CG" and channel.isalnum() and channel.isupper():
        where = f"<#{channel}>"  # a channel id: Slack renders it as a link to the channel
    else:
        where = channel or "the Denpex channel"
    return f"Diagnosing job `{job_id}` on `{cluster}`… the answer will appear in a thread in {where}."


def diagnose_already(job_id: str, cluster: str) -> str:
    return f"Job `{job_id}` on `{cluster}` was already diagnosed or is being diagnosed; see its thread here."


def diagnose_requested_root(job_id: str, cluster: str, user_id: str) -> str:
    return f":mag: <@{user_id}> asked Denpex to diagnose job `{job_id}` on `{cluster}`."


def quota_blocked(note: str) -> str:
    return f":no_entry: {note}"


ENQUEUE_FAILED = "I could not queue that diagnosis (the queue is unavailable). Try again in a minute."
HISTORY_SCALE_ONLY = "`/denpex history` is part of the Scale plan. " + UPGRADE_HINT
HISTORY_EMPTY = "No diagnoses in this channel yet. Run `/denpex diagnose <jobid>` to start one."
HISTORY_TITLE = "*Recent diagnoses in this channel*"
NOT_IN_CHANNEL = "Invite me to this channel first (`/invite @Denpex`), then run the command again."


# ---------------------------------------------------------------- follow-ups
FOLLOWUP_SCALE_ONLY = "Follow-up questions in the thread are part of the Scale plan. " + UPGRADE_HINT
DIAGNOSIS_EXPIRED = (
    "I no longer have the diagnosis for this thread (it expired). "
    "Run `/denpex diagnose <jobid>` again to get a fresh one."
)


MENTION_OUTSIDE_THREAD = (
    "Ask me inside a diagnosis thread (reply to one of my failure posts), or run `/denpex help`."
)


# ---------------------------------------------------------------- `denpex codes` (CLI)
CODES_HELP = "Evaluation codes: each moves one Slack workspace to the Scale plan."
CODES_CREATE_HELP = "Mint evaluation codes. They are printed once and stored only as hashes."
CODES_DAYS_HELP = "Days of Scale plan a code grants from redemption."
CODES_LIMIT_HELP = "Diagnoses a day on the Scale plan."
CODES_COUNT_HELP = "How many codes to mint."
CODES_WITHIN_HELP = "Days within which a code must be redeemed."
CODES_SHOWN_ONCE = (
    "# Shown once: Denpex stores only their SHA-256 hashes. Redeem with `/denpex redeem <code>`."
)


def codes_error(message: str) -> str:
    return f"denpex codes: {message}"


#: HTTP 400 body for a request to /slack/events whose body Bolt cannot read
MALFORMED_REQUEST = "malformed Slack request body"


# ---------------------------------------------------------------- redeem attempt limits
def redeem_throttled(minutes: int) -> str:
    """`/denpex redeem` after too many wrong codes; even a right code waits until the window passes."""
    unit = "minute" if minutes == 1 else "minutes"
    return (
        f"Too many wrong codes; try again in {minutes} {unit}. "
        "Check the code your Denpex admin gave you (codes look like `DPX-XXXXX-XXXXX-XXXXX-XXXXX`)."
    )


# ---------------------------------------------------------------- a job folder that is a link
def job_folder_is_link(job_id: str, cluster: str, outside: bool) -> str:
    """`/denpex diagnose` for a files job whose folder is (or is reached through) a link: refused at
    once, since the collector opens folders without following links and would fail on every retry."""
    where = "a link outside the log root" if outside else "a link"
    return (
        f"Job `{job_id}` on `{cluster}`: that job's folder is {where}; Denpex does not follow links. "
        f"Copy the job's logs into `{cluster}/{job_id}/` under `DENPEX_LOG_ROOT` itself, then ask again."
    )
