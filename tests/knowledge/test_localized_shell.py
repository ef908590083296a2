"""bash's job status in the user's language is the same crash: `段错误 (核心已转储)` is `Segmentation
fault (core dumped)` (glibc's strsignal translations). Threads from users on a Chinese, Japanese,
German or Russian locale paste it so; without it the log reads as an exit without an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.engine import Engine
from knowledge.sources import discover

STEPS = "".join(f"[2024-03-02 10:11:{s:02d}] step {s} loss 1.93\n" for s in range(10, 13))


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load()


def _diagnose(engine: Engine, folder: Path, text: str) -> str:
    (folder / "console.log").write_text(STEPS + text)
    return engine.diagnose(discover([folder])).category


@pytest.mark.parametrize(
    "line",
    [
        "run.sh: line 7: 48213 段错误               (核心已转储) python train.py --deepspeed ds.json",
        "段错误 (核心已转储)",
        "./launch.sh: 行 12: 9921 段错误                  CUDA_VISIBLE_DEVICES=0 python sft.py",
        "セグメンテーション違反です (コアダンプ)",
        "train.sh: Zeile 4: 30112 Speicherzugriffsfehler  (Speicherabbild geschrieben) python main.py",
        "Ошибка сегментирования (стек памяти сброшен на диск)",
        "Violación de segmento (`core' generado)",
        "Erreur de segmentation (core dumped)",
        "세그멘테이션 오류 (core dumped)",
        "Falha de segmentação (imagem do núcleo gravada)",
    ],
)
def test_a_localized_segfault_is_a_segfault(engine: Engine, tmp_path: Path, line: str) -> None:
    assert _diagnose(engine, tmp_path, line + "\n") == "segfault"


def test_the_word_inside_a_message_is_not_a_crash(engine: Engine, tmp_path: Path) -> None:
    """A French eval script's own message about image segmentation names no signal."""
    text = "Erreur de segmentation : le masque est vide pour l'image 4711\n" + "ValueError: empty mask\n"
    assert _diagnose(engine, tmp_path, text) != "segfault"
