# ruff: noqa: E501 - realistic log lines are long
"""When no failure mode matches, the log's last fatal line decides the class: a crash is never a hang.

The logs are built from the formats the tools print: CPython's traceback (Lib/traceback.py), torchrun's
elastic agent (torch/distributed/elastic/multiprocessing/api.py), faulthandler (Modules/faulthandler.c),
TensorFlow's checkpoint writer (core/util/tensor_slice_writer.cc), PyTorch's zip writer
(caffe2/serialize/inline_container.cc) and safetensors' Rust I/O errors.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from knowledge import fallback
from knowledge.engine import Engine
from knowledge.schema import ENTRIES_DIR, load_entries
from knowledge.sources import discover
from tests.knowledge import scenarios

Run = Callable[[Path], Diagnosis]

UNKNOWN_EXCEPTION = [
    "[rank0]: Traceback (most recent call last):",
    '[rank0]:   File "/workspace/train.py", line 212, in <module>',
    "[rank0]:     main()",
    '[rank0]:   File "/workspace/train.py", line 160, in main',
    "[rank0]:     sched = build_scheduler(cfg.optim.lr_sched, optimizer)",
    '[rank0]:   File "/opt/conda/lib/python3.10/site-packages/omegaconf/dictconfig.py", line 355, in __getattr__',
    "[rank0]:     self._format_and_raise(key=key, value=None, cause=e)",
    "[rank0]: omegaconf.errors.ConfigAttributeError: Key 'lr_sched' is not in struct",
    "[rank0]:     full_key: optim.lr_sched",
    "[rank0]:     object_type=dict",
]
TEARDOWN = [
    "W0502 10:11:04.331000 140231 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 140301 closing signal SIGTERM",
    "E0502 10:11:04.712000 140231 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 140300) of binary: /opt/conda/bin/python",
]
# faulthandler's dump (PYTHONFAULTHANDLER=1) of a crash inside a C extension, then the shell's report
SEGV_BACKTRACE = [
    "Fatal Python error: Segmentation fault",
    "",
    "Current thread 0x00007f3a9c5ff740 (most recent call first):",
    '  File "/opt/venv/lib/python3.11/site-packages/fastext/ops.py", line 88 in gather_rows',
    '  File "/workspace/train.py", line 301 in collate',
    '  File "/workspace/train.py", line 340 in main',
    "./run.sh: line 12: 48812 Segmentation fault      (core dumped) python train.py --config cfg.yaml",
]


def test_an_unknown_python_exception_is_user_code_not_a_hang(tmp_path: Path, diagnose_dir: Run) -> None:
    scenarios.write(tmp_path, "rank0.log", scenarios.training(0, 30) + UNKNOWN_EXCEPTION)
    diag = diagnose_dir(tmp_path)
    assert diag.category == "shape_or_user_code_error"
    assert diag.confidence < 0.5
    assert [e.text for e in diag.initiating.evidence] == [UNKNOWN_EXCEPTION[7]]
    assert "last error line was" in diag.root_cause and "ConfigAttributeError" in diag.root_cause
    assert "hung" not in diag.root_cause


def test_a_crash_beats_the_launchers_teardown_that_followed_it(tmp_path: Path, diagnose_dir: Run) -> None:
    """The teardown lines alone would say "a worker died silently"; here it did not die silently."""
    scenarios.write(tmp_path, "rank0.log", scenarios.training(0, 30) + UNKNOWN_EXCEPTION + TEARDOWN)
    diag = diagnose_dir(tmp_path)
    assert diag.category == "shape_or_user_code_error" and diag.initiating.rank == 0
    assert diag.initiating.evidence[0].text == UNKNOWN_EXCEPTION[7]


def test_the_teardown_alone_is_still_the_teardowns_answer(tmp_path: Path, diagnose_dir: Run) -> None:
    scenarios.write(tmp_path, "console.log", scenarios.training(0, 30) + TEARDOWN[:1])
    diag = diagnose_dir(tmp_path)
    assert diag.category == "hang_no_error"
    assert diag.entry is not None and diag.entry.id == "sigterm-elastic-teardown"


@pytest.fixture(scope="module")
def engine_without_segfault_entry(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    """The bundled entries with the segfault entry's patterns made unmatchable: a signal no entry knows."""
    folder = tmp_path_factory.mktemp("entries")
    shutil.copytree(ENTRIES_DIR, folder, dirs_exist_ok=True)
    path = folder / "segfault-native-crash.toml"
    text = re.sub(r"^pattern = .*$", "pattern = 'QQQ never in a log ZZZ'", path.read_text(), flags=re.M)
    path.write_text(text)
    return Engine.load(folder)


def test_a_native_crash_no_entry_knows_is_a_segfault(
    tmp_path: Path, engine_without_segfault_entry: Engine
) -> None:
    scenarios.write(tmp_path, "train.log", scenarios.training(0, 30) + SEGV_BACKTRACE)
    diag = engine_without_segfault_entry.diagnose(discover([tmp_path]))
    assert diag.category == "segfault" and diag.confidence <= 0.5
    assert diag.entry is not None and diag.entry.id == "segfault-native-crash"  # the class's entry, by tag
    assert diag.initiating.evidence[0].text == SEGV_BACKTRACE[-1]  # the last fatal line of the source
    assert "SIGSEGV" in diag.root_cause


def test_a_log_that_stops_while_waiting_stays_a_hang(tmp_path: Path, diagnose_dir: Run) -> None:
    lines = [
        *scenarios.training(1, 40),
        "[rank1]: epoch 0 done, waiting for the other ranks to finish evaluation",
    ]
    scenarios.write(tmp_path, "rank1.log", lines)
    diag = diagnose_dir(tmp_path)
    assert diag.category == "hang_no_error" and diag.confidence <= 0.1
    assert diag.entry is not None and diag.entry.id == "hang-no-progress"
    assert [e.text for e in diag.initiating.evidence] == [lines[-1]]
    assert "stops while waiting" in diag.root_cause


