"""Texts of the thread's action buttons: the audited Drain button and the "Fixed — how?" modal.

Plain text with Slack mrkdwn marks. Node names and notes that came from a log, a scheduler or a
user are escaped by the caller before they are passed in, so these functions only compose.
"""

from __future__ import annotations

from denpex.core.texts.incidents import SOLVED_SCALE_ONLY

# -- the Drain button (bot.slack.drain)
#: Slack's limit for a button's text is 75 characters; node names are clipped by the caller
DRAIN_CONFIRM_TITLE = "Drain this node?"
DRAIN_CONFIRM_OK = "Drain"
DRAIN_CONFIRM_CANCEL = "Cancel"
DRAIN_OFF = (
    "The Drain button is turned off here (`DENPEX_DRAIN_ACTION=off`); nothing was run. "
    "Run the drain command shown in the thread yourself."
)
DRAIN_NOT_ADMIN = (
    "Only Denpex admins (`DENPEX_ADMINS`) may drain a node from Slack; nothing was run. "
    "Ask one of them, or run the drain command shown in the thread yourself."
)
DRAIN_BAD_REQUEST = "That Drain button does not name one node Denpex can drain; nothing was run."


def drain_button(node: str) -> str:
    return f"Drain {node}"


def drain_confirm(node: str, scheduler: str) -> str:
    how = "cordon it (no new pods)" if scheduler == "kubernetes" else "set it to DRAIN in Slurm"
    return f"This will {how}: {node}. Running work is left alone. Press Drain to go ahead."


def drain_advice(node: str, why: str) -> str:
    """The drain advice line when the Drain button is on (`texts.incidents.drain_advice` otherwise)."""
    return (
        f":warning: Drain `{node}` before the next job lands on it ({why}). An admin can press *Drain* below."
    )


def drain_reason(label: str, user: str) -> str:
    """The reason Slurm shows for the drained node (`sinfo -R`)."""
    return f"denpex: {label} (by {user})"


def drained(node: str, user_id: str, scheduler: str) -> str:
    """The thread reply after a successful drain."""
    note = (
        " (cordoned: no new pods; running pods stay until `kubectl drain`)"
        if scheduler == "kubernetes"
        else ""
    )
    return f":construction: `{node}` drained by <@{user_id}>{note}."


def drain_failed(node: str, error: str) -> str:
    return f"Draining `{node}` failed; the node is unchanged as far as Denpex knows: {error}"


# -- the "Fixed — how?" button and modal (bot.slack.fixnote)
FIX_BUTTON = "Fixed — how?"
#: Slack: a modal's title, submit and close texts are plain_text of at most 24 characters
FIX_MODAL_TITLE = "What fixed it?"
FIX_MODAL_SUBMIT = "Save"
FIX_MODAL_CLOSE = "Cancel"
FIX_INPUT_LABEL = "What fixed it"
FIX_INPUT_HINT = "Shown under “Seen before” in later threads of this failure mode. Secrets are masked."
FIX_INPUT_PLACEHOLDER = "reseated the GPU in slot 5, dcgmi diag -r 3 clean"
FIX_EMPTY = "Say what fixed it (a few words are enough)."
FIX_SCALE_ONLY = SOLVED_SCALE_ONLY.replace("`/denpex solved`", "Recording what fixed a failure")
#: the same, short enough for an error under the modal's input
FIX_SCALE_ONLY_SHORT = "Recording what fixed it is part of the Scale plan; run `/denpex redeem <code>` first."


def fix_modal_intro(job: str) -> str:
    return f"Job `{job}`: what fixed it? The next thread with the same failure mode shows your note."


def fix_recorded(job: str, user_id: str, note: str) -> str:
    """The thread reply after the modal was submitted (`note` masked and escaped)."""
    return f":white_check_mark: <@{user_id}> recorded what fixed job `{job}`: {note}"


def fix_unknown(job: str) -> str:
    return f"The history has no job `{job}` (only Scale-plan incidents name their job); nothing was stored."
