"""The labelled corpus (tests/corpus: real failure logs from public issue threads, each labelled from
its thread's resolution) scored in one process with the same comparison as the shared scorer.

The floors only rise for the same cases. They are met by being right about failure classes, never by
matching a file: the judged set is a larger hidden corpus of the same kind. A round of blind cases
(written by another author, scored once before any change) may lower the measured score; the floor is
then set to what the engine scores on the grown corpus, never to fit a case (December rounds t- to w-:
0.91 -> 0.89 and 0.79 -> 0.77, their misses being logs without the deciding fact; December 6 round
x- to o-: rank 0.97 -> 0.93, its misses a PR description's one-line fragment that names no rank, a
Horovod shutdown printed by a waiting rank while the rank that finished early wrote nothing, and a
race of several ranks where torchrun's summary names another rank than the traceback shown; category
0.89 -> 0.87 after ab- and ad-, whose misses are library releases' bugs that read as ordinary
exceptions). December 6 (second) round af- to aj- (38 cases, 27 categories right first): category
0.879 -> 0.886 after the fixes (floor 0.87 -> 0.88); rank 0.938 -> 0.924 (floor 0.93 -> 0.92), its
miss a deliberate desync where one rank issued an extra collective and PyTorch's desync report names
the other rank as the one that "didn't join": which branch was wrong is in the code, not the log.
Round three, ak- to ao- (18 cases, 15 right first, 16 now): checkpoint classes 52/67 -> 53/69 (floor
0.77 -> 0.76), its miss a consolidation OOM whose thread lost the traceback's error line. Round
four, ap- to as- (15 cases, 13 right first and 0 of 1 rank, 14 and 1 of 1 now); round five, at- to
av- from merged pull requests (22 cases, 13 right first, 17 now); aw-001 (0 of 1: NCCL's "failed or timed
out" on a cluster without InfiniBand, a network fault that reads as a timeout) took category to 0.880
(403/458; floor 0.88 -> 0.87). December 6 (third session): ay- to bn- (68 cases from
blind helpers, from issue threads, merged pull requests' descriptions and troubleshooting pages),
the floors unchanged (category 0.876, see the README). December 6 (fourth session): bo- to br-
(11 cases from six blind helpers, 6 right first, 10 now; bo-002 dropped as a duplicate of v-002), category
0.877 (471/537), floors unchanged; then bu- and bv- (10 cases from Q&A pages, Ascend's troubleshooting
pages and NCCL threads, 5 right first, 9 now): category 0.878 (480/547), rank 0.931 -> 0.905 (floor
0.92 -> 0.90), its two misses Ascend logs that name the rank only in HCCL's heartbeat report
(`Cluster Exception Location[IP/ID]`) and in torch_npu's suffix on the line after the error. Then bw-
and bx- (3 cases from vendors' and platforms' pages, 1 right first): category 0.875 (481/550), its
misses a TPU slice's chip-driver failure (no GPU entry claims it) and a one-line SIGBUS whose thread
says /dev/shm filled while saving a checkpoint. Then by- and bz- (11 cases from EasyR1's
FAQ, Qwen-VL threads, verl's FAQ and DeepSpeed, TRL and NeMo-RL pull requests: 8 right first, 10 now).
December 6 (fifth session): cc-, ce- and cg- (10 cases from blind helpers, NCCL and DeepSpeed threads
and a NeMo pull request; 5 right first and 1 of 2 ranks, 8 and 2 of 2 now; ca-001 dropped, its log
lacking any error line, cd-001 a duplicate); then ch- (4 cases from merged pull requests, 2 right first,
its misses library code taking a branch for another PyTorch release, labelled a version mismatch where
bz-001, the same kind of bug, was labelled a code error): category 0.871 (501/575), floors unchanged.
December 6 (sixth session, no new cases): classes fixed from the corpus's own misses (library API
drift from any installed package's frame, an exception name ending its line, cut I/O errnos, Neuron's
bounds check, a TPU chip failure, an unreadable rendezvous endpoint): category 0.887 (510/575),
floor 0.87 -> 0.88.
December 7 (seventh session): ci-, cj-, ck- (12 blind cases from issue threads and merged pull
requests; two more dropped, their cause only the reporter's guess or the issue's title), 8 right first,
9 now; the rank misses decidable from the text fixed (HCCL's heartbeat names the lost device,
torch_npu's RankID, torchrun's Root Cause where the root rank left no line, a store wait's lone rank):
category 0.888 (521/587), rank 0.911 -> 0.962 (76/79; floor 0.90 -> 0.95, the issue's target).
December 7 (ninth session, no new cases): classes from the frameworks' sources (a release bug between
two installed libraries, the save step read from progress bars and save intervals, pasted logs
re-wrapped and localised): category 0.886 -> 0.897 (533/594; floor 0.88 -> 0.89), checkpoint classes
55/72 -> 57/72 (floor 0.76 -> 0.79). December 7 (eleventh session): cq- and cr- (12 cases from two
blind helpers who never read the engine; mostly lookalikes on purpose: version mismatches that read as
a cuDNN error, an NCCL timeout, a segfault or NCCL's unhandled system error): 4 right first, 0.899 ->
0.888 (538/606); 7 now (NCCL's benign set-up warnings, its /dev/shm segment failing with ENOSPC, the
DataLoader-worker line as people retype it): 0.893 (541/606), floors unchanged; rank 78/82 (cr-010's
log ends before its error line). December 7 (twelfth session): cs-, ct-, cu-, cv-, cw- (27 cases from
five blind helpers; two more dropped, cs-003 and cv-005, whose excerpts stop before the error line):
15 right first, ranks 3 of 6; 17 now (a step/loss column turning `nan`, PyTorch's "Parent directory …
does not exist." from torch.save as a code error, no checkpoint OOM read from a save line alone) and
ranks 6 of 6 (torchrun's `local_rank N FAILED with no error file`, Horovod's coordinator frame, the
watchdog's desync-report assert); version rules (a cuDNN attribute the installed cuDNN rejects, a
segfault inside hwloc, NCCL's lost topology id) fixed 5 older cases: category 0.893 -> 0.889 (563/633;
floor 0.89 -> 0.88), rank 0.955 (84/88), checkpoint classes 57/72. December 7 (thirteenth session):
engine round 17 on the corpus's own misses, five helpers each on one group of classes (release bugs and
builds named by the library's own line, checkpoint loads and conversions as phase markers, a save that
consolidates sharded state through object collectives, NCCL's own words for a timeout or a network
fault): category 0.889 -> 0.913 (578/633; floor 0.88 -> 0.90), checkpoint classes 57/72 -> 58/72 (floor
0.79 -> 0.80), rank 0.955 (84/88); no case that was right turned wrong.
"""

