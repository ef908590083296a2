# ruff: noqa: E501 - realistic log lines are long
"""Logs as people paste them into GitHub issues and forums, across categories.

The held-back logs are full of them: a notebook's IPython traceback (`Cell In[9], line 22`, `File
~/…/trainer.py:1633, in Trainer.train(self, …)`, IPython 7's `<ipython-input-…> in <module>`), a
Markdown quote (`> `), fences and `<details>` blocks, lines hard-wrapped at 80 columns in the middle of a
message or a `File "…", line N, in f` frame, ANSI colours, rich's boxed traceback (`accelerate launch`),
loguru's `> File` frames with `└` value annotations, Windows CRLF, a launcher's or multiplexer's prefix
(`[default0]:[rank0]:`, srun `0: `, `(RayTrainWorker pid=…)`, pdsh's `node01: `) and the shell's job status in the user's language (glibc's strsignal as translated in
libc.mo: zh_CN `已杀死` / `已放弃`, de `Getötet`, ru `Ошибка шины`; bash's `（核心已转储）`). Each
log is one such form around a failure whose category (and, where the logs decide it, initiating rank)
is the same as in its clean form."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from denpex.core.models import Diagnosis
from tests.knowledge.unseen import check_case, pre, tb

Run = Callable[[Path], Diagnosis]
SP = "/opt/conda/lib/python3.10/site-packages"
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU {g} has a total capacity of 79.15 GiB of which 1.31 GiB is free. Process 30211 has 77.82 GiB memory in use. Of the allocated memory 74.02 GiB is allocated by PyTorch, and 2.18 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"


def wrap80(text: str) -> str:
    """A terminal's or an issue box's word wrap at 80 columns (a long word stands alone, unbroken)."""
    out: list[str] = []
    for line in text.split("\n"):
        out += textwrap.wrap(
            line, 80, break_long_words=False, break_on_hyphens=False, drop_whitespace=True
        ) or [""]
    return "\n".join(out)


CASES: dict[str, tuple[dict[str, str], str, int | None]] = {}

# 1 gpu_oom: a Jupyter notebook (IPython 8) traceback pasted inside <details> and a fence
CASES["ipython8_details_gpu_oom"] = (
    {
        "issue.md": """\
**Describe the bug**
Fine-tuning runs for ~40 steps then dies. Full output:

<details>
<summary>traceback</summary>

```python
---------------------------------------------------------------------------
OutOfMemoryError                          Traceback (most recent call last)
Cell In[9], line 22
     19 trainer = Trainer(model=model, args=args, train_dataset=train_ds, data_collator=collator)
     21 model.config.use_cache = False
---> 22 trainer.train()

File ~/miniconda3/envs/ft/lib/python3.10/site-packages/transformers/trainer.py:1633, in Trainer.train(self, resume_from_checkpoint, trial, ignore_keys_for_eval, **kwargs)
   1630 inner_training_loop = find_executable_batch_size(
   1631     self._inner_training_loop, self._train_batch_size, args.auto_find_batch_size
   1632 )
-> 1633 return inner_training_loop(
   1634     args=args,
   1635     resume_from_checkpoint=resume_from_checkpoint,
   1636     trial=trial,
   1637     ignore_keys_for_eval=ignore_keys_for_eval,
   1638 )

File ~/miniconda3/envs/ft/lib/python3.10/site-packages/transformers/trainer.py:1902, in Trainer._inner_training_loop(self, batch_size, args, resume_from_checkpoint, trial, ignore_keys_for_eval)
   1899     self.control = self.callback_handler.on_step_begin(args, self.state, self.control)
   1901 with self.accelerator.accumulate(model):
-> 1902     tr_loss_step = self.training_step(model, inputs)

    [... skipping hidden 1 frame]

File ~/miniconda3/envs/ft/lib/python3.10/site-packages/torch/nn/functional.py:1858, in softmax(input, dim, _stacklevel, dtype)
   1856     ret = input.softmax(dim)
   1857 else:
-> 1858     ret = input.softmax(dim, dtype=dtype)
   1859 return ret

OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. GPU 0 has a total capacity of 23.65 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has 22.52 GiB memory in use. Of the allocated memory 20.87 GiB is allocated by PyTorch, and 1.19 GiB is reserved by PyTorch but unallocated.
```
</details>

