"""Block Kit rendering: Slack's limits (checked with slack_sdk's block models) and escaping."""

from __future__ import annotations

import json
import re

import pytest
from slack_sdk.models.blocks import Block

from bot.slack.mrkdwn import clip, escape, rank_ranges
from bot.slack.render import BlockKitRenderer, job_key_from_message
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
    for message in thread:
        check_message(message)
    everything = json.dumps([m.blocks for m in thread])
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
    from denpex.core.models import EvidenceLine

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
