"""The texts of a diagnosis thread: follow-up answers from this job's facts, the Details reply, history.

Plain sentences (the Slack renderer escapes them); `knowledge.answer_*` fills in the facts. Kept apart
from `denpex.core.texts.slack` (commands, quota, codes) so each stays one concern.
"""

from __future__ import annotations

from datetime import UTC, datetime

# ---------------------------------------------------------------- rank or node without saved lines
NO_TAIL = "I have no saved lines for rank {rank}. Ranks with saved lines: {ranks}."
NO_NODE = "I have no evidence from node `{node}`. Nodes I have evidence from: {nodes}."

# ---------------------------------------------------------------- follow-ups from this job's facts
# Plain sentences (the Slack renderer escapes them); `knowledge.answers` fills in the facts.
CATEGORY_WORDS = {
    "gpu_oom": "a CUDA out-of-memory error",
    "gpu_oom_checkpoint_gather": "a CUDA out-of-memory error gathering the full weights",
    "cpu_oom_checkpoint": "a host (CPU) out-of-memory error",
    "host_oom": "a host out-of-memory kill",
    "dataloader_worker_killed": "a killed DataLoader worker",
    "nccl_timeout": "a collective timeout (watchdog)",
    "nccl_comm_error": "a communication error in a collective",
    "rendezvous_failure": "a rendezvous failure",
    "gpu_hardware_xid": "a GPU hardware fault (Xid)",
    "cuda_illegal_access": "an illegal CUDA memory access",
    "device_side_assert": "a device-side assert",
    "nan_divergence": "a NaN/Inf loss",
    "ddp_unused_parameters": "a DDP unused-parameters error",
    "shape_or_user_code_error": "an error in the training code",
    "env_version_mismatch": "a library or driver version mismatch",
    "disk_full_or_io": "a disk-full or I/O error",
    "segfault": "a segmentation fault",
    "cudnn_or_cublas_error": "a cuDNN/cuBLAS error",
    "scheduler_kill": "a kill by the scheduler",
    "hang_no_error": "a hang without an error",
}


def category_words(category: str | None) -> str:
    return CATEGORY_WORDS.get(category or "", category or "an error")


def first_failure(where: str, what: str, when: str, doing: str) -> str:
    return f"{where} failed first{when}, with {what}{doing}."


def collateral_after(count: int, ranks: str, gap: str, rank: int | None, waited: bool) -> str:
    who = f"rank {rank}" if rank is not None else "it"
    tail = f" and waited on {who}" if waited else ""
    return f"The other {count} failing rank(s) ({ranks}) were collateral: they failed {gap}{tail}."


NO_SINGLE_RANK = "No single rank could be singled out from these logs."


def rank_initiating(rank: int, what: str, when: str, source: str) -> str:
    return f"Rank {rank} started it: {what}{when} (`{source}`)."


def collateral_end(what: str, category: str | None) -> str:
    """A collateral rank's end as a clause: its own line's words ("it timed out waiting for a peer in a
    gloo collective"), else its category's ("a collective timeout (watchdog)")."""
    return f"it {what}" if what else category_words(category)


def rank_collateral(rank: int, what: str, when: str, why: str) -> str:
    return f"Rank {rank} was collateral: {what}{when}; {why}."


def rank_healthy(rank: int, step: str) -> str:
    return f"Rank {rank} logged no error of its own{step}: nothing in its lines shows a failure of its own."


def rank_missing(rank: int) -> str:
    return (
        f"I have no lines from rank {rank}: none of the job's files is from it, so I can't say what it did."
    )


def no_such_rank(rank: int, world: int) -> str:
    return f"This job had ranks 0-{world - 1}; there is no rank {rank}."


def waited(op: str, seq: str, elapsed: str, timeout: str) -> str:
    return f"It waited in {op}{seq} for {elapsed}{timeout}."


def job_span(start: str, end: str, length: str) -> str:
    return f"The logs run from {start} to {end} ({length})."


def counts(failed: int, world: int | str, first: str, collateral: str) -> str:
    return f"{failed} of {world} ranks failed: {first}{collateral}."


def phase_of(where: str, doing: str, step: str, source: str) -> str:
    return f"{where} was {doing}{step} when it failed{source}."


def waiting_for(rank: int, op: str, culprit: int, gap: str, step: str) -> str:
    return f"Rank {rank} was waiting in {op} for rank {culprit}{gap}{step}."


def not_checkpoint(doing: str) -> str:
    return f"No, it was not saving a checkpoint: it was {doing}."


def oom_figures(rank: str, asked: str, free: str, gpu: str, total: str, short: str) -> str:
    return f"{rank} asked for {asked} with {free} free on {gpu}{total}: about {short} short."


