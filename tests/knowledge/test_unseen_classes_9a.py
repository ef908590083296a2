# ruff: noqa: E501 - realistic log lines are long
"""Version mismatches that read like the user's own Python error: a call made by an installed package
into another that changed, a model config from another transformers release, vLLM failing to import a
model. Each is a small log in the format its tool prints (not a copy of a case); the counter-examples
(the user's own script calling a library wrongly, a dispatcher calling the user's function) stay code
errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from denpex.core.models import Diagnosis
from tests.knowledge.engine_support import write_log as _log

Run = Callable[[Path], Diagnosis]


def test_a_signature_error_from_any_installed_package_is_api_drift(diagnose_dir: Run, tmp_path: Path) -> None:
    """The last frame is in site-packages of a package no list names: that package made the bad call."""
    log = (
        "[rank0]: Traceback (most recent call last):\n"
        '[rank0]:   File "/home/ana/proj/finetune.py", line 88, in <module>\n'
        "[rank0]:     trainer.train()\n"
        '[rank0]:   File "/opt/venv/lib/python3.10/site-packages/grpo_lab/trainer/loop.py", line 412, in train\n'
        "[rank0]:     self.ckpt.save_async(step, blocking=False)\n"
        '[rank0]:   File "/opt/venv/lib/python3.10/site-packages/grpo_lab/ckpt/async_saver.py", line 77, in save_async\n'
        "[rank0]:     self._writer.flush_shard(step, self._buf, True)\n"
        "[rank0]: TypeError: ShardWriter.flush_shard() takes from 2 to 3 positional arguments but 4 were given\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"


def test_a_signature_error_in_a_dist_packages_frame_is_api_drift(diagnose_dir: Run, tmp_path: Path) -> None:
    """Debian/Ubuntu images install into dist-packages: the same frame, the same reading."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/workspace/run_rm.py", line 31, in main\n'
        "    engine = build_engine(cfg)\n"
        '  File "/usr/local/lib/python3.12/dist-packages/rlkit/engine/builder.py", line 140, in build_engine\n'
        "    return SamplerPool(workers=cfg.workers, pin_memory=True)\n"
        "TypeError: SamplerPool.__init__() got an unexpected keyword argument 'pin_memory'\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"


def test_an_unquoted_library_frame_is_still_the_library(diagnose_dir: Run, tmp_path: Path) -> None:
    """A formatter that drops the quotes and shortens the path still names the library's directory."""
    log = (
        "ERROR 06-02 11:04:19 worker.py:233] Exception in capture:\n"
        "    File flashinfer/.../jit/attention/prefill.py, line 318\n"
        "      module = gen_prefill_module(backend, dtype_q, use_sliding_window=True)\n"
        "    TypeError: gen_prefill_module() got an unexpected keyword argument 'use_sliding_window'\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"


def test_a_model_config_missing_a_field_is_another_transformers_release(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """A model's code reads a config field its installed transformers moved (rope_theta in v5)."""
    log = (
        "[2026-02-11 08:12:40] INFO  loading checkpoint shards from /models/glm-mini\n"
        '  File "/opt/env/lib/python3.11/site-packages/fastserve/models/glm.py", line 52, in __init__\n'
        "    base = config.rope_theta\n"
        "AttributeError: 'GlmMiniConfig' object has no attribute 'rope_theta'\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"


def test_vllm_failing_to_inspect_a_model_is_the_environment(diagnose_dir: Run, tmp_path: Path) -> None:
    """vLLM could not import the model module in its subprocess: a dependency or build mismatch."""
    log = (
        "(EngineCore pid=812) Traceback (most recent call last):\n"
        '(EngineCore pid=812)   File "/srv/rollout/server.py", line 64, in start\n'
        "(EngineCore pid=812)     llm = LLM(model=path, tensor_parallel_size=4)\n"
        "(EngineCore pid=812) ValueError: Model architectures ['Gemma3ForConditionalGeneration'] failed to be inspected. Please check the logs for more details.\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "env_version_mismatch"


def test_the_users_script_calling_a_library_wrongly_stays_a_code_error(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """The call is in the project's own file: the user passed the wrong arguments."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/opt/venv/lib/python3.10/site-packages/torch/distributed/run.py", line 905, in main\n'
        "    run(args)\n"
        '  File "/home/ana/proj/train_cls.py", line 120, in <module>\n'
        "    loader = make_loader(ds, 32, True, 4)\n"
        "TypeError: make_loader() takes 3 positional arguments but 4 were given\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "shape_or_user_code_error"


def test_torch_calling_the_users_forward_stays_a_code_error(diagnose_dir: Run, tmp_path: Path) -> None:
    """torch's Module dispatch is in site-packages too, but it only calls the user's model."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/opt/venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1553, in _call_impl\n'
        "    return forward_call(*args, **kwargs)\n"
        '  File "/home/ana/proj/net.py", line 40, in forward\n'
        "    h = self.block(x, mask, cache)\n"
        '  File "/opt/venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1553, in _call_impl\n'
        "    return forward_call(*args, **kwargs)\n"
        "TypeError: ResBlock.forward() takes 3 positional arguments but 4 were given\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "shape_or_user_code_error"


def test_a_cli_dispatcher_calling_the_users_main_stays_a_code_error(
    diagnose_dir: Run, tmp_path: Path
) -> None:
    """click passes the command line's options to the user's function: an option it does not take."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/ana/proj/launch.py", line 70, in <module>\n'
        "    cli()\n"
        '  File "/opt/venv/lib/python3.10/site-packages/click/core.py", line 783, in invoke\n'
        "    return __callback(*args, **kwargs)\n"
        "TypeError: train() got an unexpected keyword argument 'warmup_ratio'\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "shape_or_user_code_error"


def test_a_hydra_config_missing_a_key_stays_a_code_error(diagnose_dir: Run, tmp_path: Path) -> None:
    """OmegaConf's DictConfig is the user's own config, not a model config from a library release."""
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/ana/proj/train.py", line 33, in main\n'
        "    lr = cfg.optim.lr_max\n"
        "AttributeError: 'DictConfig' object has no attribute 'lr_max'\n"
    )
    d = diagnose_dir(_log(tmp_path, log))
    assert d.category == "shape_or_user_code_error"
