# ruff: noqa: E501 - realistic log lines are long
"""Delivery forms the engine did not survive: a syslog / journald relay's header on every line
(rsyslog's traditional and high-precision file formats, journalctl's short format), a traceback
printed on Windows (backslash paths, a drive letter), and a log UI's or an alert's cut at 160 columns
with its `…`. Each as a small log in the form the tool writes, with a lookalike that must not change."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from knowledge import relay, unwrap, winpath
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]

#: an installed library (transformers) calls into another (accelerate) with an argument it no longer has
_DRIFT = [
    "Traceback (most recent call last):",
    '  File "/home/me/proj/train.py", line 40, in <module>',
    "    trainer.train()",
    '  File "/home/me/miniconda3/envs/x/lib/python3.10/site-packages/transformers/trainer.py", line 1633, in train',
    "    self.accelerator = Accelerator(dispatch_batches=self.args.dispatch_batches)",
    "TypeError: Accelerator.__init__() got an unexpected keyword argument 'dispatch_batches'",
]
#: the same TypeError from the user's own call: a code error, however the path is spelled
_OWN = [
    "Traceback (most recent call last):",
    '  File "/home/me/proj/train.py", line 40, in <module>',
    "    model = build(dispatch_batches=True)",
    "TypeError: build() got an unexpected keyword argument 'dispatch_batches'",
]


def _windows(lines: list[str]) -> str:
    return (
        "\n".join(
            ln.replace(
                '"/home/me/miniconda3/envs/x/lib/python3.10/', '"C:\\Users\\me\\miniconda3\\envs\\x\\Lib\\'
            )
            .replace('"/home/me/proj/', '"C:\\Users\\me\\proj\\')
            .replace("/", "\\")
            if ln.lstrip().startswith("File ")
            else ln
            for ln in lines
        )
        + "\n"
    )


def test_a_library_frame_printed_on_windows_is_still_a_library_frame(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = _windows(_DRIFT)
    assert "site-packages\\transformers\\trainer.py" in log
    assert diagnose_dir(_log(tmp_path, log)).category == "env_version_mismatch"


def test_the_users_own_frame_on_windows_stays_a_code_error(diagnose_dir: Run, tmp_path: Path) -> None:
    assert diagnose_dir(_log(tmp_path, _windows(_OWN))).category == "shape_or_user_code_error"


def test_windows_paths_get_forward_slashes_and_other_backslashes_stay() -> None:
    text = (
        'File "C:\\Program Files\\Python310\\Lib\\site-packages\\torch\\nn\\modules\\module.py", line 1, in f\n'
        "C:\\Users\\me\\envs\\x\\lib\\site-packages\\torch\\utils\\data\\dataloader.py:665: UserWarning: x\n"
        "print('a\\nb') and a regex \\d+ stay\n"
    )
    out = winpath.rewrite(text).split("\n")
    assert (
        out[0]
        == 'File "C:/Program Files/Python310/Lib/site-packages/torch/nn/modules/module.py", line 1, in f'
    )
    assert out[1].startswith("C:/Users/me/envs/x/lib/site-packages/torch/utils/data/dataloader.py:665: ")
    assert out[2] == "print('a\\nb') and a regex \\d+ stay"


_OOM = [
    "[rank1]: Traceback (most recent call last):",
    '[rank1]:   File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1532, in _wrapped_call_impl',
    "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.15 GiB of which 1.12 GiB is free.",
]

_HEADERS = {
    "rsyslog": "May  1 10:00:00 gpu-node-01 python3[48213]: ",
    "rsyslog-high-precision": "2024-05-01T10:00:00.123456+00:00 gpu-node-01 python3[48213]: ",
    "journalctl-short": "May 01 10:00:00 gpu-node-01 python3[48213]: ",
    "journalctl-short-iso": "2024-05-01T10:00:00+0000 gpu-node-01 train.sh[48213]: ",
}


@pytest.mark.parametrize("form", sorted(_HEADERS))
def test_a_syslog_relayed_rank_error_keeps_its_rank_not_the_relays_pid(
    diagnose_dir: Run, tmp_path: Path, form: str
) -> None:
    log = "".join(_HEADERS[form] + ln + "\n" for ln in _OOM)
    d = diagnose_dir(_log(tmp_path, log))
    assert (d.category, d.initiating.rank) == ("gpu_oom", 1)


@pytest.mark.parametrize("form", sorted(_HEADERS))
def test_a_syslog_relayed_traceback_keeps_its_frames(diagnose_dir: Run, tmp_path: Path, form: str) -> None:
    """The frames decide: a library's call that no longer fits is an API drift, the user's a code error."""
    drift = "".join(_HEADERS[form] + ln + "\n" for ln in _DRIFT)
    own = "".join(_HEADERS[form] + ln + "\n" for ln in _OWN)
    (tmp_path / "drift").mkdir()
    (tmp_path / "own").mkdir()
    assert diagnose_dir(_log(tmp_path / "drift", drift)).category == "env_version_mismatch"
    assert diagnose_dir(_log(tmp_path / "own", own)).category == "shape_or_user_code_error"


@pytest.mark.parametrize("form", sorted(_HEADERS))
def test_a_relay_header_is_stripped_to_its_stamp(form: str) -> None:
    line = (_HEADERS[form] + "Killed\n").encode()
    assert relay.recognise(line * 3) is not None
    assert b"".join(relay.unheader([line])).endswith(b" Killed\n")
    assert b"gpu-node-01" not in b"".join(relay.unheader([line]))


@pytest.mark.parametrize(
    "text",
    [
        # moreutils' `ts` before the job's own words: no host, no tag (the second word is not `x:`)
        "May 01 10:00:00 Traceback (most recent call last):\nMay 01 10:00:00 RuntimeError: boom\n",
        # a logger's words where a host would stand (upper case, no digit): not a relay
        "May 01 10:00:00 NCCL INFO: ring 0\nMay 01 10:00:00 NCCL WARN: timeout\n",
        # a relay header on one line of several: text, not a delivery form
        "step 1 loss 2.0\nMay  1 10:00:00 gpu-node-01 python3[1]: x\nstep 2 loss 1.9\n",
    ],
)
def test_a_lookalike_is_not_read_as_a_relay(text: str) -> None:
    assert relay.recognise(text.encode()) is None


def test_a_line_a_log_ui_cut_with_an_ellipsis_is_not_joined_to_the_next() -> None:
    long = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.15 GiB of which 1.12 GiB is free. Including non-Py"
    text = "\n".join(
        [long + "…", "the next record of the job, printed by its own writer as a line", long + "…"] * 3
    )
    assert unwrap.rejoin_text(text) is None


def test_a_real_hard_wrap_is_still_joined() -> None:
    """The counter-example: a terminal's cut at exactly 80 columns, no ellipsis, is re-joined."""
    line = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.15 GiB of which 1.12 GiB is free."
    text = "\n".join([line[:80], line[80:]] * 3)
    joined = unwrap.rejoin_text(text)
    assert joined is not None and joined.split("\n")[0] == line