def oom_reserved(torch: str, reserved: str, covers: bool) -> str:
    tail = (
        "that would cover the shortfall, so `expandable_segments:True` may be enough"
        if covers
        else "less than the shortfall, so fragmentation alone does not explain it: the step needs less memory"
    )
    return f"PyTorch held {torch}; {reserved} was reserved but unallocated — {tail}."


def oom_kill_figures(victim: str, pid: int, process: str, rss: str, node: str | None = None) -> str:
    on = f" on {node}" if node else ""
    return f"The kernel OOM killer{on} killed (SIGKILL, signal 9) {victim}pid {pid} ({process}){rss}."


def no_memory_figures(what: str) -> str:
    return f"This job's evidence has no memory figures: it failed with {what}, not a memory error."


def lines_of(what: str) -> str:
    return f"{what}:"


def hardware_yes(code: int, name: str, node: str, pci: str, rank: str) -> str:
    return f"Yes, likely hardware: Xid {code} ({name}){node}, GPU at PCI {pci}{rank}."


def hardware_xid_app(code: int, name: str) -> str:
    return f"Not by itself: Xid {code} ({name}) is application-level; the GPU stays healthy."


def hardware_no(what: str) -> str:
    return f"No sign of hardware: this job failed with {what}, and no GPU fault (Xid) is in its evidence."


def restart_verdict(safe: bool | None, reason: str) -> str:
    if safe is None:
        return f"Maybe: {reason}"
    return ("Yes, probably: " if safe else "Not as is: ") + reason


def fix_for_job(facts: str) -> str:
    return f"For this job: {facts}"


def verify_then(rank: int, step: int) -> str:
    return f"Then check that rank {rank} gets past step {step}, where it failed."


def runner_up(title: str, conf: float, best: float, why: str) -> str:
    return f"The runner-up is *{title}* ({conf:.2f} against {best:.2f}): {why}."


def nothing_close(title: str, conf: float, best: float, why: str) -> str:
    return (
        f"Nothing else scored close: the runner-up, *{title}*, scored {conf:.2f} against {best:.2f} — {why}."
    )


NOTHING_ELSE = "Nothing else scored: no other failure mode matched this job's evidence."


def term(name: str, text: str) -> str:
    return f"`{name}`: {text}"


def term_in_fix(name: str) -> str:
    return f"This job's fix uses `{name}`."


def _ranks(ranks: str) -> str:
    return f"Rank {ranks}" if ranks.isdigit() else f"Ranks {ranks}"


def activity_group(ranks: str, op: str, seq: str, group: str, state: str) -> str:
    return f"{_ranks(ranks)}: {op}{seq} in {group}{state}."


def activity_from_logs(ranks: str, what: str) -> str:
    return f"{_ranks(ranks)}: {what}."


NO_DUMPS = "No Flight Recorder dumps came with this job; from the logs, each rank's first failure line:"
HISTORY_UNKNOWN = "I can't tell: the incident history could not be read."


def history_none(title: str) -> str:
    return f"No: the incident history has no earlier *{title}* in this workspace."


def history_seen(title: str, n: int) -> str:
    return (
        f"Yes: {n} earlier *{title}* in the incident history, most relevant first "
        "(same node, then same job name):"
    )


def history_item(job: str, at: float, node: str | None, permalink: str | None, fix: str | None) -> str:
    when = datetime.fromtimestamp(at, UTC).strftime("%d %b %H:%M UTC")
    where = f" on `{node}`" if node else ""
    link = f" {permalink}" if permalink else ""  # escaped with the rest: a bare link Slack unfurls not
    fixed = f" — fixed by: {fix}" if fix else ""
    return f"job `{job}`{where}, {when}{link}{fixed}"


def can_answer(examples: list[str]) -> str:
    shown = ", ".join(f"_{e}_" for e in examples)
    return f"I can answer from this job's facts — ranks, times, figures, lines, fix. Try: {shown}"


# ---------------------------------------------------------------- the thread's Details button
DETAILS_BUTTON = "Details"
DETAILS_HEADER = "Details"
DETAILS_POSTED = "Details are posted below in this thread."


def more_in_details(count: int) -> str:
    return f"_…and {count} more under Details_"


def details_text(job_id: str, cluster: str) -> str:
    return f"Details of the diagnosis of job {job_id} on {cluster}"


def host_alloc_figures(rank: str, doing: str, asked: str) -> str:
    return f"{rank} ran out of host memory{doing}: the CPU allocator could not give it {asked} more."


def likely_start(where: str, when: str, why: str) -> str:
    return f"{where} is the likely start{when}: {why}."


