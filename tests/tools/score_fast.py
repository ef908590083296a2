"""Score the engine on a labelled corpus in one process (the shared `score_corpus.py` runs the CLI once
a case; this loads the knowledge once). Same comparison, same summary line.

usage: python tests/tools/score_fast.py CORPUS_DIR [--verbose] [--only PREFIX]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from knowledge.engine import Engine
from knowledge.sources import discover


@dataclass
class Score:
    cases: int = 0
    right: int = 0
    rank_total: int = 0
    rank_right: int = 0
    misses: list[str] = field(default_factory=list)
    by_category: Counter[str] = field(default_factory=Counter)
    right_by_category: Counter[str] = field(default_factory=Counter)

    @property
    def accuracy(self) -> float:
        return self.right / self.cases if self.cases else 0.0

    @property
    def rank_accuracy(self) -> float:
        return self.rank_right / self.rank_total if self.rank_total else 1.0

    def summary(self) -> str:
        return (
            f"cases {self.cases}: category accuracy {self.accuracy:.3f} ({self.right}/{self.cases}), "
            f"initiating-rank accuracy {self.rank_accuracy:.3f} ({self.rank_right}/{self.rank_total})"
        )


def score(corpus: Path, engine: Engine, only: str = "") -> Score:
    out = Score()
    for case_file in sorted(corpus.glob(f"{only}*/case.json")):
        case = case_file.parent
        label = json.loads(case_file.read_text())
        diag = engine.diagnose(discover([case / "logs"]))
        out.cases += 1
        want = label["category"]
        out.by_category[want] += 1
        if diag.category == want:
            out.right += 1
            out.right_by_category[want] += 1
        else:
            out.misses.append(f"{case.name}: category {diag.category!r}, labelled {want!r}")
        if label.get("initiating_rank") is not None:
            out.rank_total += 1
            if diag.initiating.rank == label["initiating_rank"]:
                out.rank_right += 1
            else:
                got, want_rank = diag.initiating.rank, label["initiating_rank"]
                out.misses.append(f"{case.name}: initiating rank {got!r}, labelled {want_rank}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    result = score(a.corpus, Engine.load(), a.only)
    if a.verbose:
        print("\n".join(result.misses))
        for cat, n in sorted(result.by_category.items()):
            print(f"  {cat:28s} {result.right_by_category[cat]}/{n}")
    print(result.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
