"""A protocol-faithful fake of Slack: Web API + files v2 uploads + Socket Mode, as a real server.

Why: the bot's Slack code must be tested through the real slack_sdk / slack_bolt clients over real
HTTP, with Slack's real limits and error strings, never with mocks of the client.

Usage (sync or async tests alike; the server runs in its own thread and event loop)::

    from tests.fakes.slack import FakeSlack

    with FakeSlack() as slack:                       # or: slack = FakeSlack().start(); ...; slack.stop()
        client = slack.async_client()                # AsyncWebClient(base_url=slack.base_url, token=...)
        # or build your own: AsyncWebClient(token=slack.bot_token, base_url=slack.base_url) plus
        # AsyncRateLimitErrorRetryHandler (slack_sdk does not retry 429s by default)
        resp = await client.chat_postMessage(channel="C0ALERTS", text="hi", metadata={...})
        slack.roots("C0ALERTS"); slack.thread(resp["ts"]); slack.calls("chat.postMessage")

In another process (a worker under test) set `SLACK_API_URL=slack.base_url` and
`SLACK_BOT_TOKEN=slack.bot_token`. Clear HTTP(S)_PROXY first: slack_sdk ignores NO_PROXY.

The workspace: team `T0DENPEX`, bot user `U0BOT` (bot id `B0BOT`, app `A0DENPEX`), channels
`C0ALERTS` (#denpex-alerts), `C0GENERAL` (#general), `G0PRIVATE` (private); add more with
`slack.workspace.add_channel(id, name)`. Tokens: `slack.bot_token` (xoxb-) for Web API methods,
`slack.app_token` (xapp-) for apps.connections.open; a missing token → `not_authed`, a wrong one →
`invalid_auth`, the other kind → `not_allowed_token_type`.

Methods: auth.test, chat.postMessage (thread_ts must exist → else `thread_not_found`; unknown
channel → `channel_not_found`; >50 or malformed blocks → `invalid_blocks`; text >40,000 →
`msg_too_long`; `metadata` stored and returned by conversations.history/replies only with
`include_all_metadata`), chat.update, chat.postEphemeral (kept in `slack.ephemerals`),
conversations.replies, conversations.history (newest first), files.getUploadURLExternal (an absolute
upload_url on this server) + the upload POST + files.completeUploadExternal (shares the file as a
message in the thread; content in `slack.files[id]["content"]`), apps.connections.open (a ws:// URL),
views.open / views.update (the view checked as Slack does: type `modal`, plain_text title/submit/close
of at most 24 characters, submit required with an input block, at most 100 valid blocks, else
`invalid_arguments`; views.open spends a trigger_id from `slack.trigger_id()` once, within
`slack.workspace.trigger_ttl` = 3 s, else `invalid_trigger_id` / `exchanged_trigger_id` /
`expired_trigger_id`; open modals in `slack.workspace.views`). `payloads.block_actions(...)` and
`payloads.view_submission(...)` build the interaction payloads Slack sends for a button and a modal.

Faults: `slack.fail_next(n, status=429, retry_after=1, method=...)` (429 with Retry-After, or 500),
`slack.error_next("fatal_error", n, method=...)`, `slack.hang_next(seconds, n, method=...)`.
Every call is recorded: `slack.calls(method)` → `Call(method, params, token, status, response)`.

Socket Mode: connect Bolt's AsyncSocketModeHandler with `slack.app_token` and an AsyncWebClient on
`slack.base_url`; the fake sends `hello`, then `slack.send_event(event)` /
`slack.send_slash_command("diagnose 42")` push envelopes and return the envelope_id; the app's ack
lands in `slack.acks[envelope_id]` (wait with `slack.wait_for_async(slack.ack_of(eid))` in async
tests — never the blocking `wait_for` inside the loop the app runs in).
Slash commands carry a `response_url` on this server; what the app posts there is in
`slack.responses`. `payloads.sign(body, secret)` makes the v0 X-Slack-Signature headers for tests
that post Events API / slash command requests to the app over HTTP.
"""

from tests.fakes.slack import payloads
from tests.fakes.slack.server import Call, FakeSlack
from tests.fakes.slack.validation import MAX_BLOCKS, MAX_SECTION_TEXT, MAX_TEXT

__all__ = ["MAX_BLOCKS", "MAX_SECTION_TEXT", "MAX_TEXT", "Call", "FakeSlack", "payloads"]
