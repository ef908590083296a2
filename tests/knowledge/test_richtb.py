"""A traceback drawn by rich (`accelerate launch`, Typer apps) is read as Python's: the frames inside
the box, even folded over two box lines, keep the cues taken from them."""

from __future__ import annotations

from pathlib import Path

from denpex.core.models import LogSource
from knowledge import richtb
from knowledge.engine import Engine
from knowledge.sources import discover

SITE = "/home/u/.venv/lib/python3.11/site-packages"
BOX = f"""\
{{'loss': 0.8812, 'learning_rate': 1.2e-05, 'epoch': 1.0}}
╭───────────────────── Traceback (most recent call last) ──────────────────────╮
│ /home/u/sft/run.py:88 in <module>                                            │
│                                                                              │
│   85 │   )                                                                   │
│ ❱ 88 │   trainer.train()                                                     │
│                                                                              │
│ {SITE}/transformers/trainer.py:3190 in   │
│ _save_checkpoint                                                             │
│                                                                              │
│ ❱ 3190 │   │   self.save_model(output_dir, _internal_call=True)              │
│ ╭───────────────────────────────── locals ─────────────────────────────────╮ │
│ │ output_dir = '/ckpt/checkpoint-500'                                      │ │
│ ╰──────────────────────────────────────────────────────────────────────────╯ │
│ {SITE}/torch/serializa                                                       │
│ tion.py:652 in save                                                          │
│                                                                              │
│ ❱  652 │   │   │   _save(obj, opened_zipfile, pickle_module, pickle_protocol)│
╰──────────────────────────────────────────────────────────────────────────────╯
RuntimeError: [enforce fail at alloc_cpu.cpp:114] data. DefaultCPUAllocator: not enough memory: you tried to \
allocate 4294967296 bytes.
"""


def test_the_box_in_pythons_form() -> None:
    assert richtb.rewrite(BOX.splitlines())[1:] == [
        "Traceback (most recent call last):",
        '  File "/home/u/sft/run.py", line 88, in <module>',
        "    trainer.train()",
        f'  File "{SITE}/transformers/trainer.py", line 3190, in _save_checkpoint',
        "    self.save_model(output_dir, _internal_call=True)",
        f'  File "{SITE}/torch/serialization.py", line 652, in save',
        "    _save(obj, opened_zipfile, pickle_module, pickle_protocol)",
        BOX.splitlines()[-1],
    ]


def test_a_platforms_stamp_before_the_border_stays() -> None:
    lines = [
        "056444Z ╭──── Traceback (most recent call last) ────╮",
        "061458Z │ /opt/conda/bin/accelerate:8 in <module>    │",
        "086718Z │ ❱ 8 │   sys.exit(main())                   │",
        "086719Z ╰────────────────────────────────────────────╯",
    ]
    assert richtb.rewrite(lines) == [
        "056444Z Traceback (most recent call last):",
        '061458Z   File "/opt/conda/bin/accelerate", line 8, in <module>',
        "086718Z     sys.exit(main())",
    ]


def test_a_log_without_a_rich_box_is_left_as_it_is() -> None:
    source = LogSource(name="train.log", data=b"| step | loss |\n| 4 | 1.2 |\n")
    assert richtb.normalize(source) is source


def test_a_host_oom_inside_a_save_drawn_by_rich_is_the_checkpoint_class(tmp_path: Path) -> None:
    (tmp_path / "console.log").write_text(BOX)
    diag = Engine.load().diagnose(discover([tmp_path]))
    assert (diag.category, diag.initiating.phase) == ("cpu_oom_checkpoint", "checkpoint_save")
