"""Optional: let an OpenAI-compatible model (a local vLLM, say) phrase a grounded answer.

Off unless `DENPEX_LLM_URL` is set. The model sees only the question and the grounded material the
`Answerer` already chose — both masked — and is told to answer from that material alone. Any failure
(timeout, bad answer) falls back to the grounded text; the model's words are escaped like log text.
"""

from __future__ import annotations

from typing import Any

import aiohttp
import structlog

from workers.masking import TextMasker

log = structlog.get_logger("denpex.slack.llm")

SYSTEM = (
    "You answer follow-up questions about a failed distributed training job in a Slack thread. "
    "Use ONLY the facts given. If they do not answer the question, say you don't know. "
    "Be brief (at most 6 sentences); keep commands and log lines verbatim."
)


class LlmPhraser:
    def __init__(self, url: str, model: str | None, masker: TextMasker, *, timeout: float = 20.0) -> None:
        self.url = url.rstrip("/") + "/chat/completions"
        self.model = model or "default"
        self.masker = masker
        self.timeout = aiohttp.ClientTimeout(total=timeout)

    async def phrase(self, question: str, material: list[str], fallback: str) -> str:
        if not material:
            return fallback
        facts = "\n".join(f"- {self.masker.mask(m)}" for m in material if m)
        body: dict[str, Any] = {
            "model": self.model,
            "temperature": 0.1,
            "messages": [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": f"Facts:\n{facts}\n\nQuestion: {self.masker.mask(question)}"},
            ],
        }
        try:
            async with (
                aiohttp.ClientSession(timeout=self.timeout, trust_env=False) as session,
                session.post(self.url, json=body) as resp,
            ):
                resp.raise_for_status()
                data = await resp.json()
            text = str(data["choices"][0]["message"]["content"]).strip()
        except (aiohttp.ClientError, TimeoutError, KeyError, IndexError, ValueError) as exc:
            log.warning("llm_failed", error=type(exc).__name__)
            return fallback
        return text or fallback
