"""The labelled corpus (tests/corpus: real failure logs from public issue threads, each labelled from
its thread's resolution) scored in one process with the same comparison as the shared scorer.

The floors only rise. They are met by being right about failure classes, never by matching a file:
the judged set is a larger hidden corpus of the same kind.
"""

from __future__ import annotations

from pathlib import Path

from knowledge.engine import Engine
from tests.tools.score_fast import score

ROOT = Path(__file__).resolve().parents[2]
MIN_CATEGORY_ACCURACY = 0.87
MIN_RANK_ACCURACY = 0.70
CHECKPOINT_CLASSES = ("gpu_oom_checkpoint_gather", "cpu_oom_checkpoint")
MIN_CHECKPOINT_ACCURACY = 0.70


def test_corpus_accuracy_floor(engine: Engine) -> None:
    result = score(ROOT / "tests" / "corpus", engine)
    report = result.summary() + "\n" + "\n".join(result.misses)
    assert result.cases >= 150, report
    assert result.accuracy >= MIN_CATEGORY_ACCURACY, report
    assert result.rank_accuracy >= MIN_RANK_ACCURACY, report
    right = sum(result.right_by_category[c] for c in CHECKPOINT_CLASSES)
    total = sum(result.by_category[c] for c in CHECKPOINT_CLASSES)
    assert total >= 20 and right / total >= MIN_CHECKPOINT_ACCURACY, report
