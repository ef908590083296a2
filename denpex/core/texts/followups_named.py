"""Texts of the answers that quote the line a message names (`knowledge.answer_named_line`,
`knowledge.answer_named_more`)."""

from __future__ import annotations


def quoted(what: str, text: str, ref: str, when: str) -> str:
    """ "The warning (rank5.log:207, 2026-11-20 03:14:01 UTC): `…`."."""
    place = f"{ref}, {when}" if when else f"{ref}, no time of its own"
    return f"{what} ({place}): `{text}`."


def shared(what: str, ranks: str, text: str, ref: str, when: str) -> str:
    """One line for several ranks that logged the same."""
    place = f"{ref}, {when}" if when else ref
    return f"{what}, the same on ranks {ranks}; one of them ({place}): `{text}`."


def folder(path: str, ref: str, when: str) -> str:
    place = f"{ref}, {when}" if when else ref
    return f"It was writing the checkpoint to `{path}` ({place})."


def frame(rank: int, path: str, line: str, func: str, ref: str) -> str:
    return f"That call is in `{path}` line {line}, in `{func}`, per the traceback rank {rank} logged ({ref})."


def pid(rank: int, value: str, ref: str) -> str:
    return f"Rank {rank}'s pid in the launcher's report: {value} ({ref})."


def time_from(when: str, ref: str, who: str, text: str, own: bool) -> str:
    """Where the initiating time is read from."""
    if own:
        return f"The initiating time {when} is read from {who}'s own line {ref}: `{text}`."
    return (
        f"The initiating time {when} is borrowed: the failing line has no time of its own, so the"
        f' nearest earlier timed line is used, {ref} ({who}): `{text}` — read it as "at or after".'
    )


def node_rank(rank: int, node: str, gpu: str | None) -> str:
    on_gpu = f", GPU {gpu}" if gpu else ""
    return f"Rank {rank} was on node {node}{on_gpu}."


def confidence(value: float) -> str:
    return f"The verdict's confidence is {value:.2f}."


def step_value(rank: int, step: str, value: str, ref: str) -> str:
    return f"Rank {rank} at {step}: {value} ({ref})."


def gap(step_text: str, ref: str, when: str, seconds: int, end: str) -> str:
    return (
        f"The last step line is {ref} at {when}: `{step_text}`; the kill came {seconds} s later, at {end}."
        " In that stretch slow and hung look alike in the logs (no step line either way): a stack dump"
        " (py-spy dump) or GPU use taken then would tell them apart."
    )


def signal_early(flag: str, sig: str, lead: str, saved: bool) -> str:
    said = (
        "This job's kept lines show a checkpoint save, so the last one is what you would resume from."
        if saved
        else "This job's kept lines show no checkpoint save at all, so there is none to resume from now."
    )
    return (
        f"`{flag}` has Slurm send SIG{sig} to the job {lead} before the time limit. That gives you a"
        f" checkpoint only if the training script catches SIG{sig} and saves then (or the trainer's"
        f" own handler does); otherwise the signal is ignored or kills it early. {said}"
    )


def error_line(rank: int, text: str, ref: str) -> str:
    return f"Rank {rank}'s error line ({ref}): `{text}`."


def ended(ranks: str, text: str, ref: str, when: str) -> str:
    """The line each rank's end is read from, ranks that share it named together."""
    place = f"{ref}, {when}" if when else ref
    return f"Rank(s) {ranks} ended on ({place}): `{text}`."


def pace(seconds: int) -> str:
    return f"Before it, a step line came about every {seconds} s."
