# ruff: noqa: E501 - realistic log lines are long
"""Failure classes from the December 6 (ninth round, helper b) corpus misses, each as a small log in the
format its tool prints (not a copy of a case): an exception line whose message wrapped onto the next
line, a cut `FileExistsError`, ENODATA from a mount, the Neuron runtime's bounds check, a TPU slice's
chip failure and an unreadable rendezvous endpoint; with the look-alikes that must stay as they are."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from denpex.core.models import Diagnosis
from knowledge.fallback import verdict_kind
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]

# a Lightning FSDP save through FSDP1's state-dict unshard, as a terminal paste shows it
_UNSHARD_SAVE = (
    "Traceback (most recent call last):\n"
    '  File "/srv/jobs/vit/fit.py", line 88, in <module>\n'
    "    trainer.fit(model, datamodule=dm)\n"
    '  File "/opt/venv/lib/python3.11/site-packages/lightning/pytorch/strategies/fsdp.py", line 560, in save_checkpoint\n'
    "    state = self.lightning_module.state_dict()\n"
    '  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/fsdp/_state_dict_utils.py", line 263, in _full_pre_state_dict_hook\n'
    "    _common_unshard_pre_state_dict_hook(\n"
    '  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/fsdp/_state_dict_utils.py", line 130, in _common_unshard_pre_state_dict_hook\n'
    "    _enter_unshard_params_ctx(\n"
)


def test_a_wrapped_assertion_ending_a_save_trace_is_the_code_not_a_gather_oom(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """`AssertionError:` alone on its line: CPython prints the colon only before a message, so the message
    went on the next line; that exception, not the unshard frames above it, says what failed."""
    log = _UNSHARD_SAVE + (
        "AssertionError:\nExpects the flat parameter to live on cuda:3, found it on cpu after an offload\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "shape_or_user_code_error"


def test_a_wrapped_runtime_error_ending_a_save_trace_is_the_code(diagnose_dir: Run, tmp_path: Path) -> None:
    log = _UNSHARD_SAVE + "RuntimeError:\n  Parameter 'blocks.3.attn.qkv.weight' was not materialised\n"
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "shape_or_user_code_error"


def test_the_same_save_trace_ending_in_a_cuda_oom_stays_the_gather(diagnose_dir: Run, tmp_path: Path) -> None:
    log = _UNSHARD_SAVE + (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.25 GiB. GPU 0 has a total capacity of 39.39 GiB of which 310.06 MiB is free.\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "gpu_oom_checkpoint_gather"


def test_a_wrapped_oom_message_under_a_bare_runtime_error_stays_the_gather(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """The message wrapped onto the next line is itself the OOM: it decides."""
    log = _UNSHARD_SAVE + (
        "RuntimeError:\n"
        "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 1; 39.39 GiB total capacity; 37.80 GiB already allocated)\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "gpu_oom_checkpoint_gather"


def test_a_name_with_a_trailing_colon_is_an_exception_line() -> None:
    assert verdict_kind("KeyError:", False) == ("exception", "KeyError", True)
    assert verdict_kind("(Trainer pid=811, ip=10.0.4.7) ValueError:  ", False) == (
        "exception",
        "ValueError",
        True,
    )
    # a bare name without a traceback above it is still no verdict (a word in a sentence-less line)
    assert verdict_kind("KeyError", False) is None


def test_a_cut_file_exists_error_in_a_save_is_the_filesystem(diagnose_dir: Run, tmp_path: Path) -> None:
    """`FileExistsError: [Errno 17]` names its errno; a paste cut inside the words is the same error."""
    log = (
        '[rank5]:   File "/app/ckpt/writer.py", line 57, in stage_dir\n'
        "[rank5]:     os.makedirs(target, exist_ok=True)\n"
        '[rank5]:   File "<frozen os>", line 225, in makedirs\n'
        "[rank5]: FileExistsError: [Errno 17] Fi\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "disk_full_or_io"


def test_a_missing_file_stays_the_code(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "prep.py", line 12, in <module>\n'
        "    open(cfg.vocab_path)\n"
        "FileNotFoundError: [Errno 2] No such file or directory: 'vocab/merges.txt'\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "shape_or_user_code_error"


def test_enodata_from_a_copy_on_a_mount_is_the_filesystem(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/opt/conda/lib/python3.10/shutil.py", line 256, in copyfile\n'
        "    _fastcopy_sendfile(fsrc, fdst)\n"
        "OSError: [Errno 61] No data available: '/lustre/cache/compiled/graph_7731.bin' -> '/scratch/tmp3x/graph_7731.bin'\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "disk_full_or_io"


def test_errno_61_of_macos_is_a_refused_connection_not_the_disk(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "client.py", line 30, in <module>\n'
        "    sock.connect((host, 8080))\n"
        "ConnectionRefusedError: [Errno 61] Connection refused\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category != "disk_full_or_io"


def test_the_neuron_runtimes_out_of_bounds_copy_is_a_device_side_index_error(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    log = (
        "2025-Feb-03 10:02:11.120044 4411:4502 ERROR  TDRV:generate_custom_notification_msg        nd1:nc3:h_model.id1004: Received notification generated at runtime: failed to run scatter/gather (indirect memory copy), due to out-of-bound access. isa instruction line number = 42. model name = /var/tmp/neuron-compile-cache/MODULE_88/model.neff\n"
        "2025-Feb-03 10:02:11.120391 4411:4502 ERROR  NMGR:dlr_infer                               Inference completed with err: 1006. mode->h_nn=1004, start_nc=3, nc_count=1\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "device_side_assert"


def test_a_tpu_slice_chip_driver_failure_is_the_accelerator(diagnose_dir: Run, tmp_path: Path) -> None:
    """The missed health checks are the consequence; the chip failure the slice's handler names decides."""
    log = (
        "W0302 04:10:12.100200     702 session_master.cc:539] The task with address train-v5p-1.svc:8471 missed 1 health checks.The most recent health check failed with the following error: UNAVAILABLE: failed to connect to all addresses\n"
        "E0302 04:10:12.100488     702 session_master.cc:505] Session is failing with the following status: Session master detected TPU session error from worker train-v5p-3.svc:8471.\n"
        "E0302 04:10:12.100610     702 tpunetd_client.cc:311] Detected failure SLICE_FAILURE_CHIP_DRIVER_ERROR in session 4f1a0c; Start failure handling\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "gpu_hardware_xid"


def test_missed_tpu_health_checks_alone_are_not_a_chip_fault(diagnose_dir: Run, tmp_path: Path) -> None:
    log = "W0302 04:10:12.100200     702 session_master.cc:539] The task with address train-v5p-1.svc:8471 missed 1 health checks.The most recent health check failed with the following error: UNAVAILABLE: failed to connect to all addresses\n"
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category != "gpu_hardware_xid"


def test_an_unreadable_rendezvous_port_is_a_rendezvous_failure(diagnose_dir: Run, tmp_path: Path) -> None:
    """An IPv6 literal without brackets in `tcp://…`: urllib reads its colons as the port, inside torch's
    rendezvous handler, so no rank can meet."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/work/rl/sync/weights.py", line 41, in open_update_group\n'
        '    store, rank, world = next(rendezvous(f"tcp://{addr}:{port}", 1, 3))\n'
        '  File "/usr/lib/python3.11/site-packages/torch/distributed/rendezvous.py", line 210, in _tcp_rendezvous_handler\n'
        "    if not result.port:\n"
        '  File "/usr/lib/python3.11/urllib/parse.py", line 178, in port\n'
        '    raise ValueError(f"Port could not be cast to integer value as {port!r}")\n'
        "ValueError: Port could not be cast to integer value as '8a2e:370:7334:29500'\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "rendezvous_failure"


def test_torchs_own_rendezvous_url_error_is_a_rendezvous_failure(diagnose_dir: Run, tmp_path: Path) -> None:
    log = "ValueError: Error initializing torch.distributed using tcp:// rendezvous: port number missing\n"
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "rendezvous_failure"


def test_a_bad_port_in_a_users_http_client_stays_the_code(diagnose_dir: Run, tmp_path: Path) -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "report.py", line 19, in <module>\n'
        "    push_metrics(os.environ['METRICS_URL'])\n"
        '  File "/usr/lib/python3.11/urllib/parse.py", line 178, in port\n'
        '    raise ValueError(f"Port could not be cast to integer value as {port!r}")\n'
        "ValueError: Port could not be cast to integer value as 'metrics'\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "shape_or_user_code_error"
