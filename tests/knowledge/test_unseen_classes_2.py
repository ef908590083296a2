# ruff: noqa: E501 - realistic log lines are long
"""Failure classes from the December blind corpus round, each as a small log in the format its tool
prints (not a copy of a case): an NCCL WARN at communicator set-up, a launcher tearing workers down
while the model is being built, a log that stops at the TCPStore's socket lines, a stalled object-store
upload at save, and messages of Lightning, torchvision, vLLM, cpp_extension and torch.multinomial."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]


def test_an_nccl_warn_at_set_up_is_a_communicator_error_not_a_silent_rendezvous(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = (
        "host1:100:100 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.4<0>\n"
        "host1:100:200 [0] NCCL INFO comm 0x55d0 rank 0 nranks 2 cudaDev 0 busId 100000 - Init START\n"
        "host1:100:200 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /etc/nccl/topo.xml\n"
        "host1:100:200 [0] graph/xml.cc:420 NCCL WARN Could not find PCI device 0000:b1:00.0\n"
        "host1:100:200 [0] NCCL INFO graph/topo.cc:680 -> 2\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "nccl_comm_error"
    assert "NCCL WARN" in d.initiating.evidence[0].text


def test_a_benign_nccl_warn_does_not_outrank_the_real_failure(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "host1:100:200 [0] NCCL WARN NET/Plugin : Plugin load (libnccl-net.so) returned 2\n"
        "step 10 loss 2.1\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.12 GiB is free.\n"
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "gpu_oom"


def test_workers_torn_down_while_the_model_is_built_is_a_load_time_host_oom(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = (
        "[2024-03-01 10:00:00,000] [INFO] [RANK 0] building GPT2Model model ...\n"
        "[2024-03-01 10:00:20,000] [INFO] [RANK 0]  > number of parameters on model parallel rank 0: 6738415616\n"
        "[2024-03-01 10:01:00,000] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 2001\n"
        "[2024-03-01 10:01:01,000] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 2002\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "cpu_oom_checkpoint"
    assert d.initiating.phase == "model_load"


def test_a_log_that_stops_at_the_stores_socket_lines_is_a_rendezvous_wait(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = (
        "Using distributed PyTorch with gloo backend\n"
        "[I socket.cpp:648] [c10d - trace] The client socket is attempting to connect to [master-0]:23456.\n"
        "[I socket.cpp:725] [c10d] The client socket has connected to [master-0]:23456 on [worker-0]:38244.\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "rendezvous_failure"
    assert d.initiating.phase == "rendezvous"
    assert "waiting for a peer" in d.root_cause and "OOM killer" not in d.root_cause


def test_a_stalled_object_store_upload_is_a_storage_failure(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "INFO :: Saving checkpoint at step 30000 to gs://bucket/run/step-30000\n"
        "W0000 00:00:1715498963.019816  583764 curl_transport.cc:444] Error [28]=Timeout was reached in curl operation\n"
        "Operation too slow. Less than 1024 bytes/sec transferred the last 60 seconds\n"
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "disk_full_or_io"


@pytest.mark.parametrize(
    ("line", "category"),
    [
        (
            "RuntimeError: It looks like your LightningModule has parameters that were not used in producing the loss returned by training_step.",
            "ddp_unused_parameters",
        ),
        (
            "RuntimeError: Your training graph has changed in this iteration, e.g., one parameter is used twice or unused in the previous iteration",
            "ddp_unused_parameters",
        ),
        (
            "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions. PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.8.",
            "env_version_mismatch",
        ),
        (
            "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla V100-SXM2-32GB GPU has compute capability 7.0.",
            "env_version_mismatch",
        ),
        ("RuntimeError: Ninja is required to load C++ extensions", "env_version_mismatch"),
        (
            "RuntimeError: probability tensor contains either `inf`, `nan` or element < 0",
            "nan_divergence",
        ),
        (
            "ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable MASTER_ADDR expected, but not set",
            "rendezvous_failure",
        ),
        ("RuntimeError: Stop_waiting response is expected", "rendezvous_failure"),
        (
            "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: PjRT_Client_Connect. Timed out task names:",
            "rendezvous_failure",
        ),
        (
            "numpy.core._exceptions._ArrayMemoryError: Unable to allocate 74.5 GiB for an array with shape (100000, 100000) and data type float64",
            "host_oom",
        ),
        (
            "RuntimeError: Failed to import transformers.models.llama.modeling_llama because of the following error (look up to see its traceback):",
            "env_version_mismatch",
        ),
        (
            "RuntimeError: CUDA error: uncorrectable NVLink error was detected during the execution",
            "gpu_hardware_xid",
        ),
    ],
)
def test_one_line_messages_of_the_frameworks(
    diagnose_dir: Run, tmp_path: Path, line: str, category: str
) -> None:
    assert diagnose_dir(_log(tmp_path, line + "\n")).category == category


def test_a_notebook_traceback_cut_before_its_message_still_names_the_oom(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = (
        "OutOfMemoryError                          Traceback (most recent call last)\n"
        "Cell In[9], line 22\n"
        "---> 22 trainer.train()\n"
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "gpu_oom"
    # the notebook bar shows global_step + 1: frozen on step 500 done, the Trainer's save step
    # (knowledge/savestep.py; corpus r-001 is this log, labelled the save's gather OOM)
    bar = " [ 501/1500 06:35 < 13:11, 1.26 it/s, Epoch 1/3]\n"
    (tmp_path / "bar").mkdir()
    assert diagnose_dir(_log(tmp_path / "bar", bar + log)).category == "gpu_oom_checkpoint_gather"


def test_notebook_frames_give_the_phase(diagnose_dir: Run, tmp_path: Path) -> None:
    """IPython writes frames as `File …/trainer.py:2356, in Trainer._save_checkpoint(self, …)`."""
    site = "File ~/envs/t/lib/python3.10/site-packages"
    log = (
        "OutOfMemoryError                          Traceback (most recent call last)\n"
        f"{site}/transformers/trainer.py:2356, in Trainer._save_checkpoint(self, model, trial, metrics)\n"
        "-> 2356 self.save_model(output_dir, _internal_call=True)\n"
        f"{site}/torch/nn/modules/module.py:1818, in Module.state_dict(self, destination, prefix)\n"
        "OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB (GPU 0; 14.75 GiB total capacity; 13.52 GiB already allocated; 10.81 MiB free; 13.77 GiB reserved in total by PyTorch)\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "gpu_oom_checkpoint_gather"
    assert d.initiating.phase == "checkpoint_save"


def test_a_notebook_key_error_header_is_a_user_code_error(diagnose_dir: Run, tmp_path: Path) -> None:
    log = "KeyError                                  Traceback (most recent call last)\nCell In[3], line 5\n"
    assert diagnose_dir(_log(tmp_path, log)).category == "shape_or_user_code_error"


def test_the_child_multiprocessing_spawn_names_is_the_rank(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 300, in <module>\n'
        "    torch.multiprocessing.spawn(main, nprocs=4, args=(cfg,))\n"
        "torch.multiprocessing.spawn.ProcessExitedException: process 2 terminated with signal SIGKILL\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert (d.category, d.initiating.rank) == ("host_oom", 2)


def test_a_kill_after_nemos_save_started_line_is_a_checkpoint_oom(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "[NeMo I 2024-05-01 10:00:00 model_checkpoint:300] Checkpoint save for step 1000 started at 1714557600.0.\n"
        "Killed\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert (d.category, d.initiating.phase) == ("cpu_oom_checkpoint", "checkpoint_save")


def test_the_code_line_below_a_frame_is_kept_as_evidence(diagnose_dir: Run, tmp_path: Path) -> None:
    """The frame names the function; the line below names the call in it that failed."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 174, in save_checkpoint\n'
        "    state = get_state_dict(model, optim, options=StateDictOptions(full_state_dict=True))\n"
        "RuntimeError: [enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 16777216 bytes.\n"
    )
    texts = [e.text for e in diagnose_dir(_log(tmp_path, log)).initiating.evidence]
    assert any("get_state_dict(model" in t for t in texts), texts


