"""Texts of host RAM figures the logs do not show (knowledge/answer_hostram.py)."""

from __future__ import annotations

#: asked how much RAM was free or in use at the kill, when no kept line gives it
HOST_UNSEEN = (
    "No kept line shows how much host RAM was free, or each process's RSS, when it was killed. To get "
    "them: the kernel's OOM report lists every process's rss just above the kill line (`dmesg -T | grep "
    "-B60 -i 'killed process'` on {node}); `free -g` on {node} shows what a new job can get (`available`); "
    "Slurm's peak per task is `sacct -j <jobid> --format=JobID,MaxRSS,ReqMem,State` (MaxRSS times the "
    "ranks on one node must fit in `available`, and in `--mem`)."
)
