"""Block Kit rendering: Slack's limits (checked with slack_sdk's block models) and escaping."""

from __future__ import annotations

import json
import re

import pytest
from slack_sdk.models.blocks import Block

from bot.slack.mrkdwn import clip, code_safe, escape, rank_ranges, shorten, verbatim
from bot.slack.render import DETAILS_ACTION, BlockKitRenderer, job_key_from_message, line_count
from denpex.core.models import CollectiveGroup, Collectives, EvidenceLine, RankTail
from tests.slack import helpers
from workers.ports import SlackMessage

MENTION_OR_LINK = re.compile(r"<[!@#]|<https?:|<mailto:")


def check_message(message: SlackMessage) -> None:
    """What Slack would reject, and what would ping or link: fail the test."""
    assert len(message.blocks) <= 50
    assert len(message.text) <= 40_000
    assert len(json.dumps(message.blocks)) + len(message.text) <= 40_000
    for raw in message.blocks:
        block = Block.parse(raw)
        assert block is not None and type(block) is not Block, raw
        block.validate_json()
        text = (raw.get("text") or {}).get("text", "")
        assert len(text) <= 3000
        assert raw["type"] != "header" or len(text) <= 150
    for text in [message.text, *re.findall(r'"text": "((?:[^"\\]|\\.)*)"', json.dumps(message.blocks))]:
        assert not MENTION_OR_LINK.search(text), text


@pytest.fixture(scope="module")
def renderer() -> BlockKitRenderer:
    return BlockKitRenderer(helpers.entries())


def test_rank_ranges() -> None:
    assert rank_ranges([0, 1, 2, 3, 4, 6, 7]) == "0-4,6,7"
    assert rank_ranges(range(64)) == "0-63"
    assert rank_ranges([]) == ""


def test_escape_and_clip() -> None:
    assert escape("<!channel> & <@U1>") == "&lt;!channel&gt; &amp; &lt;@U1&gt;"
    clipped = clip("```" + "x" * 5000 + "```", 3000)
    assert len(clipped) <= 3000 and clipped.count("```") % 2 == 0
    assert not clip("&amp;" * 1000, 3000).endswith(("&am", "&a", "&"))


def test_root_and_thread_within_limits_and_escaped(renderer: BlockKitRenderer) -> None:
    job, d = helpers.job(), helpers.diagnosis(ranks=1024)
    root = renderer.root_message(job, d, quota_note=None)
    check_message(root)
    assert job_key_from_message({"blocks": root.blocks}) == job.key
    thread = renderer.thread_messages(job, d)
    details = renderer.details_messages(job, d)
    for message in thread + details:
        check_message(message)
    everything = json.dumps([m.blocks for m in thread + details])
    assert "1-4,6-1023" in everything  # collateral grouped, not 1,023 lines
    assert "&lt;!channel&gt;" in everything and "&lt;https://evil.example|click here&gt;" in everything
    assert "gpu-01" in everything and "grep -n stage3_gather ds_config.json" in everything
    assert "kernel log of gpu-07" in everything and "93%" in everything
    assert "stage3_gather_16bit_weights_on_model_save" in everything  # the entry's snippet/fix


def test_huge_diagnosis_is_split_not_rejected(renderer: BlockKitRenderer) -> None:
    d = helpers.diagnosis()
    d.initiating.evidence = [
        helpers.diagnosis().initiating.evidence[0].model_copy(update={"text": "y" * 5000})
    ] * 80
    d.collateral = [d.collateral[0].model_copy(update={"ranks": [i], "why": "z" * 500}) for i in range(200)]
    d.missing_evidence = d.missing_evidence * 100
    messages = renderer.thread_messages(helpers.job(), d)
    assert messages
    for message in messages:
        check_message(message)


def test_quota_out_root_announces_and_says_how(renderer: BlockKitRenderer) -> None:
    root = renderer.root_message(
        helpers.job(), None, quota_note="Quota used up. Run `/denpex redeem <code>`."
    )
    check_message(root)
    assert "redeem" in json.dumps(root.blocks) and "4242" in root.text


def test_evidence_file_is_complete_plain_text(renderer: BlockKitRenderer) -> None:
    file = renderer.evidence_file(helpers.job(), helpers.diagnosis())
    assert file is not None
    assert "rank 12 line 19" in file.content and "NVRM: Xid 79" in file.content
    assert "<!channel>" in file.content  # files are not mrkdwn: kept verbatim, not escaped


def test_thread_names_node_and_phase_and_shows_the_snippet_once(renderer: BlockKitRenderer) -> None:
    d = helpers.diagnosis(8)
    d.fix_snippet = "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
    d.initiating.phase = "checkpoint_save"
    d.initiating.phase_evidence = EvidenceLine(
        source="rank0.log", line=1700, text="Saving model checkpoint to out/checkpoint-4000"
    )
    text = json.dumps([m.blocks for m in renderer.thread_messages(helpers.job(), d)])
    assert "while saving a checkpoint (`rank0.log:1700`)" in text
    assert text.count("expandable_segments:True") == 1
    if d.initiating.node:
        assert d.initiating.node in text


def test_collateral_says_how_much_later(renderer: BlockKitRenderer) -> None:
    d = helpers.diagnosis(8)
    d.initiating.time = "2026-11-20T03:14:02.123Z"
    for group in d.collateral:
        group.first_time = "2026-11-20T03:24:02.004Z"
    text = json.dumps([m.blocks for m in renderer.thread_messages(helpers.job(), d)])
    assert (", 10 min later" in text) == bool(d.collateral)


def _blocks_text(messages: list[SlackMessage]) -> str:
    return json.dumps([m.blocks for m in messages])


