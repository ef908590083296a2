"""A pasted command must act on this job's node: no entry's fix snippet or verify command names an
example host (a drain of `gpu-17` at 3 a.m. would drain the wrong node)."""

from __future__ import annotations

import re

from knowledge.jobfacts import JobFacts
from knowledge.jobfill import fill
from knowledge.schema import load_entries

#: hostnames as the examples in the entries spell them
EXAMPLE_HOST = re.compile(r"\b(?:gpu|node|host|worker)-?[0-9]{1,4}\b")


def test_commands_name_no_example_host() -> None:
    found = []
    for e in load_entries():
        for what, text in (("snippet", e.fix.snippet), ("verify", e.verify)):
            if EXAMPLE_HOST.search(text):
                found.append(f"{e.id} {what}: {EXAMPLE_HOST.search(text).group(0)}")  # type: ignore[union-attr]
    assert found == []


def test_a_node_placeholder_takes_the_jobs_node() -> None:
    xid = next(e for e in load_entries() if e.id == "xid-79-fallen-off-bus")
    filled = fill(xid.fix.snippet, JobFacts(node="gpu-02"))
    assert "nodename=gpu-02 state=drain" in filled
    assert "{node" not in fill(xid.fix.snippet, JobFacts())