ROLE_WORDS = {
    "initiating": "the rank that failed first",
    "collateral": "collateral (it failed because another rank did)",
    "healthy": "not failing (no error line of its own)",
    "missing": "missing from the logs",
}


def rank_place(rank: int, node: str | None, gpu: str | None, role: str) -> str:
    on = f" on {node}" if node else " on a node the logs don't name"
    device = f" ({gpu})" if gpu else ""
    return f"Rank {rank} ran{on}{device}; it was {ROLE_WORDS.get(role, role)}."


def rank_first_failed(rank: int, when: str, after: str) -> str:
    return f"Rank {rank} first failed{when}{after}."


def first_then_collateral(
    rank: int, when: str, later: str, first_collateral: str, count: int, ranks: str
) -> str:
    return (
        f"Rank {rank} failed first{when}. The first collateral failure came {later}{first_collateral}; "
        f"{count} rank(s) ({ranks}) failed in all."
    )


def first_only(rank: int, when: str) -> str:
    return f"Rank {rank} failed first{when}."


def no_error_from(ranks: str) -> str:
    return f"No error line from rank(s) {ranks}."


def no_log_from(ranks: str) -> str:
    return f"No log at all from rank(s) {ranks}."


def ran_on(nodes: list[str]) -> str:
    return f"The job ran on {len(nodes)} node(s): {', '.join(nodes)}."


def last_step_only(rank: int, step: int) -> str:
    return f"Rank {rank}'s last logged step was {step}; no line says which phase it was in."


def host_oom_line(rank: str, doing: str) -> str:
    return f"{rank} ran out of host memory{doing}; the line below is the evidence."


def on_node(node: str, ranks: str, failed: list[str], has_lines: bool) -> str:
    text = f"On {node}" + (f" (ranks {ranks})" if ranks else "") + ": "
    text += "; ".join(failed) + "." if failed else "no rank failed there."
    return text + ("" if has_lines else " No kernel or scheduler lines were recorded from it.")


def exit_with(parts: list[str]) -> str:
    return " It ended with " + " / ".join(parts) + "."


def waited_until(op: str, limit: str) -> str:
    return f"It waited in {op} until {limit}."


def drain_first(node: str | None, recurrence: str) -> str:
    return f"drain {node or 'the node'} first; {recurrence}"


def killed_pid(pid: int) -> str:
    return f"The kernel killed its process, pid {pid}."


def restart_cause(rank: int, what: str) -> str:
    return f"rank {rank} failed with {what};"


def change_first(step: str) -> str:
    return f"Change first: {step}"


def fails_again(rank: int, step: int) -> str:
    return f" with the same config, rank {rank} will fail again around step {step}."


def was_short(short: str) -> str:
    return f" It was {short} short."


def oom_fix_facts(rank: str, short: str, gpu: str, reserved: str | None, covers: bool) -> str:
    text = f"rank {rank} needs about {short} more on {gpu}"
    if reserved is not None:
        text += (
            f"; its {reserved} reserved-but-unallocated would cover that, so start with expandable segments"
            if covers
            else f"; fragmentation would not cover that (only {reserved} reserved-but-unallocated), so cut "
            "memory per step (micro-batch, checkpointing)"
        )
    return text + "."


def failure_on(what: str, rank: int, node: str | None) -> str:
    return f"{what} on rank {rank}" + (f" ({node})" if node else "") + "."


FIX_ONLY = "Fix:"
VERIFY_LEAD = "Run this after the fix:"


def this_job(title: str, confidence: float) -> str:
    return f" This job: {title} ({confidence:.2f})."


def from_dumps(count: int, rows: list[str], suspects: list[str]) -> str:
    text = f"From {count} Flight Recorder dump(s): " + " ".join(rows)
    return text + (" So: " + "; ".join(suspects) + "." if suspects else "")


def kill_fix_facts(rank: str, pid: int, rss: str) -> str:
    return (
        f"the OOM killer killed rank {rank}'s process (pid {pid}){rss}; "
        "find what holds that much host memory."
    )


def untimed_start(rank: int | None, first_collateral: str, ranks: str) -> str:
    who = f"Rank {rank}'s" if rank is not None else "The first failure's"
    return (
        f"{who} own failure has no time in the logs (it was named from the others' behaviour); "
        f"the other ranks ({ranks}) first failed{first_collateral}."
    )


def failed_when(time: str, borrowed: bool) -> str:
    """When a rank failed: `at` its line's own time, or `at or after` an earlier line's when its line
    has none (a combined stream, where the nearest earlier time is another rank's)."""
    return f" at or after {time} (its line has no time of its own)" if borrowed else f" at {time}"
