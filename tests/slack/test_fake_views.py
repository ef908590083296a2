"""The fake Slack's views.open / views.update, driven by the real slack_sdk client: the checks Slack
makes on a modal and on its trigger_id, so a bot that passes here passes against Slack."""

from __future__ import annotations

from typing import Any

import pytest
from slack_sdk.errors import SlackApiError

from bot.slack.fixnote import FixContext, fix_modal
from tests.fakes.slack import FakeSlack


def modal(**changes: Any) -> dict[str, Any]:
    view = fix_modal(FixContext(job="4242", channel="C0ALERTS", thread_ts="1.2"))
    view.update(changes)
    return {k: v for k, v in view.items() if v is not None}


def refused(call: Any) -> tuple[str, list[str]]:
    with pytest.raises(SlackApiError) as err:
        call()
    return err.value.response["error"], list(
        err.value.response.get("response_metadata", {}).get("messages", [])
    )


def test_views_open_returns_the_view_and_spends_the_trigger_once(fake_slack: FakeSlack) -> None:
    client = fake_slack.web_client()
    trigger = fake_slack.trigger_id()
    resp = client.views_open(trigger_id=trigger, view=modal())
    view = resp["view"]
    assert resp["ok"] and view["id"].startswith("V") and view["type"] == "modal"
    assert view["title"]["text"] == "What fixed it?" and view["state"] == {"values": {}}
    assert fake_slack.workspace.views[view["id"]]["callback_id"] == "denpex_fix_modal"
    (call,) = fake_slack.calls("views.open")
    assert call.params["trigger_id"] == trigger
    assert refused(lambda: client.views_open(trigger_id=trigger, view=modal()))[0] == "exchanged_trigger_id"
    assert refused(lambda: client.views_open(trigger_id="1.2.abc", view=modal()))[0] == "invalid_trigger_id"


def test_an_expired_trigger_is_refused(fake_slack: FakeSlack) -> None:
    fake_slack.workspace.trigger_ttl = 0.0
    trigger = fake_slack.trigger_id()
    client = fake_slack.web_client()
    assert refused(lambda: client.views_open(trigger_id=trigger, view=modal()))[0] == "expired_trigger_id"


@pytest.mark.parametrize(
    ("changes", "pointer"),
    [
        ({"type": "home"}, "/view/type"),
        ({"title": {"type": "plain_text", "text": "x" * 25}}, "/view/title/text"),
        ({"title": {"type": "mrkdwn", "text": "What fixed it?"}}, "/view/title"),
        ({"submit": None}, "/view/submit"),  # an input block needs a submit button
        ({"close": {"type": "plain_text", "text": "Close this modal without saving"}}, "/view/close/text"),
        ({"blocks": [{"type": "section"}]}, "/view/blocks/0"),
        ({"blocks": [{"type": "divider"}] * 101}, "/view/blocks"),
        ({"private_metadata": "x" * 3001}, "/view/private_metadata"),
    ],
)
def test_a_malformed_modal_is_invalid_arguments_and_keeps_the_trigger(
    fake_slack: FakeSlack, changes: dict[str, Any], pointer: str
) -> None:
    client = fake_slack.web_client()
    trigger = fake_slack.trigger_id()
    error, messages = refused(lambda: client.views_open(trigger_id=trigger, view=modal(**changes)))
    assert error == "invalid_arguments"
    assert any(f"[json-pointer:{pointer}]" in m for m in messages), messages
    assert client.views_open(trigger_id=trigger, view=modal())["ok"]  # not spent by the bad call


def test_views_update_replaces_the_view_and_checks_the_hash(fake_slack: FakeSlack) -> None:
    client = fake_slack.web_client()
    view = client.views_open(trigger_id=fake_slack.trigger_id(), view=modal())["view"]
    done = modal(title={"type": "plain_text", "text": "Saved"})
    updated = client.views_update(view_id=view["id"], hash=view["hash"], view=done)["view"]
    assert updated["id"] == view["id"] and updated["title"]["text"] == "Saved"
    assert (
        refused(lambda: client.views_update(view_id=view["id"], hash="1.stale", view=done))[0]
        == "hash_conflict"
    )
    assert refused(lambda: client.views_update(view_id="V0NOPE", view=done))[0] == "not_found"
