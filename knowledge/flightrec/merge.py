"""Flight Recorder dumps as evidence beside the logs: the one step the engine calls.

`split_sources` takes the dumps out of the sources before the log scan (they are binary collective
traces, not log lines); `merge` reads them one at a time into compact traces, analyses them, and
folds the result into the engine's `Diagnosis`:

- always: `suspect_ranks`, `collectives`, and a `missing_evidence` item per unusable dump;
- when no log shows a first-hand primary failure (the logs only hold the collateral timeouts of the
  ranks that waited), the first suspect — a rank that never arrived outranks those who timed out
  waiting for it — becomes `initiating.rank`, with the dump as its evidence;
- when the logs do show one, the logs decide and the dump only adds `suspect_ranks`;
- when the logs name no failure mode at all (no log given, or none matched: the generic fallback),
  the dump's finding picks the knowledge entry, so a folder of dumps alone is diagnosed as the
  collective timeout it is (`ENTRY_BY_REASON`), not as "no log content".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from denpex.core.models import Diagnosis, EntryRef, EvidenceLine, Initiating, LogSource, MissingEvidence
from denpex.core.texts import flightrec as texts
from knowledge import wording
from knowledge.flightrec.analysis import Result, analyse
from knowledge.flightrec.reader import DumpError, read_source, sniff_source
from knowledge.flightrec.trace import RankTrace
from knowledge.schema import Entry

_SNIFFED_KINDS = (None, "rank", "combined")
#: the entry a diagnosis without a log verdict answers with, by the first suspect's reason: ranks that
#: called other collectives (or p2p that never matched) are a desync; a rank that never arrived or
#: never finished is the watchdog timeout every other rank then reports
ENTRY_BY_REASON = {
    "desync_op": "nccl-desync-report",
    "desync_size": "nccl-desync-report",
    "p2p_unmatched": "nccl-desync-report",
    "missing": "nccl-watchdog-timeout",
    "not_completed": "nccl-watchdog-timeout",
}
#: confidence of a dump-decided entry: every dump read and consistent, or some missing or unreadable
CONFIDENCE_FULL, CONFIDENCE_PARTIAL = 0.8, 0.6
FALLBACK_TAG = "fallback"


def split_sources(sources: Sequence[LogSource]) -> tuple[list[LogSource], list[LogSource]]:
    """(logs, dumps): dumps by kind, or by content for sources whose kind came from a name only."""
    logs: list[LogSource] = []
    dumps: list[LogSource] = []
    for s in sources:
        if s.kind == "flight_recorder" or (s.kind in _SNIFFED_KINDS and s.chunks is None and sniff_source(s)):
            dumps.append(s)
        else:
            logs.append(s)
    return logs, dumps


def read_all(dumps: Iterable[LogSource]) -> tuple[list[RankTrace], list[MissingEvidence]]:
    """Each dump to a trace, one at a time (bounded memory); bad dumps become missing evidence."""
    traces: dict[int, RankTrace] = {}
    missing: list[MissingEvidence] = []
    for src in dumps:
        try:
            t = read_source(src)
        except DumpError as exc:
            missing.append(_me(texts.unreadable(exc.name, exc.reason)))
            continue
        checked = _check_rank(t, missing)
        if checked is None:
            continue
        t = checked
        old = traces.get(t.rank)  # type: ignore[arg-type]
        if old is None or t.entries > old.entries:  # a pickle and a JSON copy of one rank: the fuller
            traces[t.rank] = t  # type: ignore[index]
    return list(traces.values()), missing


def _me(pair: tuple[str, str]) -> MissingEvidence:
    return MissingEvidence(what=pair[0], next_action=pair[1])


def dump_ranks(t: RankTrace) -> set[int]:
    """The ranks the dump itself allows: in every configured group it used, and p2p names in the world."""
    cands: set[int] | None = None
    for name in t.groups:
        if name in t.config:
            members = set(t.config[name][1])
            cands = members if cands is None else cands & members
    default = t.groups.get("0")
    if default is not None and ("0" not in t.config):
        own = {s if k == "send" else d for k, s, d in default.p2p_counts}
        if own:
            cands = own if cands is None else cands & own
    return cands or set()


def _check_rank(t: RankTrace, missing: list[MissingEvidence]) -> RankTrace | None:
    cands = dump_ranks(t)
    if t.rank is None:
        if len(cands) == 1:
            t.rank = next(iter(cands))
            return t
        missing.append(_me(texts.no_rank(t.name)))
        return None
    if cands and t.rank not in cands:
        missing.append(_me(texts.rank_mismatch(t.name, t.rank, cands)))
        if len(cands) == 1:
            t.rank = next(iter(cands))
    return t


def analyse_sources(dumps: Sequence[LogSource]) -> tuple[Result, list[MissingEvidence]]:
    traces, missing = read_all(dumps)
    result = analyse(traces)
    del traces
    if result.missing_dumps:
        missing.append(_me(texts.missing_dumps(result.missing_dumps)))
    return result, missing


def merge(
    diag: Diagnosis,
    dumps: Sequence[LogSource],
    *,
    logs_decide: bool,
    entries: Mapping[str, Entry] | None = None,
) -> Diagnosis:
    """`diag` with what the dumps say (see the module docstring); unchanged when there are none.

    `entries` (the engine's, by id) lets the dump pick the entry when the logs named none."""
    if not dumps:
        return diag
    result, missing = analyse_sources(dumps)
    known = {m.what for m in diag.missing_evidence}
    update: dict[str, object] = {
        "suspect_ranks": result.suspect_ranks,
        "collectives": result.collectives,
        "missing_evidence": diag.missing_evidence + [m for m in missing if m.what not in known],
    }
    top = result.initiating
    if top is not None and not logs_decide:
        s = top.suspect
        ev = EvidenceLine(
            source=s.source or "",
            line=(top.index + 1) if top.index is not None else 0,
            text=texts.evidence_line(s.rank, s.why),
            record=True,
        )
        update["initiating"] = Initiating(rank=s.rank, node=_node(diag, s.rank), time=None, evidence=[ev])
        update["collateral"] = [
            g.model_copy(update={"ranks": [r for r in g.ranks if r != s.rank]})
            for g in diag.collateral
            if [r for r in g.ranks if r != s.rank]
        ]
        stalled = wording.missing_stalled_rank()[0]
        update["missing_evidence"] = [m for m in update["missing_evidence"] if m.what != stalled]  # type: ignore[attr-defined]
        entry = (entries or {}).get(ENTRY_BY_REASON.get(s.reason, ""))
        if entry is not None and _undecided(diag, entries or {}):
            update.update(_from_entry(entry, full=not missing))
            empty = wording.missing_content()[0]  # the "empty" files were the dumps
            kept = [m for m in update["missing_evidence"] if m.what != empty]  # type: ignore[attr-defined]
            what, action = wording.missing_logs()
            update["missing_evidence"] = kept + (
                [] if any(m.what == what for m in kept) else [_me((what, action))]
            )
    return diag.model_copy(update=update)


def _undecided(diag: Diagnosis, entries: Mapping[str, Entry]) -> bool:
    """The logs named no failure mode: no entry, or the generic fallback one."""
    if diag.entry is None:
        return True
    chosen = entries.get(diag.entry.id)
    return chosen is not None and FALLBACK_TAG in chosen.tags


def _from_entry(entry: Entry, *, full: bool) -> dict[str, object]:
    return {
        "category": entry.category,
        "entry": EntryRef(id=entry.id, title=entry.title),
        "confidence": CONFIDENCE_FULL if full else CONFIDENCE_PARTIAL,
        "root_cause": entry.root_cause,
        "fix": "\n".join(f"{i}. {step}" for i, step in enumerate(entry.fix.steps, 1)),
        "fix_snippet": entry.fix.snippet.strip(),
        "verify": entry.verify,
        "alternatives": [],
    }


def _node(diag: Diagnosis, rank: int) -> str | None:
    if diag.initiating.rank == rank and diag.initiating.node:
        return diag.initiating.node
    return next((t.node for t in diag.tails if t.rank == rank and t.node), None)
