"""The optional LLM phrasing (an OpenAI-compatible server on 127.0.0.1) and `/denpex history`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis
from aiohttp import web

from bot.slack.answers import Answerer
from bot.slack.llm import LlmPhraser
from denpex.core.settings import Settings
from tests.fakes.slack import FakeSlack
from tests.slack import helpers
from tests.slack.conftest import SlackStack, running_stack
from tests.slack.test_commands_http import ack_text
from tests.slack.test_followups_http import bot_replies, post_diagnosis, question, scale


class FakeLlm:
    """`POST /v1/chat/completions` as vLLM answers it; records what it was shown."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self.fail = False

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.seen.append(body)
        if self.fail:
            return web.Response(status=500)
        reply = "Rank 0 failed first <!channel>; the others waited on it."
        return web.json_response(
            {"choices": [{"index": 0, "message": {"role": "assistant", "content": reply}}]}
        )


class SecretMasker:
    def mask(self, text: str) -> str:
        return text.replace("hf_SECRETTOKEN123", "[MASKED]")


@pytest.fixture
async def llm() -> AsyncIterator[tuple[FakeLlm, str]]:
    fake = FakeLlm()
    app = web.Application()
    app.router.add_post("/v1/chat/completions", fake.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield fake, f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/v1"  # type: ignore[union-attr]
    await runner.cleanup()


async def test_llm_sees_only_masked_grounded_material(llm: tuple[FakeLlm, str]) -> None:
    fake, url = llm
    phraser = LlmPhraser(url, "qwen", SecretMasker())
    entries = helpers.entries()
    answer = Answerer(helpers.diagnosis(), entries["zero3-checkpoint-gather-oom"], entries).answer(
        "which rank failed first? my token is hf_SECRETTOKEN123"
    )
    text = await phraser.phrase(
        "which rank failed first? my token is hf_SECRETTOKEN123", answer.material, "fb"
    )
    assert text.startswith("Rank 0 failed first")
    shown = json.dumps(fake.seen[0])
    assert "hf_SECRETTOKEN123" not in shown and "[MASKED]" in shown and "gpu-01" in shown
    fake.fail = True
    assert await phraser.phrase("q", answer.material, "grounded fallback") == "grounded fallback"


async def test_llm_phrases_followups_when_configured(
    llm: tuple[FakeLlm, str],
    settings: Settings,
    fake_slack: FakeSlack,
    redis_client: redis.Redis,
    masker: Any,
) -> None:
    fake, url = llm
    async with running_stack(settings.model_copy(update={"llm_url": url}), fake_slack, masker) as stack:
        thread = await asyncio.to_thread(post_diagnosis, fake_slack, redis_client)
        scale(redis_client)
        await stack.event(question("which rank failed first?", thread))
        (reply,) = await bot_replies(fake_slack, thread, 1)
    assert reply["text"].startswith("Rank 0 failed first &lt;!channel&gt;")  # the model's words, escaped
    assert fake.seen and "gpu-01" in json.dumps(fake.seen[0])


async def test_history_lists_this_channels_diagnoses(
    slack_stack: SlackStack, redis_client: redis.Redis
) -> None:
    await asyncio.to_thread(post_diagnosis, slack_stack.fake, redis_client)
    scale(redis_client)
    _, body = await slack_stack.command("history")
    assert ack_text(body) == ""
    (reply,) = await slack_stack.fake.wait_for_async(lambda: slack_stack.fake.responses, what="history")
    assert "Recent diagnoses" in reply["text"] and "4242" in reply["text"]
