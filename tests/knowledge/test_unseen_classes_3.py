# ruff: noqa: E501 - realistic log lines are long
"""Failure classes from the second December blind corpus round, each as a small log in the format its
tool prints (not a copy of a case): Ray's message for a worker that vanished (its docs give it for the
Linux OOM killer; it lists SIGSEGV only as a possibility), and CPython's error for a script that starts
processes without the `__main__` guard."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from denpex.core.models import Diagnosis
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]

RAY_DIED = (
    "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.\n"
    "\tclass_name: ActorWorker\n"
    "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit "
    "detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some potential "
    "root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop "
    "--force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.\n"
)


def test_rays_lost_worker_is_a_host_oom_with_the_checkpoint_as_its_alternative(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    d = diagnose_dir(_log(tmp_path, RAY_DIED))
    assert d.category == "host_oom"  # Ray's docs: the message of a worker the OOM killer ended
    assert "cpu_oom_checkpoint" in {a.category for a in d.alternatives}
    assert d.missing_evidence, "what decides it (the phase, the node's dmesg) is named"


def test_rays_lost_worker_during_a_save_is_a_checkpoint_host_oom(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "(ActorWorker pid=3312) [2024-05-02 10:00:00,000] INFO step 500/500 loss=0.91\n"
        "(ActorWorker pid=3312) [2024-05-02 10:00:05,000] INFO Saving model checkpoint to /ckpt/actor/global_step500\n"
        + RAY_DIED
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "cpu_oom_checkpoint"


def test_a_message_that_only_lists_sigsegv_as_possible_is_not_a_segfault(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    assert diagnose_dir(_log(tmp_path, RAY_DIED)).category != "segfault"


def test_a_real_sigsegv_still_is(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "[pool0-1616:1864777:0:1864777] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x8)\n"
        "torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -11) local_rank: 0 (pid: 1864777) of binary: /usr/bin/python\n"
        "  traceback : Signal 11 (SIGSEGV) received by PID 1864777\n"
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "segfault"


def test_starting_processes_without_the_main_guard_is_a_code_error(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "<string>", line 1, in <module>\n'
        '  File "/usr/lib/python3.10/multiprocessing/spawn.py", line 116, in spawn_main\n'
        "    exitcode = _main(fd, parent_sentinel)\n"
        '  File "/usr/lib/python3.10/multiprocessing/spawn.py", line 134, in _check_not_importing_main\n'
        "RuntimeError:\n"
        "        An attempt has been made to start a new process before the\n"
        "        current process has finished its bootstrapping phase.\n"
        "\n"
        "        This probably means that you are not using fork to start your\n"
        "        child processes and you have forgotten to use the proper idiom\n"
        "        in the main module:\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "shape_or_user_code_error"
    assert "bootstrapping" in " ".join(e.text for e in d.initiating.evidence) or "proper idiom" in " ".join(
        e.text for e in d.initiating.evidence
    )


def test_a_kill_while_transformers_writes_the_saved_files_is_a_checkpoint_host_oom(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = (
        "{'loss': 0.8123, 'grad_norm': 1.02, 'learning_rate': 4.9e-05, 'epoch': 0.5}\n"
        "[INFO|configuration_utils.py:472] 2024-06-01 10:00:00,000 >> Configuration saved in saves/qwen2-7b/checkpoint-500/config.json\n"
        "[2024-06-01 10:00:40,000] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'src/train.py', '--local_rank=0'] exits with return code = -9\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "cpu_oom_checkpoint"
    assert d.initiating.phase == "checkpoint_save"


def test_accelerates_last_saved_file_ends_the_save(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "05/03/2025 05:18:40 - INFO - accelerate.accelerator - Saving current state to out/checkpoint-3000\n"
        "05/03/2025 05:18:41 - INFO - accelerate.checkpointing - Model weights saved in out/checkpoint-3000/model.safetensors\n"
        "05/03/2025 05:18:41 - INFO - accelerate.checkpointing - Random states saved in out/checkpoint-3000/random_states_0.pkl\n"
        "torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 0 (pid: 4410) of binary: /usr/bin/python3\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "host_oom"  # the save had ended (its last file written): not a checkpoint OOM
    assert d.initiating.phase == "train"


def test_a_private_api_called_with_a_signature_it_no_longer_has_is_a_version_mismatch(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/opt/venv/lib/python3.10/site-packages/transformers/models/llama/modeling_llama.py", line 512, in forward\n'
        "[rank0]:     attn_output = _flash_attention_forward(query_states, key_states, value_states, attention_mask, q_len, softcap=self.softcap)\n"
        "[rank0]: TypeError: _flash_attention_forward() got an unexpected keyword argument 'softcap'\n"
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "env_version_mismatch"


def test_a_public_function_called_wrongly_stays_a_code_error(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/workspace/train.py", line 88, in <module>\n'
        "    loss = compute_loss(model, batch, 0.1)\n"
        "TypeError: compute_loss() takes 2 positional arguments but 3 were given\n"
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "shape_or_user_code_error"


def test_an_oom_kill_reported_in_words_or_by_the_kubelet_is_a_host_oom(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    for text in (
        "12:22:38  Container was OOM killed by the kernel (exit 137)\n",
        "Warning  SystemOOM  3m  kubelet  System OOM encountered, victim process: python, pid: 23114\n",
    ):
        assert diagnose_dir(_log(tmp_path, text)).category == "host_oom", text


def test_the_rank_whose_watchdog_enqueued_least_is_the_one_the_others_waited_for(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    def status(rank: int, seq: int, enqueued: int, completed: int) -> str:
        return (
            f"[rank{rank}]:[E918 19:29:2{rank}.436955737 ProcessGroupNCCL.cpp:689] [Rank {rank}] Watchdog caught collective "
            f"operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=64, NumelOut=64, Timeout(ms)=600000) ran for 600074 milliseconds before timing out.\n"
            f"[rank{rank}]:[E918 19:29:2{rank}.440481846 ProcessGroupNCCL.cpp:2303] [PG ID 0 PG GUID 0(default_pg) Rank {rank}]  failure "
            f"detected by watchdog at work sequence id: {seq} PG status: last enqueued work: {enqueued}, last completed work: {completed}\n"
        )

    log = (
        status(0, 7221, 7236, 7220)
        + status(1, 7221, 7236, 7220)
        + status(2, 7219, 7219, 7218)
        + status(3, 7221, 7230, 7220)
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "nccl_timeout"
    assert d.initiating.rank == 2


def test_equal_enqueued_counts_name_no_rank(diagnose_dir: Run, tmp_path: Path) -> None:
    log = "".join(
        f"[rank{r}]:[E918 19:29:2{r}.4 ProcessGroupNCCL.cpp:2303] [PG ID 0 PG GUID 0(default_pg) Rank {r}]  failure detected by "
        f"watchdog at work sequence id: 90 PG status: last enqueued work: 90, last completed work: 89\n"
        f"[rank{r}]:[E918 19:29:2{r}.5 ProcessGroupNCCL.cpp:689] [Rank {r}] Watchdog caught collective operation timeout: "
        f"WorkNCCL(SeqNum=90, OpType=ALLREDUCE, NumelIn=64, NumelOut=64, Timeout(ms)=600000) ran for 600074 milliseconds before timing out.\n"
        for r in range(4)
    )
    assert diagnose_dir(_log(tmp_path, log)).initiating.rank is None


def test_an_uncorrectable_ecc_error_explains_the_cuda_errors_after_it(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/code/megatron/training.py", line 381, in train_step\n'
        "    loss = model[0].train_batch(data_iter=data_iterator)\n"
        '  File "/env/lib/python3.8/site-packages/torch/autograd/__init__.py", line 145, in backward\n'
        "    Variable._execution_engine.run_backward(\n"
        "RuntimeError: transform: failed to synchronize: cudaErrorECCUncorrectable: uncorrectable ECC error encountered\n"
        "Traceback (most recent call last):\n"
        '  File "/code/megatron/initialize.py", line 140, in _compile_dependencies\n'
        "    torch.distributed.barrier()\n"
        "RuntimeError: CUDA error: out of memory\n"
    )
    assert diagnose_dir(_log(tmp_path, log)).category == "gpu_hardware_xid"
