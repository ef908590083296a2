"""What the whole message asks besides its first answer, added after it, each step in its turn.

A message is answered ask by ask (`knowledge.answers`), but some facts are asked by the message as a
whole ("and how big was it?", "why rank 2 and not 0?", "impact: step lost, nodes involved", "the
timeout was 10 s?"): each step below adds what its kind of ask needs and the answer does not say yet,
in this order, so a later step sees what the earlier ones added.
"""

from __future__ import annotations

from collections.abc import Callable

from knowledge import (
    answer_agent,
    answer_chain,
    answer_change,
    answer_contest,
    answer_figures,
    answer_frames_asked,
    answer_frames_more,
    answer_gpu_ids,
    answer_grounds,
    answer_howto,
    answer_judge,
    answer_lastlog,
    answer_loglines,
    answer_oom_limit,
    answer_parts,
    answer_real_ask,
    answer_redo,
    answer_same_save,
    answer_selfstop,
    answer_setup,
    answer_terms_job,
    answer_terse,
    answer_timedout,
    answer_topics,
    answer_values,
    answer_waited,
    answer_yesno,
)
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import Match


def complete(ctx: Ctx, whole: Match, got: Reply, asked: Callable[[str], Reply]) -> Reply:
    """`got` with what the whole message (`whole`) asks beyond it; `asked` answers one ask."""
    got = answer_terse.expand(whole.text, got, asked)  # "nccl?", "sig?", "which rnak hung"
    got = answer_real_ask.with_real_ask(ctx, whole.text, got, asked)  # "could you please explain why …"
    got = answer_figures.whole_message(ctx, whole, got)  # "and how big was it?", "numbers pls"
    got = answer_judge.with_facts(ctx, whole.text, got)  # "is the box broken?", "whose fault?"
    got = answer_parts.complete(ctx, whole.text, got, asked)  # a part left out
    got = answer_contest.contested(ctx, whole, got)  # "why rank 2 and not 0?", "how sure?"
    got = answer_topics.complete(whole.text, got, asked)  # "impact: step lost, nodes involved"
    got = answer_yesno.recheck(ctx, whole.text, got, asked)  # "the timeout was 10 s?"
    got = answer_change.with_change(ctx, whole, got)  # "…, and what do I flip in ds_config?"
    got = answer_redo.stated_step(ctx, whole.text, got)  # "at step 40 of 100, redo it all?"
    got = answer_oom_limit.with_limit(ctx, whole.text, got)  # "and what limit was it up against?"
    got = answer_same_save.with_save(ctx, whole.text, got)  # "die at the same save again?"
    got = answer_gpu_ids.with_ids(ctx, whole.text, got)  # "local gpu index?", "same pid?"
    got = answer_agent.with_agent(ctx, whole.text, got)  # "torchrun agent pid?", "static or c10d?"
    got = answer_frames_asked.with_frames(ctx, whole.text, got)  # "which line in save_checkpoint?"
    got = answer_values.with_values(ctx, whole.text, got)  # "what is SeqNum 48213?"
    got = answer_grounds.with_grounds(ctx, whole.text, got)  # "tied 0.46, why desync?", "no ENOSPC line?"
    got = answer_terms_job.with_terms(ctx, whole.text, got)  # "what's a collateral rank?", "core dump?"
    got = answer_howto.with_howto(ctx, whole.text, got)  # "find the op that makes the nan", "my 10s timeout?"
    got = answer_lastlog.with_last(ctx, whole.text, got)  # "rank 2 went quiet - last thing it logged?"
    got = answer_timedout.with_timed_out(ctx, whole.text, got)  # "when did they time out?"
    got = answer_waited.with_wait(ctx, whole.text, got)  # "how long did the other gpus sit waiting?"
    got = answer_frames_more.with_more(ctx, whole.text, got)  # "python stack?", "which peer port?"
    got = answer_chain.with_chain(ctx, whole.text, got)  # "first exception in the chain?"
    got = answer_selfstop.with_self_stop(ctx, whole.text, got)  # "platform angle, or did it stop itself?"
    got = answer_setup.with_setup(ctx, whole.text, got)  # "which model?", "world size 4 vs 8?"
    return answer_loglines.with_lines(ctx, whole.text, got)  # "quote the launcher line", "which port each?"
