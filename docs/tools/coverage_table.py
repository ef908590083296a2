"""Regenerate the tables of `docs/coverage.md` from the entries' `source` fields.

The coverage page claims which framework's wording of which failure class the knowledge base
recognises. A hand-kept table goes stale the day an entry gains a signature, so the part between
`<!-- coverage:begin -->` and `<!-- coverage:end -->` is generated here and `tests/docs` fails
when the page and the entries disagree.

usage: python docs/tools/coverage_table.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from knowledge.schema import CATEGORIES, Entry, load_entries

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "coverage.md"
BEGIN, END = "<!-- coverage:begin -->", "<!-- coverage:end -->"

#: (column, framework, source prefixes) in column order; the first prefix that matches names it.
FRAMEWORKS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("PT", "PyTorch", ("pytorch/", "https://github.com/pytorch/", "https://pytorch.org")),
    (
        "NCCL",
        "NCCL",
        ("NVIDIA/nccl", "https://docs.nvidia.com/deeplearning/nccl", "https://github.com/NVIDIA/nccl"),
    ),
    (
        "CUDA",
        "CUDA runtime and libraries",
        (
            "https://docs.nvidia.com/cuda",
            "https://docs.nvidia.com/deeplearning/cud",
            "NVIDIA/TransformerEngine",
            "https://github.com/NVIDIA/TransformerEngine",
        ),
    ),
    (
        "DS",
        "DeepSpeed",
        ("microsoft/DeepSpeed", "deepspeedai/DeepSpeed", "https://github.com/microsoft/DeepSpeed"),
    ),
    ("HF", "HF Transformers", ("huggingface/transformers", "https://github.com/huggingface/transformers")),
    ("Acc", "HF Accelerate", ("huggingface/accelerate", "https://github.com/huggingface/accelerate")),
    ("PL", "PyTorch Lightning", ("Lightning-AI/", "https://github.com/Lightning-AI/")),
    ("Meg", "Megatron-LM", ("NVIDIA/Megatron-LM", "https://github.com/NVIDIA/Megatron-LM")),
    ("apex", "apex", ("NVIDIA/apex", "https://github.com/NVIDIA/apex")),
    ("fs", "fairseq", ("facebookresearch/fairseq", "https://github.com/facebookresearch/fairseq")),
    (
        "TF",
        "TensorFlow / XLA",
        ("tensorflow/", "https://github.com/tensorflow/", "https://github.com/openxla/"),
    ),
    ("Ray", "Ray", ("ray-project/", "https://github.com/ray-project/", "https://docs.ray.io")),
    ("Slurm", "Slurm", ("SchedMD/slurm", "https://slurm.schedmd.com", "https://github.com/SchedMD/")),
    ("k8s", "Kubernetes", ("kubernetes/", "https://kubernetes.io", "https://github.com/kubernetes/")),
    (
        "Linux",
        "Linux kernel",
        ("torvalds/linux", "https://www.kernel.org", "https://man7.org/linux/man-pages/man2/"),
    ),
    (
        "Xid",
        "NVIDIA driver (Xid, NVML)",
        (
            "https://docs.nvidia.com/deploy",
            "https://docs.nvidia.com/datacenter",
            "https://github.com/NVIDIA/open-gpu",
        ),
    ),
    ("Py", "CPython", ("python/cpython", "https://docs.python.org", "https://github.com/python/cpython")),
    (
        "libc",
        "glibc / libc / shell",
        (
            "bminor/glibc",
            "https://sourceware.org",
            "https://www.gnu.org",
            "https://man7.org/linux/man-pages/man",
        ),
    ),
)
OTHER = ("other", "other (threads, vendors' pages, other libraries)")


def framework_of(source: str) -> str:
    """The column of one signature's `source` (`owner/repo@tag:path` or a URL)."""
    for column, _, prefixes in FRAMEWORKS:
        if source.startswith(prefixes):
            return column
    return OTHER[0]


def _columns() -> list[tuple[str, str]]:
    return [(c, name) for c, name, _ in FRAMEWORKS] + [OTHER]


def _tables(entries: Sequence[Entry]) -> list[str]:
    per_cell: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    signatures = with_source = 0
    for entry in entries:
        for sig in entry.signatures:
            signatures += 1
            with_source += bool(sig.source.strip())
            per_cell[(framework_of(sig.source), entry.category)][entry.id] += 1
    names = dict(_columns())
    out = [
        f"{signatures} signatures of {len(entries)} entries; with a source: **{with_source}/{signatures}**.",
        "",
        "## Framework x category -> entries",
        "",
        "| framework | category | entries (signatures) |",
        "|---|---|---|",
    ]
    for column, _ in _columns():
        for category in CATEGORIES:
            cell = per_cell.get((column, category))
            if cell:
                listed = ", ".join(f"`{e}` ({n})" for e, n in sorted(cell.items()))
                out.append(f"| {names[column]} | `{category}` | {listed} |")
    out += ["", "## Category x framework (number of signatures)", ""]
    out.append("| category | " + " | ".join(c for c, _ in _columns()) + " |")
    out.append("|---|" + "---|" * len(_columns()))
    for category in CATEGORIES:
        counts = [sum(per_cell.get((c, category), Counter()).values()) for c, _ in _columns()]
        out.append(f"| `{category}` | " + " | ".join(str(n) if n else "" for n in counts) + " |")
    legend = "; ".join(f"{c} = {name}" for c, name in _columns())
    out += ["", f"Columns: {legend}."]
    return out


def render(page: str, entries: Sequence[Entry]) -> str:
    """`page` with its generated part replaced; a page without the markers is an error."""
    head, sep, rest = page.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise ValueError(f"{PAGE.name} lacks the {BEGIN} / {END} markers")
    return head + BEGIN + "\n" + "\n".join(_tables(entries)) + "\n" + END + tail


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the page is stale; write nothing")
    args = parser.parse_args(argv)
    page = PAGE.read_text(encoding="utf-8")
    fresh = render(page, load_entries())
    if args.check:
        if fresh != page:
            print(f"{PAGE} is stale: run python docs/tools/coverage_table.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
