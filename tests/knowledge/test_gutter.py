"""A pasted log's line numbers are a gutter, not a rank label; a launcher's rank labels stay labels."""

from __future__ import annotations

from pathlib import Path

from denpex.core.models import LogSource
from knowledge import gutter
from knowledge.engine import Engine
from knowledge.sources import discover

GREP = """\
2211-[rank3]:   File "/srv/pretrain/loop.py", line 301, in step
2212-[rank3]:     logits = model(batch["input_ids"])
2213:[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered
--
2290:[rank0]: [E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] Process group watchdog thread terminated
"""


def _text(source: LogSource) -> str:
    assert source.data is not None
    return source.data.decode()


def test_grep_n_output_loses_its_line_numbers_and_context_marks() -> None:
    got = gutter.strip(LogSource(name="grep.txt", data=GREP.encode()))
    assert (
        _text(got).splitlines()[2]
        == "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered"
    )


def test_cat_n_output_loses_its_gutter() -> None:
    data = "".join(
        f"{i:>6}\t{line}\n" for i, line in enumerate(["Traceback (most recent call last):", "  x", "E"], 41)
    )
    assert _text(gutter.strip(LogSource(name="c.txt", data=data.encode()))).startswith("Traceback (most")


def test_one_grepped_line_is_read_without_its_number() -> None:
    line = b"18342:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
    assert _text(gutter.strip(LogSource(name="one.txt", data=line))).startswith("torch.OutOfMemoryError")


def test_srun_rank_labels_and_timestamps_are_not_a_gutter() -> None:
    for data in (
        b"0: step 10 loss 2.1\n1: step 10 loss 2.1\n",  # srun --label: rises, but with its space
        b"3: a\n3: b\n3: c\n3: d\n",  # one rank's label repeats
        b"2024-05-01 10:00:00 a\n2024-05-01 10:00:01 b\n2024-05-01 10:00:02 c\n",
    ):
        source = LogSource(name="x.log", data=data)
        assert gutter.strip(source) is source


def test_a_grepped_excerpt_names_the_rank_in_its_lines_not_its_line_number(tmp_path: Path) -> None:
    (tmp_path / "grep.txt").write_text(GREP)
    diag = Engine.load().diagnose(discover([tmp_path]))
    assert diag.category == "cuda_illegal_access"
    assert diag.initiating.rank == 3


def test_a_grepped_traceback_without_rank_tags_names_no_rank(tmp_path: Path) -> None:
    """Line numbers 88-90 are not ranks 88-90 (what srun's label would have made them)."""
    (tmp_path / "excerpt.txt").write_text(
        "88:Traceback (most recent call last):\n"
        '89:  File "/opt/lab/run_sft.py", line 57, in <module>\n'
        "90:ValueError: Expected input batch_size (16) to match target batch_size (8).\n"
    )
    diag = Engine.load().diagnose(discover([tmp_path]))
    assert (diag.category, diag.initiating.rank) == ("shape_or_user_code_error", None)