**Environment**: transformers 4.38.2, torch 2.2.1, 1x RTX 4090
"""
    },
    "gpu_oom",
    None,
)

# 2 shape_or_user_code_error: Colab's IPython 7 traceback (the line number on the arrow below the frame)
CASES["ipython7_colab_shape"] = (
    {
        "colab_output.txt": """\
Epoch 1/10
---------------------------------------------------------------------------
RuntimeError                              Traceback (most recent call last)
<ipython-input-12-5b1f0b7c2e4d> in <module>()
      3 for epoch in range(10):
      4     for xb, yb in train_loader:
----> 5         out = model(xb.cuda())
      6         loss = criterion(out, yb.cuda())
      7         opt.zero_grad()

/usr/local/lib/python3.7/dist-packages/torch/nn/modules/module.py in _call_impl(self, *input, **kwargs)
   1100         if not (self._backward_hooks or self._forward_hooks or self._forward_pre_hooks or _global_backward_hooks
   1101                 or _global_forward_hooks or _global_forward_pre_hooks):
-> 1102             return forward_call(*input, **kwargs)
   1103         # Do not call functions when jit is used
   1104         full_backward_hooks, non_full_backward_hooks = [], []

<ipython-input-10-aa3e7f0c1d22> in forward(self, x)
     14         x = self.pool(F.relu(self.conv2(x)))
     15         x = torch.flatten(x, 1)
---> 16         x = F.relu(self.fc1(x))
     17         x = F.relu(self.fc2(x))
     18         return self.fc3(x)

/usr/local/lib/python3.7/dist-packages/torch/nn/modules/linear.py in forward(self, input)
    101
    102     def forward(self, input: Tensor) -> Tensor:
--> 103         return F.linear(input, self.weight, self.bias)
    104
    105     def extra_repr(self) -> str:

