"""Texts of the answers about the lines a rank logged in a window, beside its work, by node and the
environment the logs print (`knowledge.answer_window`, `answer_hosts`, `answer_logged`)."""

from __future__ import annotations

#: every line the rank logged between two events, oldest first
WINDOW = "What rank {rank} logged from {start} to {end}, in order (every line kept): {listed}."
#: a traceback inside the window, told as its span
WINDOW_TRACE = "the traceback ({first}-{last})"
#: the rank's lines beside its training between its last step and its failure
BESIDE = (
    "Besides training, rank {rank} logged between its last step line ({step}) and its failure ({end}): "
    "{listed}."
)
BESIDE_NONE = (
    "Rank {rank} logged nothing besides training between its last step line ({step}) and its failure "
    "({end}): no upload, network or other side work shows in its kept lines."
)
#: every node with its ranks
BY_NODE = "Ranks by node: {listed}."
NODE_RANKS = "{node}: rank(s) {ranks} ({roles})"
ROLE_STARTED = "rank {rank} started it"
ROLE_COLLATERAL = "{ranks} collateral"
ROLE_OTHER = "{ranks} {role}"
#: the environment settings the logs print
ENV_LOGGED = (
    "The logs print these environment settings: {listed}. Nothing else of the environment is logged: "
    "read the rest from the launch or job script, or `cat /proc/<pid>/environ | tr '\\0' '\\n'` of a "
    "running rank."
)
ENV_MASKED = " Secrets stay masked (`[MASKED:<rule>]`): rotate any the raw log holds."
#: the fix step that changes the code line the reader names
CODE_CHANGE = "The change at {where}: {step}"
#: the step line's values just before an event
VALUES_BEFORE = "Just before {event}, the last step line ({ref}, {at}) printed {values}: `{text}`."
VALUES_STEADY = " Over the {n} step lines before it, {steady}."
STEADY_SAME = "{name} stayed at {value}"
STEADY_RANGE = "{name} ranged {low}-{high}"
#: the OOM killer's reach: one process, or the whole job
KILL_ONE = "The OOM killer killed one process, not the whole job: {lead}"
KILL_ONLY_LINE = (
    " It is the only `Killed process` line in the kernel's log: the other ranks were not killed by the"
    " kernel."
)
KILL_MANY = " The kernel's log has {n} `Killed process` lines: it killed {n} processes, one at a time."
#: the training settings the logs print, asked as such
SETTINGS_LOGGED = "The settings the logs print: {listed}."
#: the code line to change, when the answer already says the change
CODE_AT = "The line to change: {where}."
