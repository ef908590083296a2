"""PyTorch Flight Recorder dumps (per-rank collective traces) as first-hand evidence.

    logs, dumps = split_sources(sources)          # dumps found by content, not only by name
    diag = merge(diag, dumps, logs_decide=...)    # suspect_ranks, collectives, initiating rank

`reader` decodes a dump safely (no `pickle.load` on job output), `trace` keeps a compact per-rank
form, `analysis` compares the ranks per process group, `merge` folds the result into a diagnosis.
"""

from knowledge.flightrec.analysis import Result, analyse
from knowledge.flightrec.merge import analyse_sources, merge, read_all, split_sources
from knowledge.flightrec.reader import DumpError, SafeUnpickler, load, read_source, sniff, sniff_path
from knowledge.flightrec.trace import RankTrace

__all__ = [
    "DumpError",
    "RankTrace",
    "Result",
    "SafeUnpickler",
    "analyse",
    "analyse_sources",
    "load",
    "merge",
    "read_all",
    "read_source",
    "sniff",
    "sniff_path",
    "split_sources",
]
