"""Texts for the scheduler's own end lines of a job it ended (knowledge/answer_sched_end.py): where
Slurm's `CANCELLED AT … DUE TO …` lines are and what each says, word for word."""

from __future__ import annotations

#: "Slurm's own lines (slurm-991.log): line 2 `…`; line 3 `…`."
SCHED_LINES = "Slurm's own end line(s), in {file}: {quoted}."
SCHED_LINE = "line {line} `{text}`"
SCHED_JOIN = "; "

# knowledge/answer_ckpt_file.py
#: "The last save line names the checkpoint file `/…/checkpoint-6.pt` (stdout.log:10, …)."
CKPT_FILE = "The last save line names the checkpoint file `{path}` ({ref}{time})."

# knowledge/answer_first_named.py
#: the first failing rank, told before the answer about the rank the message named as context
FIRST_NAMED = "Rank {rank} failed first; rank {named} is not the one that started it."

# knowledge/answer_rank_file.py
#: "Rank 1's own log has the same line: torchrun-logs/…/1/stderr.log:68 `…` (console.log:84 shows it too)."
RANK_FILE = "Rank {rank}'s own log has that line: {ref} `{text}` ({other} shows it too)."

# knowledge/answer_file_lines.py
#: "slurm-991.log line 1 (slurm-991.log:1) says: `srun: Job step aborted: …`."
FILE_LINE = "{name} line {line} ({ref}) says: `{text}`."
