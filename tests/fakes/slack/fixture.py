"""A pytest fixture for `FakeSlack`.

Import it into a conftest: `from tests.fakes.slack.fixture import fake_slack`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.slack.server import FakeSlack


@pytest.fixture
def fake_slack() -> Iterator[FakeSlack]:
    with FakeSlack() as slack:
        yield slack
