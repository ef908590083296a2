"""A progress bar's redraws in a log file: the line printed after the bar is read as its own line."""

from __future__ import annotations

from pathlib import Path

import pytest

from denpex.core.models import LogSource
from knowledge import progress
from knowledge.engine import Engine
from knowledge.sources import discover

BAR = " 12%|█▏        | 118/1000 [02:31<18:49,  1.28s/it, loss=2.31, lr=1.9e-05]"
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/srv/ft/train.py", line 211, in <module>\n'
    "    trainer.train()\n"
    '  File "/srv/ft/.venv/lib/python3.11/site-packages/peft/tuners/lora/model.py", line 88, in _create\n'
    "    new_module = dispatcher(target, adapter_name, lora_config=lora_config, **kwargs)\n"
    "TypeError: dispatch_default() got an unexpected keyword argument 'use_dora'\n"
)


def test_text_glued_to_a_bar_starts_its_own_line() -> None:
    data = f"\r{BAR}\r{BAR}Traceback (most recent call last):\n".encode()
    got = progress.split(LogSource(name="train.log", data=data))
    assert got.data is not None
    assert got.data.decode().split("\n")[-2] == "Traceback (most recent call last):"


def test_a_log_without_bars_is_left_as_it_is() -> None:
    source = LogSource(name="train.log", data=b"step 4 loss 1.2\r\nstep 5 loss 1.1\r\n")
    assert progress.split(source) is source


@pytest.mark.parametrize(
    ("join", "tail", "category"),
    [
        ("", TRACEBACK, "env_version_mismatch"),
        (
            "",
            "ValueError: Expected input batch_size (16) to match target batch_size (8).\n",
            "shape_or_user_code_error",
        ),
        ("\r", "Killed\n", "host_oom"),
    ],
    ids=["glued-traceback", "glued-exception", "killed-after-a-carriage-return"],
)
def test_a_line_printed_over_a_running_bar_is_read(
    tmp_path: Path, join: str, tail: str, category: str
) -> None:
    """The line began where the bar's text ended (glued, or after the bar's `\\r`): it is read as a line."""
    (tmp_path / "train.log").write_text(f"\r{BAR}\r{BAR}{join}{tail}")
    assert Engine.load().diagnose(discover([tmp_path])).category == category
