"""The diagnosis engine: compile the knowledge once, then diagnose many jobs.

    engine = Engine.load()                       # entries + Xid catalogue + phase markers, compiled once
    diag = engine.diagnose(sources, missing=..., progress=...)

The engine never names a failure: every failure mode is a TOML entry; this module only wires the
scan (`scanner`), the interpretation of hits (`signals`), attribution (`attribution`) and the
report (`report`). Not thread-safe (one reused scan buffer); use one Engine per thread.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pydantic

from denpex.core.models import Diagnosis, LogSource, MissingEvidence, Stats
from knowledge import (
    anchors,
    attribution,
    cache,
    dockerlog,
    flightrec,
    gutter,
    htmlent,
    ipytb,
    jobfacts,
    jobfill,
    jsonlog,
    labels,
    order,
    parallel,
    progress,
    relay,
    report,
    richtb,
    unwrap,
    winpath,
)
from knowledge.facts import load_catalogue
from knowledge.masking import Masker, TextMasker
from knowledge.patterns import FACT_PATTERNS, SINGLE_FACTS, Pattern, PatternKind, PatternSet
from knowledge.phases import PHASES_PATH, Marker, PhaseReader, TailMarkers, load_markers
from knowledge.scanner import Scanner, SourceScan
from knowledge.schema import DATA_DIR, ENTRIES_DIR, Entry, Xid, load_entries
from knowledge.signals import build_job
from knowledge.sources import complete


def compile_patterns(entries: Sequence[Entry], markers: Sequence[Marker] = ()) -> list[Pattern]:
    """Every signature, context pattern, phase marker and engine fact as one list of patterns.

    The masking rules are not among them: only retained text (hits, context, tails, a few kilobytes)
    ever leaves the engine and the `Redactor` runs the full masker over all of it, so scanning every
    byte for secrets as well cost ~10% of the throughput and changed no output.
    """
    out: list[Pattern] = []

    def add(
        regex: str, caseless: bool, kind: PatternKind, sig_id: str, entry: str | None, w: float, win: int
    ) -> None:
        out.append(Pattern(len(out), regex, caseless, kind, sig_id, entry, w, win))

    for e in entries:
        for s in e.signatures:
            add(s.pattern, s.caseless, s.role.value, s.id, e.id, s.weight, 0)
            if s.unless:
                out[-1] = replace(out[-1], unless=s.unless)
        for c in e.context:
            add(c.pattern, c.caseless, "context", c.id, e.id, c.weight, c.window)
            if c.before:
                out[-1] = replace(out[-1], before=True)
    for m in markers:
        add(anchors.tolerant(m.pattern), m.caseless, "phase", m.id, None, 1.0, 0)
        if m.frequent:  # progress lines: one hit a chunk is enough, the numbered tail has the rest
            out[-1] = replace(out[-1], single=True)
    for fid, (regex, caseless) in FACT_PATTERNS.items():
        add(anchors.tolerant(regex), caseless, "fact", fid, None, 1.0, 0)
        if fid in SINGLE_FACTS:
            out[-1] = replace(out[-1], single=True)
    return out


class Engine:
    """Compiled knowledge. Build it once with `Engine.load()` and reuse it for every job."""

    def __init__(
        self,
        entries: Sequence[Entry],
        xids: dict[int, Xid],
        masker: TextMasker,
        cache_dir: Path | None = None,
        markers: Sequence[Marker] | None = None,
    ) -> None:
        self.entries = {e.id: e for e in entries}
        self.markers = list(load_markers() if markers is None else markers)
        self.tail_markers = TailMarkers(self.markers, cache_dir)
        self.xids = xids
        self.masker = masker
        self.patterns = compile_patterns(entries, self.markers)
        marker_index = {m.id: i for i, m in enumerate(self.markers)}
        self.phase_marker = {p.idx: marker_index[p.sig_id] for p in self.patterns if p.kind == "phase"}
        self.pattern_set = PatternSet(self.patterns, cache_dir)
        self.scanner = Scanner(self.pattern_set)
        self.fallback_entry = _fallback_entry(entries)
        self.redactor = report.Redactor(masker.mask)

    @classmethod
    def load(
        cls,
        entries_dir: Path | None = None,
        *,
        xid_path: Path | None = None,
        masker: TextMasker | None = None,
        cache_dir: Path | None = None,
    ) -> Engine:
        """Load and validate every entry (an `EntryError` names a bad file and field), then compile.

        `cache_dir` (optional) keeps the compiled pattern database between processes, keyed by the
        exact patterns, so a short-lived CLI run does not pay the compile every time. `masker`
        defaults to the project's `Masker.default()`.
        """
        entries, xids, markers = _load_knowledge(entries_dir or ENTRIES_DIR, xid_path, cache_dir)
        masker = masker if masker is not None else Masker.default(cache_dir=cache_dir)
        return cls(entries, xids, masker, cache_dir, markers)

    def diagnose(
        self,
        sources: Sequence[LogSource],
        *,
        missing: Sequence[MissingEvidence] = (),
        progress: Callable[[int], None] | None = None,
        jobs: int = 1,
    ) -> Diagnosis:
        """Scan every source once, attribute, classify; always returns a Diagnosis for readable input.

        `jobs` > 1 scans the sources on that many processes (`knowledge/parallel.py`); the diagnosis is
        the same."""
        t0 = time.perf_counter()
        sources, dumps = flightrec.split_sources(sources)  # collective traces: not log lines
        sources = [_prepared(s) for s in sources]
        scans = parallel.scan_all(self.scanner, sources, 2000, jobs, progress)
        done = sum(s.bytes for s in scans)
        job = build_job(scans, self.patterns, self.entries, self.xids)
        job.phases = self._phase_reader(scans)
        verdict = attribution.attribute(job, self.fallback_entry)
        ranks = set(job.ranks) | {s.source.rank for s in scans if s.source.rank is not None}
        stats = Stats(
            files=len(scans), ranks=len(ranks), bytes=done, seconds=round(time.perf_counter() - t0, 4)
        )
        diag = report.diagnosis(job, verdict, self.redactor, missing, stats)
        first_hand = verdict.rank is not None and not verdict.collateral_only
        diag = flightrec.merge(diag, dumps, logs_decide=first_hand, entries=self.entries)
        facts = jobfacts.from_job(job, self.patterns, diag.initiating.rank, diag.initiating.node)
        return jobfill.fit(diag, facts, self.masker.mask)  # the verify command fitted to this job

    def _phase_reader(self, scans: Sequence[SourceScan]) -> PhaseReader:
        for scan in scans:
            for mark in scan.phases:
                mark.marker = self.phase_marker.get(mark.marker, mark.marker)
        return PhaseReader.build(
            self.markers, self.tail_markers, [(sc.phases, sc.numbered_tail) for sc in scans]
        )


def _load_knowledge(
    entries_dir: Path, xid_path: Path | None, cache_dir: Path | None
) -> tuple[list[Entry], dict[int, Xid], list[Marker]]:
    """Entries, Xid catalogue and phase markers, validated; from `cache_dir` when validated before.

    Validating the entries with pydantic (their regexes compiled, their patterns made tolerant) costs
    a good part of a short CLI run. The cache (`knowledge/cache.py`: JSON rows, never pickle, only a
    file private to this user) is keyed by the content of every knowledge file and of the modules that
    define and validate them (and the pydantic and Python versions), so an edited entry or model is
    always validated again. Only valid knowledge is stored: a bad file fails with its `EntryError`
    every time. A damaged or foreign cache file is ignored and written anew.
    """
    path = _knowledge_cache_path(entries_dir, xid_path, cache_dir)
    cached = _read_knowledge(cache.read(path))
    if cached is not None:
        return cached
    loaded = (load_entries(entries_dir), load_catalogue(xid_path), load_markers())
    if path is not None:
        _store_knowledge(path, loaded)
    return loaded


def _store_knowledge(path: Path, loaded: tuple[list[Entry], dict[int, Xid], list[Marker]]) -> None:
    """Write the cache file, unless the knowledge does not come back from it whole (a field type
    JSON cannot hold, or one `cache.Rebuilder` does not know): then it is validated every time."""
    entries, xids, markers = loaded
    data = {"entries": cache.rows(entries), "xids": cache.rows(xids.values()), "markers": cache.rows(markers)}
    try:
        blob = json.dumps(data, separators=(",", ":")).encode()
    except (TypeError, ValueError):
        return
    if cache.same(_read_knowledge(blob), loaded):
        cache.write(path, blob)


def _read_knowledge(blob: bytes | None) -> tuple[list[Entry], dict[int, Xid], list[Marker]] | None:
    """Knowledge from a cache file's JSON (trusted: validated before it was stored), None if damaged."""
    if blob is None:
        return None
    try:
        data = json.loads(blob)
        rebuild = cache.Rebuilder()
        entries = [rebuild.model(Entry, r) for r in data["entries"]]
        xids = [rebuild.model(Xid, r) for r in data["xids"]]
        markers = [rebuild.model(Marker, r) for r in data["markers"]]
    except (ValueError, TypeError, KeyError, AttributeError):  # truncated, foreign or an older layout
        return None
    return entries, {x.code: x for x in xids}, markers


