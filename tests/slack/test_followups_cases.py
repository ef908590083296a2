"""The follow-up cases of the on-call and fix rounds, one contract for all: each names a fact job, a
question as typed in Slack, the intent it must reach (None: any; the later rounds name none), the facts
the answer must state and the claims it must not make. The cases live beside the tests of their round
(what they fixed)."""

from __future__ import annotations

import pytest

from bot.slack.answers import Answerer
from tests.slack.helpers import states_facts
from tests.slack.test_followups_levers import CASES as LEVERS
from tests.slack.test_followups_oncall import CASES as ONCALL
from tests.slack.test_followups_round3 import CASES as ROUND3
from tests.slack.test_followups_round4 import CASES as ROUND4
from tests.slack.test_followups_round5 import CASES as ROUND5
from tests.slack.test_followups_round6a import CASES as ROUND6A
from tests.slack.test_followups_round6b import CASES as ROUND6B
from tests.slack.test_followups_round7a import CASES as ROUND7A
from tests.slack.test_followups_round7b import CASES as ROUND7B
from tests.slack.test_followups_round7b import WAITING as ROUND7B_WAITING
from tests.slack.test_followups_round8 import CASES as ROUND8
from tests.slack.test_followups_round9a import CASES as ROUND9A
from tests.slack.test_followups_round9b import CASES as ROUND9B
from tests.slack.test_followups_round10a import CASES as ROUND10A
from tests.slack.test_followups_round10b import CASES as ROUND10B
from tests.slack.test_followups_round11a import CASES as ROUND11A
from tests.slack.test_followups_round11b import CASES as ROUND11B
from tests.slack.test_followups_round12a import CASES as ROUND12A
from tests.slack.test_followups_round12b import CASES as ROUND12B
from tests.slack.test_followups_round13a import CASES as ROUND13A
from tests.slack.test_followups_round13b import CASES as ROUND13B
from tests.slack.test_followups_round14a import CASES as ROUND14A
from tests.slack.test_followups_round14b import CASES as ROUND14B
from tests.slack.test_followups_round15a import CASES as ROUND15A
from tests.slack.test_followups_round15b import CASES as ROUND15B
from tests.slack.test_followups_round16a import CASES as ROUND16A
from tests.slack.test_followups_round16b import CASES as ROUND16B
from tests.slack.test_followups_round17a import CASES as ROUND17A
from tests.slack.test_followups_round17b import CASES as ROUND17B
from tests.slack.test_followups_round18a import CASES as ROUND18A
from tests.slack.test_followups_round18b import CASES as ROUND18B
from tests.slack.test_followups_round19a import CASES as ROUND19A
from tests.slack.test_followups_round19b import CASES as ROUND19B
from tests.slack.test_followups_round20a import CASES as ROUND20A
from tests.slack.test_followups_round20b import CASES as ROUND20B
from tests.slack.test_followups_round21a import CASES as ROUND21A
from tests.slack.test_followups_round21b import CASES as ROUND21B
from tests.slack.test_followups_round21c import CASES as ROUND21C
from tests.slack.test_followups_round22a import CASES as ROUND22A
from tests.slack.test_followups_round22b import CASES as ROUND22B
from tests.slack.test_followups_round23a import CASES as ROUND23A
from tests.slack.test_followups_round23b import CASES as ROUND23B
from tests.slack.test_followups_round24a import CASES as ROUND24A
from tests.slack.test_followups_round25a import CASES as ROUND25A
from tests.slack.test_followups_round25b import CASES as ROUND25B
from tests.slack.test_followups_round26a import CASES as ROUND26A
from tests.slack.test_followups_round26b import CASES as ROUND26B
from tests.slack.test_followups_round27a import CASES as ROUND27A
from tests.slack.test_followups_round27b import CASES as ROUND27B
from tests.slack.test_followups_round28a import CASES as ROUND28A
from tests.slack.test_followups_round28b import CASES as ROUND28B
from tests.slack.test_followups_round28c import CASES as ROUND28C
from tests.slack.test_followups_round29a import CASES as ROUND29A
from tests.slack.test_followups_round29b import CASES as ROUND29B
from tests.slack.test_followups_round29c import CASES as ROUND29C
from tests.slack.test_followups_round30a import CASES as ROUND30A
from tests.slack.test_followups_round30b import CASES as ROUND30B
from tests.slack.test_followups_round30c import CASES as ROUND30C
from tests.slack.test_followups_round31a import CASES as ROUND31A
from tests.slack.test_followups_round32a import CASES as ROUND32A
from tests.slack.test_followups_round32b import CASES as ROUND32B
from tests.slack.test_followups_round32c import CASES as ROUND32C
from tests.slack.test_followups_round32d import CASES as ROUND32D
from tests.slack.test_followups_round33a import CASES as ROUND33A
from tests.slack.test_followups_round33b import CASES as ROUND33B
from tests.slack.test_followups_round33c import CASES as ROUND33C
from tests.slack.test_followups_round33d import CASES as ROUND33D
from tests.slack.test_followups_round33e import CASES as ROUND33E
from tests.slack.test_followups_round33f import CASES as ROUND33F
from tests.slack.test_followups_round34a import CASES as ROUND34A
from tests.slack.test_followups_round34b import CASES as ROUND34B
from tests.slack.test_followups_round34c import CASES as ROUND34C
from tests.slack.test_followups_round34d import CASES as ROUND34D
from tests.slack.test_followups_round34e import CASES as ROUND34E
from tests.slack.test_followups_round34z import CASES as ROUND34Z
from tests.slack.test_followups_round35a import CASES as ROUND35A
from tests.slack.test_followups_round35b import CASES as ROUND35B
from tests.slack.test_followups_round35c import CASES as ROUND35C
from tests.slack.test_followups_round36a import CASES as ROUND36A
from tests.slack.test_followups_round36b import CASES as ROUND36B
from tests.slack.test_followups_round36c import CASES as ROUND36C
from tests.slack.test_followups_round36d import CASES as ROUND36D
from tests.slack.test_followups_round37e import CASES as ROUND37E
from tests.slack.test_followups_round37f import CASES as ROUND37F
from tests.slack.test_followups_round38a import CASES as ROUND38A
from tests.slack.test_followups_round38b import CASES as ROUND38B
from tests.slack.test_followups_round38c import CASES as ROUND38C
from tests.slack.test_followups_round38d import CASES as ROUND38D
from tests.slack.test_followups_round39e import CASES as ROUND39E
from tests.slack.test_followups_round39f import CASES as ROUND39F
from tests.slack.test_followups_round39g import CASES as ROUND39G
from tests.slack.test_followups_round40a import CASES as ROUND40A
from tests.slack.test_followups_round40b import CASES as ROUND40B
from tests.slack.test_followups_round40c import CASES as ROUND40C
from tests.slack.test_followups_round41d import CASES as ROUND41D
from tests.slack.test_followups_round41e import CASES as ROUND41E
from tests.slack.test_followups_round41f import CASES as ROUND41F
from tests.slack.test_followups_routing2 import ASK_DECIDES, MULTI, WHY

