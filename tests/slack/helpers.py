"""Shared builders for the Slack tests: a realistic diagnosis with hostile log text, signed requests."""

from __future__ import annotations

import re

from bot.slack.answers import Answer
from denpex.core.models import (
    Alternative,
    CollateralGroup,
    Diagnosis,
    EntryRef,
    EvidenceLine,
    Initiating,
    JobRef,
    MissingEvidence,
    RankTail,
    Scheduler,
    Stats,
)
from knowledge.schema import ENTRIES_DIR, Entry, load_entry


def entries() -> dict[str, Entry]:
    """The entries these tests rely on, loaded one by one (independent of the rest of the base)."""
    names = ("zero3-checkpoint-gather-oom", "cuda-oom-training-step")
    return {n: load_entry(ENTRIES_DIR / f"{n}.toml") for n in names}


SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
HOSTILE = [
    "<!channel> wake up, rank 0 is dead",
    "ping <@U123> and <!here> and <!subteam^S1>",
    "see <https://evil.example|click here> & more",
    "```closing the fence early",
]


def job(job_id: str = "4242", cluster: str = "ci") -> JobRef:
    return JobRef(
        scheduler=Scheduler.files,
        cluster=cluster,
        job_id=job_id,
        state="FAILED",
        exit_code="1:0",
        user="alice",
        name="llama-ft",
        nodes=[f"gpu-0{i}" for i in range(1, 9)],
    )


def diagnosis(ranks: int = 64) -> Diagnosis:
    ev = [EvidenceLine(source="rank0.log", line=1830 + i, text=t) for i, t in enumerate(HOSTILE)]
    ev.append(EvidenceLine(source="rank0.log", line=1840, text="torch.OutOfMemoryError: CUDA out of memory."))
    tails = [
        RankTail(
            rank=r,
            source=f"rank{r}.log",
            node=f"gpu-0{r % 8 + 1}",
            lines=[
                EvidenceLine(source=f"rank{r}.log", line=100 + i, text=f"rank {r} line {i}")
                for i in range(20)
            ],
        )
        for r in (0, 3, 12)
    ]
    return Diagnosis(
        category="gpu_oom_checkpoint_gather",
        entry=EntryRef(id="zero3-checkpoint-gather-oom", title="Rank 0 OOM During ZeRO-3 Checkpoint Save"),
        confidence=0.93,
        initiating=Initiating(rank=0, node="gpu-01", time="2026-11-20T03:14:02.123Z", evidence=ev),
        collateral=[
            CollateralGroup(
                ranks=[r for r in range(1, ranks) if r != 5], category="nccl_timeout", why="waited on rank 0"
            ),
            CollateralGroup(ranks=[5], category="segfault", why="<!channel> torn down"),
        ],
        root_cause="stage3_gather_16bit_weights_on_model_save gathers the full model on rank 0.",
        fix="Set stage3_gather_16bit_weights_on_model_save to false and consolidate offline.",
        verify="grep -n stage3_gather ds_config.json",
        missing_evidence=[
            MissingEvidence(what="kernel log of gpu-07", next_action="run `dmesg -T` on gpu-07")
        ],
        alternatives=[Alternative(id="cuda-oom-training-step", title="CUDA OOM in a training step")],
        tails=tails,
        nodes={"gpu-07": [EvidenceLine(source="node-gpu-07.dmesg", line=3, text="NVRM: Xid 79 <@U999>")]},
        stats=Stats(files=64, ranks=ranks, bytes=123456, seconds=0.12),
    )


def states_facts(
    answer: Answer, intent: str | None, must: list[str], never: list[str], *, answered: bool = False
) -> None:
    """The follow-up answer's contract: the intent asked for (None: any; `answered`: any but the help
    reply), every fact in `must` stated and no claim in `never` made, case-insensitively. A fact may
    name alternatives as the held-out set does (`rank 2|rank2`); a `|` with spaces around it is a
    shell pipe inside one fact (`ss -ltnp | grep ":54661"`)."""
    if intent is not None:
        assert answer.intent == intent, answer.text
    if answered:
        assert answer.intent != "help", answer.text
    text = answer.text.lower()
    for fact in must:
        alternatives = [a.lower() for a in re.split(r"(?<! )\|(?! )", fact)]
        assert any(a in text for a in alternatives), f"missing {fact!r} in:\n{answer.text}"
    for claim in never:
        assert claim.lower() not in text, f"false {claim!r} in:\n{answer.text}"
