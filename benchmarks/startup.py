"""Start-up cost of `denpex diagnose` on a one-line log, in CPU seconds (the machine is shared).

    .venv/bin/python benchmarks/startup.py [--repeat 7]

CPU time (user + sys of the child, from `resource.getrusage(RUSAGE_CHILDREN)`) rather than wall time,
because wall time on a machine shared by several people measures their load, not ours. The first run
fills a fresh `$DENPEX_CACHE_DIR` (compiled Hyperscan databases, validated knowledge); the best of the
following runs is the number a person at a terminal pays on every call. `python -c pass` is printed
beside it as the floor. Also prints a cProfile summary of one warm run: where the rest goes.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DENPEX = Path(sys.executable).with_name("denpex")
TARGET_CPU = 0.15


def _cpu(cmd: list[str], env: dict[str, str]) -> float:
    """User + sys CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _profile(log: Path, env: dict[str, str]) -> str:
    """The top of a cProfile of one warm in-process run, by cumulative time."""
    os.environ.update(env)
    sys.argv = ["denpex", "diagnose", str(log), "--format", "json"]
    from denpex.cli import main

    prof = cProfile.Profile()
    out = sys.stdout
    sys.stdout = io.StringIO()
    try:
        prof.runcall(main)
    except SystemExit:
        pass
    finally:
        sys.stdout = out
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(25)
    return text.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--no-profile", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "rank0.log"
        log.write_text("[rank0]: hello from a job that did not fail\n")
        env = {**os.environ, "DENPEX_CACHE_DIR": str(Path(tmp) / "cache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # a real install has its bytecode compiled
        cmd = [str(DENPEX), "diagnose", str(log), "--format", "json"]
        cold = _cpu(cmd, env)
        warm = min(_cpu(cmd, env) for _ in range(a.repeat))
        floor = min(_cpu([sys.executable, "-c", "pass"], env) for _ in range(a.repeat))
        verdict = "met" if warm <= TARGET_CPU else "not met"
        print("| measure | CPU seconds |")
        print("|---|---|")
        print(f"| `python -c pass` (floor) | {floor:.3f} |")
        print(f"| `denpex diagnose` one-line log, empty cache (first run) | {cold:.3f} |")
        print(f"| `denpex diagnose` one-line log, warm cache (best of {a.repeat}) | {warm:.3f} |")
        print(f"\ntarget <= {TARGET_CPU} s CPU: {verdict}")
        if not a.no_profile:
            print("\n" + _profile(log, env))


if __name__ == "__main__":
    main()