def _knowledge_cache_path(entries_dir: Path, xid_path: Path | None, cache_dir: Path | None) -> Path | None:
    if cache_dir is None:
        return None
    here = Path(__file__).parent
    files = [
        *sorted(entries_dir.glob("*.toml")),
        xid_path or DATA_DIR / "xid.toml",
        PHASES_PATH,
        *(here / f"{m}.py" for m in ("schema", "anchors", "phases", "facts", "lines", "engine", "cache")),
    ]
    key = cache.file_digest(files, "knowledge-v2", pydantic.VERSION, sys.version)
    return cache_dir / f"knowledge-{key}.json"


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


def _prepared(source: LogSource) -> LogSource:
    """The source as its job wrote it: Docker's json-file records and log platforms' JSON exports
    decoded, a web page's HTML escapes undone, a syslog relay's host and tag
    dropped, Windows paths written with `/`, a progress bar's redraws split into lines, a
    notebook's and rich's tracebacks in Python's form, a pasted copy's line numbers and a
    multiplexer's label stripped, a copy listed newest first put back in order, a pasted log cut at
    80 columns joined; its kind, rank and node filled in from its name."""
    decoded = relay.strip(gutter.strip(htmlent.decode(jsonlog.decode(dockerlog.decode(source)))))
    decoded = winpath.normalize(decoded)
    decoded = richtb.normalize(ipytb.normalize(progress.split(decoded)))  # after the gutter: a bar's
    return complete(unwrap.rejoin(order.restore(labels.strip(decoded))))  # redraws have no number
