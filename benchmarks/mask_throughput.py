"""Throughput of `Masker.mask()` over a realistic training log with rare secrets.

    .venv/bin/python benchmarks/mask_throughput.py [--size-mb 64] [--secret-every 20000] [--repeat 3]
        [--python-mb 4]

Builds an in-memory log of realistic rank output (step lines, NCCL INFO, tracebacks, env dumps
without secrets) with one secret line every `--secret-every` lines, then times, on one core:
  * `mask()` with the Hyperscan detector (what the pipeline runs),
  * `mask_lines()` over the same text split into lines,
  * `mask()` with the pure-`re` detector (the fallback where no Hyperscan wheel exists) on a smaller
    log of the same kind (`--python-mb`), as it is two orders of magnitude slower.
Prints MB/s (best of `--repeat`) and checks that every planted secret is gone.
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from knowledge.masking import Masker

NOISE = [
    "[rank{r}]: [2026-11-20 03:{m:02d}:{s:02d},{ms:03d}] INFO step {step}/50000 loss={loss:.4f} lr=3.00e-04 "
    "grad_norm={gn:.3f} tokens/s={tps} Tokens per second: {tps}.5",
    "gpu-{n:02d}:{pid}:{pid} [{r}] NCCL INFO comm 0x{addr:x} rank {r} nranks 64 cudaDev {d} busId {bus:x}000 "
    "commId 0x{cid:x} - Init COMPLETE",
    "[rank{r}]: saved /mnt/ckpt/3f2504e0-4f89-11d3-9a0c-0305e82c3301/global_step{step} sha256={sha}",
    "#{d}  0x00007f{addr:08x} in ncclProxyProgress () from /usr/lib/x86_64-linux-gnu/libnccl.so.2",
    '[rank{r}]:   File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", line {step}, '
    "in _call_impl",
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:512 NCCL_DEBUG=INFO PWD=/home/alice",
    "[rank{r}]: tokenizer: pad_token=<unk> eos_token=</s> vocab_size=32000 max_tokens=4096",
]


def secret_line(rng: random.Random) -> tuple[str, str]:
    """A line holding one fake secret, and the secret."""
    alnum = string.ascii_letters + string.digits
    token = "hf_" + "".join(rng.choice(alnum) for _ in range(34))
    password = "Pw" + "".join(rng.choice(alnum) for _ in range(14))
    return rng.choice(
        [
            (f"HF_TOKEN={token} torchrun --nproc_per_node=8 train.py", token),
            (f"MLFLOW_TRACKING_URI=https://trainer:{password}@mlflow.internal", password),
            (f'{{"username": "ci", "password": "{password}"}}', password),
        ]
    )


def build_log(size: int, every: int, seed: int = 7) -> tuple[str, list[str]]:
    rng = random.Random(seed)
    lines: list[str] = []
    secrets: list[str] = []
    total = 0
    while total < size:
        if len(lines) % every == every - 1:
            line, secret = secret_line(rng)
            secrets.append(secret)
        else:
            line = rng.choice(NOISE).format(
                r=rng.randrange(64),
                m=rng.randrange(60),
                s=rng.randrange(60),
                ms=rng.randrange(1000),
                step=rng.randrange(50000),
                loss=rng.random() * 4,
                gn=rng.random(),
                tps=rng.randrange(10**6),
                n=rng.randrange(16),
                pid=rng.randrange(10**5),
                addr=rng.getrandbits(32),
                d=rng.randrange(8),
                bus=rng.randrange(256),
                cid=rng.getrandbits(64),
                sha=f"{rng.getrandbits(256):064x}",
            )
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines) + "\n", secrets


def best_of(repeat: int, fn: Callable[[], str]) -> tuple[float, str]:
    best, out = float("inf"), ""
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=float, default=64)
    ap.add_argument("--secret-every", type=int, default=20000, help="one secret line every N lines")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--python-mb", type=float, default=4, help="size for the slow pure-re fallback run")
    args = ap.parse_args()

    text, secrets = build_log(int(args.size_mb * (1 << 20)), args.secret_every)
    mb = len(text.encode()) / 1e6
    hs, py = Masker.default(), Masker.default(use_hyperscan=False)
    lines = text.split("\n")
    small, small_secrets = build_log(int(args.python_mb * (1 << 20)), args.secret_every)
    runs = [
        (f"mask() [{hs.backend}]", text, secrets, lambda: hs.mask(text)),
        (f"mask_lines() [{hs.backend}]", text, secrets, lambda: "\n".join(hs.mask_lines(lines))),
        (f"mask() [{py.backend}]", small, small_secrets, lambda: py.mask(small)),
    ]
    print(f"log: {mb:.1f} MB, {len(lines) - 1} lines, {len(secrets)} secrets (1 per {args.secret_every})")
    print("| what | MB | seconds | MB/s |\n|---|---|---|---|")
    for name, src, planted, fn in runs:
        seconds, out = best_of(args.repeat, fn)
        leaked = sum(s in out for s in planted)
        if leaked or out.count("\n") != src.count("\n"):
            sys.exit(f"{name}: {leaked} secrets left or line count changed")
        size = len(src.encode()) / 1e6
        print(f"| {name} | {size:.1f} | {seconds:.3f} | {size / seconds:.0f} |")


if __name__ == "__main__":
    main()
