"""Texts of host RAM figures the logs do not show (knowledge/answer_hostram.py)."""

from __future__ import annotations

#: asked how much RAM was free or in use at the kill, when no kept line gives it
HOST_UNSEEN = (
    "No kept line shows how much host RAM the node had or was free, or each process's RSS, when it "
    "failed: the logs don't show those figures. To get them: the kernel's OOM report lists every "
    "process's rss just above the kill line (`dmesg -T | grep -B60 -i 'killed process'` on {node}); "
    "`free -g` on {node} shows its total and what a new job can get (`available`); Slurm's peak per "
    "task is `sacct -j <jobid> --format=JobID,MaxRSS,ReqMem,State` (MaxRSS times the ranks on one "
    "node must fit in `available`, and in `--mem`)."
)
#: asked the node's total RAM when the answer already gives the killed process's RSS
TOTAL_UNSEEN = (
    "The logs don't show the node's total RAM (no kept line gives it): `free -g` on {node} shows it "
    "(`total`), and the kernel's OOM report above the kill line (`dmesg -T | grep -B60 -i 'killed process'`) "
    "lists what each process held."
)
