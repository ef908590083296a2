"""A log saved from a web page with its HTML escapes is read as printed; a program's own text is not."""

from __future__ import annotations

import html
from pathlib import Path

from denpex.core.models import LogSource
from knowledge import htmlent
from knowledge.engine import Engine
from knowledge.sources import discover

TRACEBACK = """\
[rank1]: Traceback (most recent call last):
[rank1]:   File "/opt/app/finetune.py", line 88, in <module>
[rank1]:     trainer.train()
[rank1]:   File "/usr/local/lib/python3.10/site-packages/trl/trainer/sft_trainer.py", line 451, in train
[rank1]:     self.model = prepare_peft_model(self.model, peft_config, use_gradient_checkpointing=True)
[rank1]: TypeError: prepare_peft_model() got an unexpected keyword argument 'use_gradient_checkpointing'
"""


def test_a_page_copy_is_unescaped_whole() -> None:
    page = html.escape(TRACEBACK).encode()
    got = htmlent.decode(LogSource(name="rank1.log", data=page))
    assert got.data == TRACEBACK.encode()


def test_a_log_with_raw_angle_brackets_keeps_its_entities() -> None:
    """A program that prints `&lt;` next to raw `<` printed both: nothing is rewritten."""
    own = b'<html>&lt;div&gt; rendered by the eval callback: "&amp;"</html>\n'
    source = LogSource(name="eval.log", data=own)
    assert htmlent.decode(source) is source


def test_the_diagnosis_of_a_page_copy_is_the_diagnosis_of_the_log(tmp_path: Path) -> None:
    plain, page = tmp_path / "plain", tmp_path / "page"
    plain.mkdir()
    page.mkdir()
    (plain / "rank1.log").write_text(TRACEBACK)
    (page / "rank1.log").write_text(html.escape(TRACEBACK))
    engine = Engine.load()
    want = engine.diagnose(discover([plain]))
    got = engine.diagnose(discover([page]))
    assert (got.category, got.initiating.rank) == (want.category, want.initiating.rank)
    assert got.initiating.evidence and "'use_gradient_checkpointing'" in got.initiating.evidence[0].text