def test_a_log_that_just_stops_stays_a_hang(tmp_path: Path, diagnose_dir: Run) -> None:
    scenarios.write(tmp_path, "rank0.log", scenarios.training(0, 40))
    diag = diagnose_dir(tmp_path)
    assert diag.category == "hang_no_error" and diag.confidence <= 0.1
    assert diag.initiating.evidence == []


def test_an_interrupted_hang_is_still_a_hang(tmp_path: Path, diagnose_dir: Run) -> None:
    """Ctrl-C on a stuck job prints a KeyboardInterrupt traceback: stopped from outside, no crash."""
    lines = [
        *scenarios.training(0, 40),
        "Traceback (most recent call last):",
        '  File "/workspace/train.py", line 88, in <module>',
        "    loss.backward()",
        "KeyboardInterrupt",
    ]
    scenarios.write(tmp_path, "rank0.log", lines)
    diag = diagnose_dir(tmp_path)
    assert diag.category == "hang_no_error"
    assert "stopped from outside" in diag.root_cause


def test_empty_logs_are_no_content_not_a_guess(tmp_path: Path, diagnose_dir: Run) -> None:
    (tmp_path / "rank0.log").write_bytes(b"")
    diag = diagnose_dir(tmp_path)
    assert diag.entry is None and diag.confidence == 0.0
    assert diag.root_cause.startswith("No log content found")


def test_tensorflow_checkpoint_on_a_full_disk(tmp_path: Path, diagnose_dir: Run) -> None:
    """TF1's saver: the filesystem's RESOURCE_EXHAUSTED (ENOSPC), not memory, under a SaveSlices node."""
    ckpt = "/home/u/.local/share/deepspeech/checkpoint/model.ckpt-6.tempstate9784191321997661396"
    lines = [
        *scenarios.training(0, 20),
        f"InternalError (see above for traceback): Error writing (tmp) checkpoint file: {ckpt}: Resource exhausted: {ckpt}",
        '\t [[Node: save/save = SaveSlices[T=[DT_FLOAT, DT_FLOAT], _device="/job:localhost/replica:0/task:0/cpu:0"](_recv_save/Const_0, save/save/tensor_names)]]',
    ]
    scenarios.write(tmp_path, "console.log", lines)
    diag = diagnose_dir(tmp_path)
    assert diag.category == "disk_full_or_io" and diag.confidence >= 0.5


def test_tensorflow_gpu_oom_is_not_a_full_disk(tmp_path: Path, diagnose_dir: Run) -> None:
    line = "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[64,1024,1024] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc"
    scenarios.write(tmp_path, "console.log", [*scenarios.training(0, 20), line])
    assert diagnose_dir(tmp_path).category == "gpu_oom"


@pytest.mark.parametrize(
    "error",
    [
        "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 4653664 vs 4653552",
        "RuntimeError: [enforce fail at inline_container.cc:764] . PytorchStreamWriter failed writing file data/1: file write failed",
        "safetensors_rust.SafetensorError: Error while serializing: I/O error: Input/output error (os error 5)",
        'safetensors_rust.SafetensorError: Error while serializing: IoError(Os { code: 28, kind: StorageFull, message: "No space left on device" })',
    ],
)
def test_a_checkpoint_write_that_fails_is_disk_or_io(tmp_path: Path, diagnose_dir: Run, error: str) -> None:
    lines = [
        *scenarios.training(0, 20),
        "Traceback (most recent call last):",
        '  File "/workspace/train.py", line 140, in save',
        "    torch.save(state, path)",
        '  File "/opt/conda/lib/python3.10/site-packages/torch/serialization.py", line 652, in save',
        "    _save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)",
        error,
    ]
    scenarios.write(tmp_path, "rank0.log", lines)
    assert diagnose_dir(tmp_path).category == "disk_full_or_io"


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("[8d6bf97c3bf4:3039 :0:3095] Caught signal 7 (Bus error: nonexistent physical address)", "SIGBUS"),
        ("terminate called after throwing an instance of 'std::runtime_error'", "SIGABRT"),
        ("ERROR: Unexpected bus error encountered in worker.", "SIGBUS"),
        ("[rank: 1] Child process ... terminated with code -9", "SIGKILL"),
        ("srun: error: gpu-07: task 3: Exited with exit code 1", "exit"),
        ("**RuntimeError: boom**", "exception"),
        ("error：torch.cuda.OutOfMemoryError: CUDA out of memory.", "exception"),
    ],
)
def test_the_kind_of_a_fatal_line(line: str, kind: str) -> None:
    found = fallback.verdict_kind(line, after_traceback=False)
    assert found is not None and found[0] == kind


@pytest.mark.parametrize(
    "line",
    [
        "Sending process 140301 closing signal SIGTERM",  # the launcher's teardown: a consequence
        "Process finished with exit code 0",
        "KeyError",  # a bare name outside a traceback is no exception line
        "  0%|          | 0/77976 [00:00<?, ? examples/s]",
    ],
)
def test_lines_that_are_not_fatal(line: str) -> None:
    assert fallback.verdict_kind(line, after_traceback=False) is None


def test_every_class_has_an_entry_carrying_its_tag() -> None:
    """The classes are taxonomy categories the bundled entries explain, each picked by its tag."""
    entries = load_entries(ENTRIES_DIR)
    for cls in fallback.CLASSES.values():
        assert any(e.category == cls.category and cls.tag in e.tags for e in entries), cls
    assert fallback.CLASSES["SIGKILL"].confidence <= 0.5