CASES = ONCALL + MULTI + ASK_DECIDES + WHY + ROUND3 + ROUND4 + ROUND5
#: the December 6 rounds (blind batches 22-32): any intent but the help reply
FACTS = (
    ROUND6A
    + ROUND6B
    + ROUND7A
    + ROUND7B
    + ROUND7B_WAITING
    + ROUND8
    + ROUND9A
    + ROUND9B
    + ROUND10A
    + ROUND10B
    + ROUND11A
    + ROUND11B
    + ROUND12A
    + ROUND12B
    + ROUND13A
    + ROUND13B
    + ROUND14A
    + ROUND14B
    + ROUND15A
    + ROUND15B
    + ROUND16A
    + ROUND16B
    + ROUND17A
    + ROUND17B
    + ROUND18A
    + ROUND18B
    + ROUND19A
    + ROUND19B
    + ROUND20A
    + ROUND20B
    + ROUND21A
    + ROUND21B
    + ROUND21C
    + ROUND22A
    + ROUND22B
    + ROUND23A
    + ROUND23B
    + ROUND24A
    + ROUND25A
    + ROUND25B
    + ROUND26A
    + ROUND26B
    + ROUND27A
    + ROUND27B
    + ROUND28A
    + ROUND28B
    + ROUND28C
    + ROUND29A
    + ROUND29B
    + ROUND29C
    + ROUND30A
    + ROUND30B
    + ROUND30C
    + ROUND31A
    + ROUND32A
    + ROUND32B
    + ROUND32C
    + ROUND32D
    + ROUND33A
    + ROUND33B
    + ROUND33C
    + ROUND33D
    + ROUND33E
    + ROUND33F
    + ROUND34A
    + ROUND34B
    + ROUND34C
    + ROUND34D
    + ROUND34E
    + ROUND34Z
    + ROUND35A
    + ROUND35B
    + ROUND35C
    + ROUND36A
    + ROUND36B
    + ROUND36C
    + ROUND36D
    + ROUND37E
    + ROUND37F
    + ROUND38A
    + ROUND38B
    + ROUND38C
    + ROUND38D
    + ROUND39E
    + ROUND39F
    + ROUND39G
    + ROUND40A
    + ROUND40B
    + ROUND40C
    + ROUND41D
    + ROUND41E
    + ROUND41F
    + LEVERS
)


@pytest.mark.parametrize(("job", "question", "intent", "must", "never"), CASES)
def test_the_answer_states_this_jobs_fact(
    answerers: dict[str, Answerer],
    job: str,
    question: str,
    intent: str | None,
    must: list[str],
    never: list[str],
) -> None:
    states_facts(answerers[job].answer(question), intent, must, never)


@pytest.mark.parametrize(("job", "question", "must", "never"), FACTS)
def test_the_answer_states_this_jobs_fact_in_any_answer(
    answerers: dict[str, Answerer], job: str, question: str, must: list[str], never: list[str]
) -> None:
    states_facts(answerers[job].answer(question), None, must, never, answered=True)