def test_the_first_reply_is_about_25_lines_with_a_details_button(renderer: BlockKitRenderer) -> None:
    d = helpers.diagnosis(1024)
    d.missing_evidence = d.missing_evidence * 6
    (first,) = renderer.thread_messages(helpers.job(), d)
    assert line_count(first.blocks) <= 25
    buttons = [e for b in first.blocks if b["type"] == "actions" for e in b["elements"]]
    assert [(b["action_id"], b["value"]) for b in buttons] == [(DETAILS_ACTION, helpers.job().key)]
    details = _blocks_text(renderer.details_messages(helpers.job(), d))
    assert all(json.dumps(code_safe(ev.text)[:30])[1:-1] in details for ev in d.initiating.evidence)


def test_a_short_diagnosis_has_no_button(renderer: BlockKitRenderer) -> None:
    d = helpers.diagnosis(8)
    d.initiating.evidence = d.initiating.evidence[-1:]
    d.fix, d.root_cause, d.missing_evidence, d.alternatives = "1. Lower the batch.", "OOM.", [], []
    d.collateral = d.collateral[:1]
    (first,) = renderer.thread_messages(helpers.job(), d)
    assert not [b for b in first.blocks if b["type"] == "actions"]


TRACEBACK = [
    "[2026-11-20 03:14:01,870] [WARNING] [rank0] step 2001: batch of 4 x 16384 tokens (max_seq_len=16384)",
    "[2026-11-20 03:14:02,123] [ERROR] [rank0] training step 2001 failed",
    "Traceback (most recent call last):",
    '  File "/workspace/train.py", line 412, in <module>',
    "    trainer.train(resume_from_checkpoint=args.resume)",
    '  File "/workspace/mylib/loop.py", line 88, in train_step',
    "    loss = model(**batch).loss",
    '  File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1736, in _call_impl',
    "    return forward_call(*args, **kwargs)",
    '  File "/opt/conda/lib/python3.11/site-packages/deepspeed/runtime/engine.py", line 2020, in backward',
    "    self.optimizer.backward(loss)",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 5 has a total capacity of "
    "79.15 GiB of which 1.21 GiB is free. Including non-PyTorch memory, this process has 77.93 GiB memory in "
    "use. Of the allocated memory 74.02 GiB is allocated by PyTorch, and 2.41 GiB is reserved by PyTorch but "
    "unallocated.",
]


def test_the_deepest_user_frame_and_the_trigger_line(renderer: BlockKitRenderer) -> None:
    d = helpers.diagnosis(8)
    lines = [EvidenceLine(source="rank0.log", line=200 + i, text=t) for i, t in enumerate(TRACEBACK)]
    d.tails = [RankTail(rank=0, source="rank0.log", node="gpu-01", lines=lines)]
    d.initiating.evidence = [lines[-1], lines[7]]
    text = _blocks_text(renderer.thread_messages(helpers.job(), d))
    assert (
        "*In your code:* `/workspace/mylib/loop.py:88` in `train_step`: `loss = model(**batch).loss`" in text
    )
    assert "*Trigger:* `rank0.log:200` step 2001: batch of 4 x 16384 tokens (max_seq_len=16384)" in text
    assert "2.41 GiB is reserved by PyTorch but unallocated." in text  # the figure the fix refers to
    details = _blocks_text(renderer.details_messages(helpers.job(), d))
    assert "rank0.log:207" in details.split("rank0.log:211")[0]  # evidence in line order


def test_long_lines_are_cut_at_word_boundaries() -> None:
    cut = shorten("alpha beta gamma delta epsilon zeta eta theta iota kappa", 30)
    assert len(cut) <= 30 and cut.endswith("…") and cut[:-1].split()[-1] in "alpha beta gamma delta epsilon"
    oom = TRACEBACK[-1]
    short = shorten(oom, 260)
    assert len(short) <= 260 and short.startswith("torch.OutOfMemoryError") and "but unallocated." in short


def test_flight_recorder_line_in_the_thread(renderer: BlockKitRenderer) -> None:
    d = helpers.diagnosis(16)
    group = CollectiveGroup(
        group_id="3",
        group_desc="TENSOR_MODEL_PARALLEL_GROUP",
        size=16,
        front_seq=39416,
        front_op="all_gather",
        entered=14,
        missing=[12, 14],
    )
    d.collectives = Collectives(dumps=16, groups=[group])
    text = _blocks_text(renderer.thread_messages(helpers.job(), d))
    assert (
        "Flight Recorder: ranks 12 and 14 never entered all_gather #39416 in TENSOR_MODEL_PARALLEL_GROUP"
        " (the 14 others did)"
    ) in text
    assert "Flight Recorder" not in _blocks_text(
        renderer.thread_messages(helpers.job(), helpers.diagnosis(16))
    )


def test_job_name_and_state_from_a_webhook_show_verbatim(renderer: BlockKitRenderer) -> None:
    job = helpers.job().model_copy(
        update={
            "name": "*prod* _run_ ~x~ https://evil.example/a #general",
            "state": "*FAILED*",
            "user": "_bob_",
        }
    )
    root = renderer.root_message(job, helpers.diagnosis(8), quota_note=None)
    check_message(root)
    first = root.blocks[0]["text"]
    assert first["verbatim"] is True  # Slack does not auto-link the URL or the channel name
    assert "`*prod* _run_ ~x~ https://evil.example/a #general`" in first["text"]  # in code: no formatting
    assert "state `*FAILED*`" in first["text"] and "user `_bob_`" in first["text"]
    assert verbatim("a`b<c>") == "`a\u02cbb&lt;c&gt;`"