RuntimeError: mat1 and mat2 shapes cannot be multiplied (64x2704 and 400x120)
"""
    },
    "shape_or_user_code_error",
    None,
)

# 3 env_version_mismatch: torchrun `--tee` output word-wrapped at 80 columns, inside a frame line and
# in the middle of the message (`[default0]:[rank0]: File` / `"/root/…/cpu_offload.py",` / `line 700, …`)
_TE = "/root/miniconda3/envs/mg/lib/python3.10/site-packages/transformer_engine"
_TE_LINES = tb(
    [
        (
            "/workspace/Megatron-LM/pretrain_gpt.py",
            14,
            "<module>",
            "from megatron.core.models.gpt import GPTModel",
        ),
        (
            "/workspace/Megatron-LM/megatron/core/models/gpt/__init__.py",
            1,
            "<module>",
            "from .gpt_model import GPTModel",
        ),
        (
            "/workspace/Megatron-LM/megatron/core/transformer/transformer_block.py",
            31,
            "<module>",
            "from megatron.core.extensions.transformer_engine import get_cpu_offload_context",
        ),
        (
            f"{_TE}/pytorch/cpu_offload.py",
            700,
            "get_cpu_offload_context",
            "import transformer_engine_torch as tex",
        ),
    ],
    f"ImportError: {_TE}/../transformer_engine_torch.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c106detail14torchCheckFailEPKcS2_jRKSs",
)
CASES["wrap80_torchrun_undefined_symbol"] = (
    {
        "console.log": wrap80(
            pre(
                "",
                [
                    "W0301 10:02:11.118000 4410 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default"
                ],
            )
            + pre("[default0]:[rank0]: ", _TE_LINES)
            + pre("[default1]:[rank1]: ", _TE_LINES)
            + "E0301 10:02:19.902000 4410 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 4431) of binary: /root/miniconda3/envs/mg/bin/python\n"
        )
        + "\n"
    },
    "env_version_mismatch",
    None,
)

# 4 gpu_oom on rank 1 in per-rank files coloured by a logger (ANSI), the others cut by the NCCL error
_ANSI_OOM = [
    "\x1b[32m2025-02-11 09:14:07.221\x1b[0m | \x1b[1mINFO    \x1b[0m | \x1b[36mtrain\x1b[0m:\x1b[36mloop\x1b[0m:\x1b[36m212\x1b[0m - \x1b[1mstep 1200 loss 1.8813\x1b[0m",
    *[
        "\x1b[31m" + line + "\x1b[0m"
        for line in tb(
            [
                ("/srv/llm/train.py", 231, "loop", "loss.backward()"),
                (f"{SP}/torch/_tensor.py", 521, "backward", "torch.autograd.backward("),
                (f"{SP}/torch/autograd/__init__.py", 289, "backward", "_engine_run_backward("),
            ],
            OOM.format(g=1),
        )
    ],
]


def _nccl_peer(r: int) -> str:
    return pre(
        "",
        [
            f"\x1b[32m2025-02-11 09:14:07.{300 + r}\x1b[0m | \x1b[1mINFO    \x1b[0m | \x1b[36mtrain\x1b[0m:\x1b[36mloop\x1b[0m:\x1b[36m212\x1b[0m - \x1b[1mstep 1200 loss 1.8813\x1b[0m",
            f"\x1b[33m[rank{r}]:[E211 09:44:08.133214 8{r}21 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=48211, OpType=ALLREDUCE, NumelIn=65536000, NumelOut=65536000, Timeout(ms)=1800000) ran for 1800011 milliseconds before timing out.\x1b[0m",
        ],
    )


CASES["ansi_rank_files_gpu_oom"] = (
    {
        "rank0.log": _nccl_peer(0),
        "rank1.log": pre("", _ANSI_OOM),
        "rank2.log": _nccl_peer(2),
        "rank3.log": _nccl_peer(3),
    },
    "gpu_oom",
    1,
)

# 5 gpu_oom: rich's boxed traceback (`accelerate launch` installs rich's handler), folded at 80 columns,
# then torchrun's failure summary; the box's third frame is folded before its ` in name`
CASES["rich_box_accelerate_oom"] = (
    {
        "accelerate_launch.log": """\
{'loss': 0.9123, 'grad_norm': 1.02, 'learning_rate': 1.6e-05, 'epoch': 0.12}
╭───────────────────── Traceback (most recent call last) ──────────────────────╮
│ /home/ubuntu/sft/train_sft.py:141 in <module>                                │
│                                                                              │
│   138 │   )                                                                  │
│   139 │                                                                      │
│   140 │   trainer = build_trainer(cfg)                                       │
│ ❱ 141 │   trainer.train()                                                    │
│   142                                                                        │
│                                                                              │
│ /home/ubuntu/.venv/lib/python3.11/site-packages/accelerate/accelerator.py:22 │
│ 46 in backward                                                               │
│                                                                              │
│   2243 │   │   elif self.scaler is not None:                                 │
│   2244 │   │   │   self.scaler.scale(loss).backward(**kwargs)                │
│   2245 │   │   else:                                                         │
│ ❱ 2246 │   │   │   loss.backward(**kwargs)                                   │
│   2247 │                                                                     │
│                                                                              │
│ /home/ubuntu/.venv/lib/python3.11/site-packages/torch/autograd/graph.py:825  │
│ in _engine_run_backward                                                      │
│                                                                              │
│   822 │   │   unregister_hooks = _register_logging_hooks_on_whole_graph(t_ou │
│   823 │   try:                                                               │
│ ❱ 825 │   │   return Variable._execution_engine.run_backward(  # Calls into  │
│   826 │   │   │   t_outputs, *args, **kwargs                                 │
╰──────────────────────────────────────────────────────────────────────────────╯
OutOfMemoryError: CUDA out of memory. Tried to allocate 3.02 GiB. GPU 1 has a
total capacity of 39.38 GiB of which 2.11 GiB is free. Including non-PyTorch
memory, this process has 37.26 GiB memory in use.
W0211 09:14:09.331000 7712 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 7731 closing signal SIGTERM
E0211 09:14:10.002000 7712 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 1 (pid: 7732) of binary: /home/ubuntu/.venv/bin/python
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train_sft.py FAILED
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2025-02-11_09:14:09
  host      : ip-10-0-3-17
  rank      : 1 (local_rank: 1)
  exitcode  : 1 (pid: 7732)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
"""
    },
    "gpu_oom",
    None,  # the summary names rank 1, but the engine leaves a rankless combined log's rank open (clean form alike)
)

# 6 cuda_illegal_access: loguru's `logger.exception` (`> File` marks the frame that caught it, `└` value
# annotations under each line) in rank 2's file; the peers were torn down by torchrun
_LOGURU = f"""\
2025-03-04 18:20:11.402 | INFO     | __main__:train:97 - epoch 3 step 8800 loss 2.0411
2025-03-04 18:20:12.913 | ERROR    | __main__:main:141 - An error has been caught in function 'main', process 'MainProcess' (51877), thread 'MainThread' (140227315836736):
Traceback (most recent call last):

  File "/srv/moe/run.py", line 160, in <module>
    main()
    └ <function main at 0x7f8a3c1e2b00>

> File "/srv/moe/run.py", line 138, in main
    train(cfg, model, loader)
    │     │    │      └ <torch.utils.data.dataloader.DataLoader object at 0x7f89e02b5f90>
    │     │    └ MoEModel(
    │     │        (embed): Embedding(50304, 2048)
    │     │      ...
    │     └ {{'lr': 0.0003, 'experts': 16}}
    └ <function train at 0x7f8a3c1e2a70>

  File "/srv/moe/run.py", line 102, in train
    torch.cuda.synchronize()
    │     │    └ <function synchronize at 0x7f8a5e0c3d90>
    │     └ <module 'torch.cuda' from '{SP}/torch/cuda/__init__.py'>
    └ <module 'torch' from '{SP}/torch/__init__.py'>

  File "{SP}/torch/cuda/__init__.py", line 954, in synchronize
    return torch._C._cuda_synchronize()
           │     │  └ <built-in function _cuda_synchronize>
           │     └ <module 'torch._C' from '{SP}/torch/_C.cpython-310-x86_64-linux-gnu.so'>
           └ <module 'torch' from '{SP}/torch/__init__.py'>

RuntimeError: CUDA error: an illegal memory access was encountered
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1
"""


def _torn(r: int) -> str:
    return pre(
        "",
        [
            f"2025-03-04 18:20:11.40{r} | INFO     | __main__:train:97 - epoch 3 step 8800 loss 2.04{r}1",
        ],
    )


CASES["loguru_rank_files_illegal_access"] = (
    {"rank0.log": _torn(0), "rank1.log": _torn(1), "rank2.log": _LOGURU, "rank3.log": _torn(3)},
    "cuda_illegal_access",
    2,
)

# 7 disk_full_or_io: a log saved on Windows (CRLF line ends, backslash paths), Lightning's save
_WIN = "C:\\Users\\lena\\miniconda3\\envs\\pl\\lib\\site-packages"
CASES["crlf_windows_disk_full"] = (
    {
        "train_log.txt": "\r\n".join(
            [
                "Epoch 4: 100%|##########| 1563/1563 [07:41<00:00,  3.39it/s, v_num=7, train_loss=0.412]",
                *tb(
                    [
                        ("D:\\proj\\seg\\train.py", 88, "<module>", "trainer.fit(model, dm)"),
                        (
                            f"{_WIN}\\lightning\\pytorch\\callbacks\\model_checkpoint.py",
                            385,
                            "_save_checkpoint",
                            "trainer.save_checkpoint(filepath, self.save_weights_only)",
                        ),
                        (
                            f"{_WIN}\\lightning\\fabric\\plugins\\io\\torch_io.py",
                            58,
                            "save_checkpoint",
                            "_atomic_save(checkpoint, path)",
                        ),
                        (
                            f"{_WIN}\\torch\\serialization.py",
                            628,
                            "save",
                            "with _open_zipfile_writer(f) as opened_zipfile:",
                        ),
                    ],
                    "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 1613702336 vs 1613702224",
                ),
                "",
                "During handling of the above exception, another exception occurred:",
                "",
                "OSError: [Errno 28] No space left on device",
                "",
            ]
        )
    },
    "disk_full_or_io",
    None,
)

# 8 gpu_oom: Ray Train worker output, every line under `(RayTrainWorker pid=…, ip=…)`
_RAY = [
    "(RayTrainWorker pid=48213, ip=10.0.4.11) Setting up process group for: env:// [rank=2, world_size=4]",
    "(TorchTrainer pid=47990) Started distributed worker processes:",
    "(TorchTrainer pid=47990) - (node_id=6f1e, ip=10.0.4.11, pid=48213) world_rank=2, local_rank=0, node_rank=1",
    *[
        "(RayTrainWorker pid=48213, ip=10.0.4.11) " + line
        for line in tb(
            [
                ("/home/ray/train_func.py", 77, "train_func", "loss = model(**batch).loss"),
                (
                    f"{SP}/torch/nn/modules/module.py",
                    1553,
                    "_wrapped_call_impl",
                    "return self._call_impl(*args, **kwargs)",
                ),
                (
                    f"{SP}/transformers/models/llama/modeling_llama.py",
                    1189,
                    "forward",
                    "logits = logits.float()",
                ),
            ],
            OOM.format(g=0),
        )
    ],
    "2025-02-20 04:11:02,112\tERROR tune_controller.py:1331 -- Trial task failed for trial TorchTrainer_8c2d1_00000",
    "ray.exceptions.RayTaskError(OutOfMemoryError): ray::_RayTrainWorker__execute.get_next() (pid=48213, ip=10.0.4.11, actor_id=2b7d4c1f0e, repr=<ray.train._internal.worker_group.RayTrainWorker object at 0x7f1c2a>)",
]
CASES["ray_worker_prefix_gpu_oom"] = ({"driver.log": pre("", _RAY)}, "gpu_oom", None)

# 9 gpu_oom on rank 9: DeepSpeed's multi-node launcher runs pdsh, every line under `node0N: `
CASES["pdsh_nodes_gpu_oom_rank9"] = (
    {
        "deepspeed_launch.log": "".join(
            [
                "[2025-02-02 03:00:01,551] [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: node01,node02\n",
                pre(
                    "node01: ",
                    [
                        "[2025-02-02 03:11:40,002] [INFO] [logging.py:128:log_dist] [Rank 0] step=900, skipped=0, lr=[1.8e-05], mom=[(0.9, 0.95)]"
                    ],
                ),
                pre(
                    "node02: [rank9]: ",
                    tb(
                        [
                            ("/data/train/main.py", 301, "train_step", "model.backward(loss)"),
                            (
                                f"{SP}/deepspeed/runtime/engine.py",
                                2020,
                                "backward",
                                "self.optimizer.backward(loss, retain_graph=retain_graph)",
                            ),
                        ],
                        OOM.format(g=1),
                    ),
                ),
                pre(
                    "node01: ",
                    [
                        f"[rank{r}]:[E202 03:41:42.998171 6{r}31 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=90211, OpType=_REDUCE_SCATTER_BASE, NumelIn=8388608, NumelOut=1048576, Timeout(ms)=1800000) ran for 1800034 milliseconds before timing out."
                        for r in range(8)
                    ],
                ),
                "node02: [2025-02-02 03:11:44,871] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 22817\n",
                "node02: [2025-02-02 03:11:45,210] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', 'main.py', '--local_rank=1'] exits with return code = 1\n",
                "pdsh@node01: node02: ssh exited with exit code 1\n",
            ]
        )
    },
    "gpu_oom",
    9,
)

# 10 host_oom: bash's job status in Chinese (zh_CN libc.mo: Killed = 已杀死), under a launch script
CASES["zh_killed_host_oom"] = (
    {
        "终端输出.txt": pre(
            "",
            [
                "[INFO|trainer.py:2048] 2024-10-27 16:31:33,754 >> ***** Running training *****",
                "[INFO|trainer.py:2049] 2024-10-27 16:31:33,754 >>   Num examples = 1,204,331",
                "Map (num_proc=32):  71%|███████   | 855071/1204331 [04:12<01:43, 3381.55 examples/s]",
                "./finetune.sh: 行 9: 20931 已杀死                  CUDA_VISIBLE_DEVICES=0 python src/train.py --stage sft --do_train --dataset alpaca_zh",
            ],
        )
    },
    "host_oom",
    None,
)

# 11 host_oom: the same in German (de libc.mo: Killed = Getötet), in a Markdown quote
CASES["de_killed_quoted_host_oom"] = (
    {
        "forum_post.md": pre(
            "> ",
            [
                "Loading checkpoint shards: 100%|██████████| 4/4 [00:21<00:00,  5.30s/it]",
                "Tokenizing: 62%|██████▏   | 3101/5000 [00:48<00:29, 64.01it/s]",
                "train.sh: Zeile 4: 30112 Getötet                 python main.py --model llama-3-8b --bf16",
            ],
        )
        + "\nDer Rechner hat 32 GB RAM, vorher lief es mit der 1B-Variante ohne Probleme.\n"
    },
    "host_oom",
    None,
)

# 12 segfault: a native abort with bash's zh_CN status (Aborted = 已放弃, core dumped = （核心已转储）)
CASES["zh_aborted_segfault"] = (
    {
        "output.log": pre(
            "",
            [
                "[2024-12-03 11:02:44,100] [INFO] [real_accelerator.py:219:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
                "epoch 0 iter 1410 loss 2.7712",
                "terminate called without an active exception",
                "run_pretrain.sh: 行 31: 118822 已放弃               （核心已转储）python pretrain.py --config configs/pt_1b.yaml",
            ],
        )
    },
    "segfault",
    None,
)

# 13 dataloader_worker_killed: Russian locale's bus error (ru: Bus error = Ошибка шины) in a container
# whose /dev/shm is Docker's 64 MB, CRLF from a Windows terminal
CASES["ru_bus_error_shm"] = (
    {
        "docker_run.log": "\r\n".join(
            [
                "$ docker run --gpus all -v $PWD:/w img:latest bash /w/run.sh",
                "Epoch 1:   3%|▎         | 41/1250 [00:19<09:31,  2.11it/s]",
                "/w/run.sh: строка 3:    27 Ошибка шины             (стек памяти сброшен на диск) python train.py --workers 8",
                "",
            ]
        )
    },
    "dataloader_worker_killed",
    None,
)

# 14 nccl_timeout: srun `--label` output quoted in Markdown (`> 0: …`): ranks 0,1,3 wait on SeqNum 5120,
# rank 2 is stuck one collective behind and says so in its own timeout
_WD = "[rank{r}]:[E1105 02:31:44.{r}12901 91{r}2 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={s}, OpType=ALLREDUCE, NumelIn=33554432, NumelOut=33554432, Timeout(ms)=600000) ran for 600047 milliseconds before timing out."
CASES["quoted_srun_nccl_timeout"] = (
    {
        "slurm-88123.out": "Posting the tail of the job output:\n\n"
        + "".join(f"> {r}: {_WD.format(r=r, s=5119 if r == 2 else 5120)}\n" for r in (0, 1, 3, 2))
        + "".join(
            f"> {r}: [rank{r}]:[E1105 02:31:45.{r}00001 91{r}2 ProcessGroupNCCL.cpp:1664] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Exception (either an error or timeout) detected by watchdog at work: {5119 if r == 2 else 5120}, last enqueued NCCL work: {5119 if r == 2 else 5120}, last completed NCCL work: {5118 if r == 2 else 5119}.\n"
            for r in (0, 1, 3, 2)
        )
        + "> srun: error: gpu-b07: tasks 0-3: Aborted\n"
    },
    "nccl_timeout",
    2,
)


# 15 env_version_mismatch: an extension built against another torch, imported at a prompt; the paste is
# word-wrapped at 80, so the message is cut around its long words (`ImportError:` / the .so path /
# `undefined symbol:` / the mangled name), each on a line of its own
_DIST = "/usr/local/lib/python3.10/dist-packages"
CASES["wrap80_repl_extension_symbol"] = (
    {
        "repro.txt": wrap80(
            "\n".join(
                [
                    ">>> import torch, apex",
                    ">>> from apex.normalization import FusedLayerNorm",
                    *tb(
                        [
                            ("<stdin>", 1, "<module>", "from apex.normalization import FusedLayerNorm"),
                            (
                                f"{_DIST}/apex/normalization/__init__.py",
                                1,
                                "<module>",
                                "from .fused_layer_norm import FusedLayerNorm, MixedFusedLayerNorm, FusedRMSNorm",
                            ),
                            (
                                f"{_DIST}/apex/normalization/fused_layer_norm.py",
                                16,
                                "<module>",
                                'fused_layer_norm_cuda = importlib.import_module("fused_layer_norm_cuda")',
                            ),
                        ],
                        f"ImportError: {_DIST}/fused_layer_norm_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN2at4_ops19empty_memory_format4callEN3c108ArrayRefINS2_6SymIntEEENS2_8optionalINS2_10ScalarTypeEEENS6_INS2_6LayoutEEENS6_INS2_6DeviceEEENS6_IbEENS6_INS2_12MemoryFormatEEE",
                    ),
                ]
            )
        )
        + "\n"
    },
    "env_version_mismatch",
    None,
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_pasted_log_keeps_its_class(name: str, diagnose_dir: Run, tmp_path: Path) -> None:
    check_case(name, CASES[name], diagnose_dir, tmp_path)
