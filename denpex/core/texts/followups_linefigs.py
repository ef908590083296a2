"""Texts of the answers that read a figure or a twin off the job's own lines
(`knowledge.answer_line_figures`) and quote the diagnosis's own fix commands (`knowledge.answer_fix_cmds`)."""

from __future__ import annotations


def figures(phrase: str, ref: str, numbers: list[str]) -> str:
    """ "The line reads `unexpected pos 1088 vs 982` (console.log:37): the figures are 1088 and 982."."""
    listed = " and ".join(numbers) if len(numbers) < 3 else ", ".join(numbers[:-1]) + f" and {numbers[-1]}"
    noun = "figure is" if len(numbers) == 1 else "figures are"
    return f"The line reads `{phrase}` ({ref}): the {noun} {listed}."


def same_line(ref: str, text: str, twins: list[str]) -> str:
    """What a named line says, and the other files that carry the same line."""
    where = ", ".join(twins)
    return f"{ref} reads `{text}`; the same line is in {where}."


def collateral_time(ranks: str, time: str, what: str, borrowed: bool, source: str) -> str:
    """The time the diagnosis gives a collateral group, as precise as it was read."""
    own = (
        " (borrowed from an earlier line: their failing line has no time of its own, so read it as"
        ' "at or after")'
        if borrowed
        else ""
    )
    kind = f" ({what})" if what else ""
    return f"The first time given for the collateral rank(s) {ranks}{kind} is {time}{own}{source}."


def time_source(ref: str, text: str) -> str:
    return f"; that stamp is on {ref}: `{text}`"


def fix_commands(cmds: list[str]) -> str:
    """The diagnosis's fix commands, as it printed them."""
    return "The diagnosis's fix suggests: " + "; ".join(f"`{c}`" for c in cmds) + "."
