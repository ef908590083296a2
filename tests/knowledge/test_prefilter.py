"""The literal prefilter: once-a-chunk patterns found through their literals give the hits one database
of every pattern gives (`knowledge/prefilter.py`, `knowledge/patterns.py` `_Frequent`)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from knowledge import patterns
from knowledge.patterns import Database, Pattern, PatternSet
from knowledge.phases import TailMarkers, load_markers
from knowledge.prefilter import literals_for, necessary_literals

needs_hyperscan = pytest.mark.skipif(patterns.hyperscan is None, reason="no hyperscan wheel")


@pytest.mark.parametrize(
    ("regex", "want"),
    [
        (r"Saving model checkpoint to ", ("Saving model checkpoint to ",)),
        (
            r"[Ss]aving (?:the )?model",
            ("Saving model", "Saving the model", "saving model", "saving the model"),
        ),
        (r"\{'loss': [0-9.]+|\{\"loss\": [0-9.]+", ('"loss": ', "'loss': ")),
        (r"iteration +[0-9]+/ *[0-9]+ \| consumed samples", (" | consumed samples",)),
    ],
)
def test_literals_every_match_contains(regex: str, want: tuple[str, ...]) -> None:
    found = necessary_literals(regex)
    assert found is not None and found.strings == want


@pytest.mark.parametrize(
    "regex",
    [
        r"Checkpoint [^ ]+ is ready now",  # `[^ ]` matches a line break: a match may span lines
        r"abc\sdefgh",
        r"step[[:digit:]]+ loss",  # a POSIX class: Python reads it as a set of characters
        r"(?i)saving checkpoint",  # group options
        r"\x{41}bcdefg",  # PCRE's escape, not Python's
        r"[0-9]+%",  # no literal of four characters
        r"(ab)cdef\1",  # back reference
    ],
)
def test_no_literals_where_they_cannot_be_proven(regex: str) -> None:
    assert necessary_literals(regex) is None


def test_caseless_literals_are_folded() -> None:
    found = necessary_literals(r"Saving (?:model|CKPT)", caseless=True)
    assert found is not None and found.strings == ("saving ckpt", "saving model")


def test_literals_are_cached(tmp_path: Path) -> None:
    items = [(r"Saving model checkpoint to ", False), (r"Checkpoint [^ ]+ is ready", False)]
    first = literals_for(items, tmp_path)
    assert first == [necessary_literals(r, c) for r, c in items]
    assert literals_for(items, tmp_path) == first
    assert list(tmp_path.glob("literals-*.json"))


def _marker_log(seed: int, lines: int) -> bytes:
    """Training-like lines with every marker's own example text sprinkled in (so each marker hits)."""
    rnd = random.Random(seed)
    samples = [
        "Saving model checkpoint to /ckpt/checkpoint-500",
        "{'loss': 0.2931, 'grad_norm': 1.2, 'epoch': 0.5}",
        "  iteration      100/    2000 | consumed samples:        12800",
        "epoch 001:   10 / 500 loss=2.1",
        "Epoch 3:  45%|####      | 45/100",
        "[Rank 0] step=200, skipped=0, lr=[0.0001]",
        "Loading checkpoint shards: 100%|####| 4/4",
        "Running evaluation",
        "gpu-01:4001:4101 [1] NCCL INFO Channel 00/0 : 1 -> 2 [send] via NET/IB/1",
        "[default1]:[rank1]: step 5 loss 0.3",
        "Checkpoint global_step500 is about to be\nsaved!",
        "the loss went down",
        "Epoch 3 done",
    ]
    out = []
    for i in range(lines):
        out.append(
            rnd.choice(samples) if rnd.random() < 0.05 else f"[INFO] step {i} tokens/s {rnd.randrange(9999)}"
        )
    return ("\n".join(out) + "\n").encode()


@needs_hyperscan
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_once_a_chunk_patterns_hit_as_in_one_database(seed: int) -> None:
    markers = load_markers()
    pats = [
        Pattern(i, m.pattern, m.caseless, "phase", m.id, single=m.frequent) for i, m in enumerate(markers)
    ]
    pats.append(
        Pattern(
            len(pats),
            r"^[A-Za-z0-9][A-Za-z0-9._-]*:[0-9]+:[0-9]+ \[[0-9]+\] NCCL ",
            False,
            "fact",
            "h",
            single=True,
        )
    )
    data = _marker_log(seed, 20_000)
    one, split = Database(pats), PatternSet(pats)
    for start in range(0, len(data), 64 << 10):  # chunks, as the scanner cuts them
        chunk = data[start : start + (64 << 10)]
        assert split.scan(chunk) == one.scan(chunk)


@needs_hyperscan
def test_tail_markers_pick_the_marker_the_plain_loop_picks() -> None:
    markers = load_markers()
    tail = TailMarkers(markers)
    lines = _marker_log(4, 3000).decode().splitlines()
    lines += ["SAVING CHECKPOINT now", "Saving checkpoint", "Writing the model checkpoint"]
    numbered = list(enumerate(lines, 1))
    got = [(m.line, m.marker) for m in tail.marks(numbered)]
    want = []
    for line, text in numbered:
        for i, rx in enumerate(tail.rx):
            if rx.search(text):
                want.append((line, i))
                break
    assert got == want and want
