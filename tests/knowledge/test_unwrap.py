"""Hard-wrapped pastes are re-joined before the scan; logs that are not wrapped are left alone."""

from __future__ import annotations

from pathlib import Path

from denpex.core.models import LogSource
from knowledge.unwrap import rejoin, rejoin_text

# as a terminal copy of Chinese-Vicuna#81 shows it (cut at 80 columns)
WRAPPED = (
    "OutOfMemoryError: CUDA out of memory. Tried to allocate 16.00 MiB (GPU 0; 14.75 \n"
    "GiB total capacity; 12.97 GiB already allocated; 6.81 MiB free; 13.69 GiB \n"
    "reserved in total by PyTorch) If reserved memory is >> allocated memory try \n"
    "setting max_split_size_mb to avoid fragmentation.  See documentation for Memory \n"
    "Management and PYTORCH_CUDA_ALLOC_CONF\n"
)


def test_a_wrapped_error_becomes_one_line() -> None:
    joined = rejoin_text(WRAPPED)
    assert joined is not None
    first = joined.split("\n")[0]
    assert "(GPU 0; 14.75 GiB total capacity; 12.97 GiB already allocated; 6.81 MiB free;" in first
    assert first.endswith("PYTORCH_CUDA_ALLOC_CONF")


def test_records_after_a_full_line_stay_apart() -> None:
    text = (
        "[2024-05-01 10:00:00,001] INFO step 1 loss 2.0 lr 1e-4 tokens/s 3000 mem 61.0GiB grad_norm 0.9\n"
        "[2024-05-01 10:00:01,001] INFO step 2 loss 1.9 lr 1e-4 tokens/s 3000 mem 61.0GiB grad_norm 0.9\n"
        "[2024-05-01 10:00:02,001] INFO step 3 loss 1.8 lr 1e-4 tokens/s 3000 mem 61.0GiB grad_norm 0.9\n"
        "Traceback (most recent call last):\n"
    )
    assert rejoin_text(text) is None


def test_an_unwrapped_log_is_left_as_it_is(tmp_path: Path) -> None:
    log = tmp_path / "rank0.log"
    log.write_text("short line\n" + "x" * 400 + "\nKilled\n")
    src = LogSource(name="rank0.log", path=log)
    assert rejoin(src) is src


def test_a_wrapped_file_is_scanned_from_memory(tmp_path: Path) -> None:
    log = tmp_path / "console.log"
    log.write_text(WRAPPED)
    out = rejoin(LogSource(name="console.log", path=log))
    assert out.path is None and out.data is not None
    assert b"14.75 GiB total capacity" in out.data


def test_big_sources_are_never_read_whole(tmp_path: Path) -> None:
    log = tmp_path / "big.log"
    log.write_bytes(WRAPPED.encode() * 20000)  # over a megabyte
    src = LogSource(name="big.log", path=log)
    assert rejoin(src) is src


# a torchrun `--tee` paste word-wrapped at 80 columns: a path longer than the width stands on a line
# of its own, so the frame header is broken after `File` and before `line N, in f`
WORD_WRAPPED = (
    "[default0]:[rank0]: Traceback (most recent call last):\n"
    "[default0]:[rank0]:   File\n"
    '"/root/miniconda3/envs/mg/lib/python3.10/site-packages/transformer_engine/pytorch/cpu_offload.py",\n'
    "line 700, in get_cpu_offload_context\n"
    "[default0]:[rank0]:     import transformer_engine_torch as tex\n"
    "[default0]:[rank0]: ImportError:\n"
    "/root/miniconda3/envs/mg/lib/python3.10/site-packages/transformer_engine_torch.cpython-310-x86_64-linux-gnu.so:\n"
    "undefined symbol:\n"
    "_ZN2at4_ops19empty_memory_format4callEN3c108ArrayRefINS2_6SymIntEEENS2_8optionalINS2_10ScalarTypeEEE\n"
)


def test_a_frame_broken_around_a_long_path_is_joined() -> None:
    joined = rejoin_text(WORD_WRAPPED)
    assert joined is not None
    lines = joined.split("\n")
    assert lines[1] == (
        '[default0]:[rank0]:   File "/root/miniconda3/envs/mg/lib/python3.10/site-packages/'
        'transformer_engine/pytorch/cpu_offload.py", line 700, in get_cpu_offload_context'
    )
    assert lines[2] == "[default0]:[rank0]:     import transformer_engine_torch as tex"
    assert lines[3].startswith("[default0]:[rank0]: ImportError: /root/")
    assert ".so: undefined symbol: _ZN2at4_ops19empty_memory_format" in lines[3]


def test_a_word_wraps_line_of_exactly_the_width_keeps_its_space() -> None:
    text = (
        "[rank2]:[E105 21:06:21.601716799 ProcessGroupNCCL.cpp:607] [Rank 2] Watchdog\n"
        "caught collective operation timeout: WorkNCCL(SeqNum=356, OpType=ALLREDUCE,\n"
        "NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800022 milliseconds\n"
        "before timing out.\n"
    )
    joined = rejoin_text(text)
    assert joined is not None
    assert "[Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=356," in joined
    assert "OpType=ALLREDUCE, NumelIn=1," in joined