def test_ranks_whose_own_logs_all_stop_alike_name_no_rank(diagnose_dir: Run, tmp_path: Path) -> None:
    run = tmp_path / "logs" / "none_x" / "attempt_0"
    for r in range(3):
        (run / str(r)).mkdir(parents=True)
        (run / str(r) / "stderr.log").write_text(
            "[I socket.cpp:725] [c10d] The client socket has connected to [master-0]:29500 on [w]:38244.\n"
        )
    d = diagnose_dir(tmp_path / "logs")
    assert d.category == "rendezvous_failure"
    assert d.initiating.rank is None


def test_a_kill_while_megatron_builds_its_dataset_index_is_a_data_phase_host_oom(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = (
        " > building train, validation, and test datasets ...\n"
        "\tBuild and save the document index to /data/cache/doc_idx.npy\n"
        "Killed\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert (d.category, d.initiating.phase) == ("host_oom", "data")


def test_a_nan_loss_without_fp16_lines_is_the_plain_divergence(diagnose_dir: Run, tmp_path: Path) -> None:
    d = diagnose_dir(
        _log(tmp_path, "step 40 loss 2.31\nstep 41 loss nan\nValueError: Loss is nan, stopping training\n")
    )
    assert (d.category, d.entry.id if d.entry else None) == ("nan_divergence", "nan-loss-divergence")


def test_the_loss_scale_floor_is_the_fp16_divergence(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 2, reducing to 1\n"
        "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert (d.category, d.entry.id if d.entry else None) == ("nan_divergence", "nan-loss-scale-divergence")
