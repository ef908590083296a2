"""A notebook's (IPython's) traceback is read as the Python traceback it stands for: the frames keep
the cues taken from them (which library made the failing call, a save in progress)."""

from __future__ import annotations

from pathlib import Path

import pytest

from denpex.core.models import LogSource
from knowledge import ipytb
from knowledge.engine import Engine
from knowledge.sources import discover

CALL = (
    "model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=True, "
    "gradient_checkpointing_kwargs=args.gradient_checkpointing_kwargs)"
)
ERROR = (
    "TypeError: prepare_model_for_kbit_training() got an unexpected keyword argument "
    "'gradient_checkpointing_kwargs'"
)
IPYTHON8 = f"""\
---------------------------------------------------------------------------
TypeError                                 Traceback (most recent call last)
Cell In[6], line 2
      1 model = get_peft_model(model, lora_config)
----> 2 trainer = SFTTrainer(model=model, train_dataset=ds, args=args)

File /usr/local/lib/python3.10/dist-packages/trl/trainer/sft_trainer.py:301, in SFTTrainer.__init__(self)
    299 if args.gradient_checkpointing:
--> 301     {CALL}

{ERROR}
"""
IPYTHON7 = f"""\
---------------------------------------------------------------------------
TypeError                                 Traceback (most recent call last)
<ipython-input-6-3f1c2be0a9d1> in <module>
      1 model = get_peft_model(model, lora_config)
----> 2 trainer = SFTTrainer(model=model, train_dataset=ds, args=args)

/usr/local/lib/python3.10/dist-packages/trl/trainer/sft_trainer.py in __init__(self, model, args)
    299         if args.gradient_checkpointing:
--> 301             {CALL}
    302

{ERROR}
"""


def test_an_ipython_8_traceback_in_pythons_form() -> None:
    got = ipytb.rewrite(IPYTHON8.splitlines())
    assert got == [
        "TypeError                                 Traceback (most recent call last)",
        "Traceback (most recent call last):",
        '  File "<ipython-input-6>", line 2, in <module>',
        "    trainer = SFTTrainer(model=model, train_dataset=ds, args=args)",
        '  File "/usr/local/lib/python3.10/dist-packages/trl/trainer/sft_trainer.py", line 301, in __init__',
        f"    {CALL}",
        ERROR,
    ]


def test_an_ipython_7_frame_takes_its_line_from_the_arrow() -> None:
    got = ipytb.rewrite(IPYTHON7.splitlines())
    assert (
        '  File "/usr/local/lib/python3.10/dist-packages/trl/trainer/sft_trainer.py", line 301, in __init__'
        in got
    )
    assert got[-1] == ERROR


def test_a_log_without_ipython_tracebacks_is_left_as_it_is() -> None:
    source = LogSource(name="train.log", data=b"step 4 loss 1.2\n  301 tokens/s\n")
    assert ipytb.normalize(source) is source


@pytest.mark.parametrize("text", [IPYTHON8, IPYTHON7], ids=["ipython8", "ipython7"])
def test_a_library_making_the_call_in_a_notebook_is_api_drift(tmp_path: Path, text: str) -> None:
    (tmp_path / "notebook.log").write_text(text)
    assert Engine.load().diagnose(discover([tmp_path])).category == "env_version_mismatch"


def test_a_paste_cut_before_the_exception_line_keeps_the_name_in_the_header(tmp_path: Path) -> None:
    """IPython names the exception above the frames; a paste that stops in the frames still has it."""
    (tmp_path / "notebook.log").write_text(
        "OutOfMemoryError                          Traceback (most recent call last)\n"
        "Cell In[3], line 9\n"
        "----> 9 trainer.train()\n"
        "\n"
        "File ~/venv/lib/python3.10/site-packages/transformers/trainer.py:1633, in Trainer.train(self)\n"
        "-> 1633 return inner_training_loop(\n"
    )
    assert Engine.load().diagnose(discover([tmp_path])).category == "gpu_oom"
