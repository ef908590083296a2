"""What the Slack listeners share, built once per process by `create_slack_app`.

Its own module so the listener modules (`commands`, `followups`) and the app factory (`app`) all
import it and nothing imports back: app → commands/followups → deps.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import redis

from bot.slack.jobs import JobResolver, Submitter
from bot.slack.llm import LlmPhraser
from bot.slack.threads import SlackState
from denpex.core.settings import Settings
from knowledge.answers import AnswerBook
from knowledge.schema import Entry
from workers.quota import Quota


@dataclass
class SlackDeps:
    """Everything the listeners use."""

    settings: Settings
    redis: redis.Redis
    quota: Quota
    resolver: JobResolver
    submitter: Submitter
    entries: dict[str, Entry] = field(default_factory=dict)
    llm: LlmPhraser | None = None
    state: SlackState = field(init=False)
    #: follow-up answers over `entries` (each entry's search index built once)
    answers: AnswerBook = field(init=False)

    def __post_init__(self) -> None:
        self.state = SlackState(self.redis)
        self.answers = AnswerBook(self.entries)