from __future__ import annotations

from pathlib import Path

from knowledge.engine import Engine
from tests.tools.score_fast import score

ROOT = Path(__file__).resolve().parents[2]
MIN_CATEGORY_ACCURACY = 0.90
MIN_RANK_ACCURACY = 0.95
CHECKPOINT_CLASSES = ("gpu_oom_checkpoint_gather", "cpu_oom_checkpoint")
MIN_CHECKPOINT_ACCURACY = 0.80


def test_corpus_accuracy_floor(engine: Engine) -> None:
    result = score(ROOT / "tests" / "corpus", engine)
    report = result.summary() + "\n" + "\n".join(result.misses)
    assert result.cases >= 200, report
    assert result.accuracy >= MIN_CATEGORY_ACCURACY, report
    assert result.rank_accuracy >= MIN_RANK_ACCURACY, report
    right = sum(result.right_by_category[c] for c in CHECKPOINT_CLASSES)
    total = sum(result.by_category[c] for c in CHECKPOINT_CLASSES)
    assert total >= 20 and right / total >= MIN_CHECKPOINT_ACCURACY, report


def test_corpus_covers_every_category_and_the_multi_rank_cases() -> None:
    """Issue 12's shape of the corpus: every taxonomy category at least 5 times, each checkpoint class
    at least 12, and multi-rank cases whose initiating rank is labelled from the thread."""
    import json
    from collections import Counter

    from knowledge.schema import CATEGORIES

    cases = [json.loads(p.read_text()) for p in sorted((ROOT / "tests" / "corpus").glob("*/case.json"))]
    counts = Counter(c["category"] for c in cases)
    assert set(counts) <= set(CATEGORIES)
    assert min(counts[c] for c in CATEGORIES) >= 5, counts
    assert all(counts[c] >= 12 for c in CHECKPOINT_CLASSES), counts
    ranked = [c for c in cases if c.get("initiating_rank") is not None]  # a labelled rank: a multi-rank job
    assert len(ranked) >= 39
    assert all(c["url"].startswith("https://") and c.get("resolution_quote_basis") for c in cases)
