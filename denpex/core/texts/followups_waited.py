"""Texts of the answer about how long the other ranks sat waiting (`knowledge.answer_waited`)."""

from __future__ import annotations


def window(who: str, start: str, ranks: str, end: str, span: str, why: str) -> str:
    """ "From rank 5's failure at 03:14:02 UTC, ranks 0-4,6,7 sat waiting until 03:24:02 UTC: 600 s."."""
    return (
        f"How long they waited: from {who}'s failure at {start}, ranks {ranks} sat blocked until {end},"
        f" when they failed: {span}{why}."
    )


def ran_for(ranks: str, end: str, ran: str, since: str, why: str) -> str:
    """No time for the rank that started it: the wait is the collective's own run time before the end."""
    return (
        f"How long they waited: ranks {ranks} failed at {end}; the collective they were blocked in had"
        f" run for {ran} (since about {since}){why}."
    )


def stopped_later(who: str, ranks: str, end: str, since: str, after: str, span: str, why: str) -> str:
    """The rank that started it printed nothing until after the others failed (it was stopped, not failing):
    the wait is the timeout before their failure, never a window from its later line."""
    wait = f", blocked since about {since}" if since else ""
    return (
        f"How long they waited: ranks {ranks} failed at {end}{wait}{why}. {who} printed nothing before"
        f" that: its first line is at {after}, {span} after they failed, when it was stopped."
    )


def timeout(limit_ms: int, ran_ms: int | None) -> str:
    """ ", the watchdog's timeout (Timeout(ms)=600000, 600 s) running out after 600031 ms"."""
    ran = f", after the collective ran {ran_ms} ms" if ran_ms is not None else ""
    return f" — the watchdog's timeout running out (Timeout(ms)={limit_ms}, {limit_ms // 1000} s){ran}"


def gloo_timeout(limit_ms: int) -> str:
    """ ", gloo's own timeout running out (Timed out waiting 10000ms, 10 s)"."""
    return f", gloo's own timeout running out (Timed out waiting {limit_ms}ms, {limit_ms / 1000:g} s)"
