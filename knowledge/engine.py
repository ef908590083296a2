"""The diagnosis engine: compile the knowledge once, then diagnose many jobs.

    engine = Engine.load()                       # entries + Xid catalogue + masking rules, compiled once
    diag = engine.diagnose(sources, missing=..., progress=...)

The engine never names a failure: every failure mode is a TOML entry; this module only wires the
scan (`scanner`), the interpretation of hits (`signals`), attribution (`attribution`) and the
report (`report`). Not thread-safe (one reused scan buffer); use one Engine per thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from denpex.core.models import Diagnosis, LogSource, MissingEvidence, Stats
from knowledge import attribution, flightrec, report
from knowledge.facts import load_catalogue
from knowledge.patterns import FACT_PATTERNS, SINGLE_FACTS, Pattern, PatternSet
from knowledge.phases import Marker, PhaseReader, TailMarkers, load_markers
from knowledge.scanner import Scanner, SourceScan
from knowledge.schema import ENTRIES_DIR, Entry, Xid, load_entries
from knowledge.signals import build_job
from knowledge.sources import complete


class MaskRule(Protocol):
    id: str
    pattern: str
    caseless: bool


class MaskerLike(Protocol):
    """What the engine needs of `knowledge.masking.Masker`."""

    @property
    def rules(self) -> Sequence[MaskRule]: ...

    def mask(self, text: str) -> str: ...

    def mask_line(self, text: str, rule_ids: Iterable[str]) -> str: ...


def default_masker() -> MaskerLike | None:
    """The project's masker; None only while `knowledge/masking.py` has not landed yet."""
    try:
        from knowledge.masking import Masker
    except ModuleNotFoundError as exc:  # pragma: no cover - transitional
        if exc.name != "knowledge.masking":
            raise
        return None
    return Masker.default()


def compile_patterns(
    entries: Sequence[Entry], masker: MaskerLike | None, markers: Sequence[Marker] = ()
) -> list[Pattern]:
    """Every signature, context pattern, phase marker and engine fact as one list of patterns."""
    out: list[Pattern] = []

    def add(
        regex: str, caseless: bool, kind: str, sig_id: str, entry: str | None, w: float, win: int
    ) -> None:
        out.append(Pattern(len(out), regex, caseless, kind, sig_id, entry, w, win))  # type: ignore[arg-type]

    for e in entries:
        for s in e.signatures:
            add(s.pattern, s.caseless, s.role.value, s.id, e.id, s.weight, 0)
        for c in e.context:
            add(c.pattern, c.caseless, "context", c.id, e.id, c.weight, c.window)
    for rule in masker.rules if masker is not None else ():
        add(rule.pattern, rule.caseless, "mask", rule.id, None, 1.0, 0)
    for m in markers:
        add(m.pattern, m.caseless, "phase", m.id, None, 1.0, 0)
    for fid, (regex, caseless) in FACT_PATTERNS.items():
        add(regex, caseless, "fact", fid, None, 1.0, 0)
        if fid in SINGLE_FACTS:
            out[-1] = replace(out[-1], single=True)
    return out


class Engine:
    """Compiled knowledge. Build it once with `Engine.load()` and reuse it for every job."""

    def __init__(
        self,
        entries: Sequence[Entry],
        xids: dict[int, Xid],
        masker: MaskerLike | None,
        cache_dir: Path | None = None,
        markers: Sequence[Marker] | None = None,
    ) -> None:
        self.entries = {e.id: e for e in entries}
        self.markers = list(load_markers() if markers is None else markers)
        self.tail_markers = TailMarkers(self.markers)
        self.xids = xids
        self.masker = masker
        # the masking rules are not part of the scan: only retained text (hits, context, tails, a few
        # kilobytes) ever leaves the engine and the Redactor runs the full masker over all of it, so
        # scanning every byte for secrets as well cost ~10% of the throughput and changed no output
        self.patterns = compile_patterns(entries, None, self.markers)
        marker_index = {m.id: i for i, m in enumerate(self.markers)}
        self.phase_marker = {p.idx: marker_index[p.sig_id] for p in self.patterns if p.kind == "phase"}
        self.pattern_set = PatternSet(self.patterns, cache_dir)
        self.scanner = Scanner(self.pattern_set)
        self.fallback_entry = _fallback_entry(entries)
        rule_ids = {p.idx: p.sig_id for p in self.patterns if p.kind == "mask"}
        if masker is not None:
            self.redactor = report.Redactor(masker.mask, masker.mask_line, rule_ids)
        else:
            self.redactor = report.Redactor(lambda t: t, lambda t, _ids: t, rule_ids)

    @classmethod
    def load(
        cls,
        entries_dir: Path | None = None,
        *,
        xid_path: Path | None = None,
        masker: MaskerLike | None = None,
        cache_dir: Path | None = None,
    ) -> Engine:
        """Load and validate every entry (an `EntryError` names a bad file and field), then compile.

        `cache_dir` (optional) keeps the compiled pattern database between processes, keyed by the
        exact patterns, so a short-lived CLI run does not pay the compile every time.
        """
        entries = load_entries(entries_dir or ENTRIES_DIR)
        masker = masker if masker is not None else default_masker()
        return cls(entries, load_catalogue(xid_path), masker, cache_dir)

    def diagnose(
        self,
        sources: Sequence[LogSource],
        *,
        missing: Sequence[MissingEvidence] = (),
        progress: Callable[[int], None] | None = None,
    ) -> Diagnosis:
        """Scan every source once, attribute, classify; always returns a Diagnosis for readable input."""
        t0 = time.perf_counter()
        sources, dumps = flightrec.split_sources(sources)  # collective traces: not log lines
        done = 0
        scans = []
        for src in sources:
            src = complete(src)
            base = done

            def tick(n: int, base: int = base) -> None:
                if progress is not None:
                    progress(base + n)

            scan = self.scanner.scan(src, 2000, tick)
            done += scan.bytes
            scans.append(scan)
        job = build_job(scans, self.patterns, self.entries, self.xids)
        job.phases = self._phase_reader(scans)
        verdict = attribution.attribute(job, self.fallback_entry)
        ranks = set(job.ranks) | {s.source.rank for s in scans if s.source.rank is not None}
        stats = Stats(
            files=len(scans), ranks=len(ranks), bytes=done, seconds=round(time.perf_counter() - t0, 4)
        )
        diag = report.diagnosis(job, verdict, self.redactor, missing, stats)
        first_hand = verdict.rank is not None and not verdict.collateral_only
        return flightrec.merge(diag, dumps, logs_decide=first_hand)

    def _phase_reader(self, scans: Sequence[SourceScan]) -> PhaseReader:
        for scan in scans:
            for mark in scan.phases:
                mark.marker = self.phase_marker.get(mark.marker, mark.marker)
        return PhaseReader.build(
            self.markers, self.tail_markers, [(sc.phases, sc.numbered_tail) for sc in scans]
        )


#: the entry tag that marks the answer for a log in which no signature matched
FALLBACK_TAG = "fallback"


def _fallback_entry(entries: Sequence[Entry]) -> Entry | None:
    """The entry that explains a log with no known signature: the one tagged `fallback`.

    Chosen explicitly by tag, never by file order or category, so adding or renaming entries cannot
    silently change the no-match answer. Several tagged entries: the highest `priority`, then the id.
    None tagged: no entry (the verdict then names only `wording.FALLBACK_CATEGORY`).
    """
    pool = sorted((e for e in entries if FALLBACK_TAG in e.tags), key=lambda e: (-e.priority, e.id))
    return pool[0] if pool else None
