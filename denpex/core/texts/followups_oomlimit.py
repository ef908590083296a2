"""Texts of `knowledge.answer_oom_limit`: the memory limit a host OOM kill was up against."""

from __future__ import annotations

OOM_LIMIT_CGROUP = (
    "The limit it hit was a memory cgroup (the job's `--mem` or container limit), named by the kernel "
    "line ({ref}); `sacct -j <jobid> --format=JobID,MaxRSS,ReqMem,State` gives the request (ReqMem) and "
    "the peak (MaxRSS)."
)
OOM_LIMIT_UNSAID = (
    "The node's total RAM and the job's `--mem` are not in the logs, so the limit it was up against is not"
    " printed either: it is either the node's RAM (`free -g` on the node) or the job's memory request"
    " (`--mem`); `sacct -j <jobid> --format=JobID,MaxRSS,ReqMem,"
    "State` gives the request (ReqMem) and the peak (MaxRSS), and `dmesg -T | grep -i oom` on the node "
    "says which was hit. Infra needs to look only if MaxRSS stayed well below both."
)
