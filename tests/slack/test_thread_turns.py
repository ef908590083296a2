"""Answers in a thread are posted in the order the questions arrived, however long each one takes."""

from __future__ import annotations

import asyncio

from bot.slack.followups import ThreadTurns


async def test_a_later_question_waits_for_the_earlier_answer() -> None:
    turns = ThreadTurns()
    posted: list[str] = []
    first_may_finish = asyncio.Event()

    async def answer(name: str, gate: asyncio.Event | None) -> None:
        async with turns.turn(("C1", "100.1")):
            if gate is not None:
                await gate.wait()  # the first answer is the slow one
            posted.append(name)

    slow = asyncio.create_task(answer("first", first_may_finish))
    await asyncio.sleep(0)
    fast = asyncio.create_task(answer("second", None))
    other_thread = asyncio.create_task(_other_thread(turns, posted))
    await other_thread  # another thread is never held up
    await asyncio.sleep(0.05)
    assert posted == ["other"]  # "second" is ready but waits for "first"
    first_may_finish.set()
    await asyncio.gather(slow, fast)
    assert posted == ["other", "first", "second"]


async def _other_thread(turns: ThreadTurns, posted: list[str]) -> None:
    async with turns.turn(("C1", "200.2")):
        posted.append("other")


async def test_a_failed_answer_releases_the_thread() -> None:
    turns = ThreadTurns()

    async def fails() -> None:
        async with turns.turn(("C1", "1.1")):
            raise RuntimeError("slack is down")

    task = asyncio.create_task(fails())
    await asyncio.sleep(0)
    done: list[bool] = []

    async def next_one() -> None:
        async with turns.turn(("C1", "1.1")):
            done.append(True)

    follower = asyncio.create_task(next_one())
    results = await asyncio.gather(task, follower, return_exceptions=True)
    assert isinstance(results[0], RuntimeError) and done == [True]
    assert turns._last == {}  # nothing kept once a thread is quiet
