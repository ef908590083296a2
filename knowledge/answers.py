"""Answers to follow-up questions, from this job's facts first.

A question is matched to an intent (`knowledge.intents`: rules plus BM25 over phrasings) and answered
from the job's facts (`knowledge.jobfacts_answers`: each rank's role, times, lines and the figures in
them). Every answer is a `Reply`: a first sentence that answers with this job's facts, then the lines
that show it, then what to do. A question no intent matches gets example questions fitted to this
job, never a paragraph of the entry's general text. No model and no network are involved.

The answers are structured, never formatted: the Slack app renders them (`bot.slack.answers`). Each
carries the grounded `material` it used, so an optional LLM may rephrase it without seeing anything
else. The intent index and the glossary are built once (`AnswerBook`), not once per question.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from denpex.core.models import Diagnosis, PastIncident
from knowledge import (
    answer_absent,
    answer_advice,
    answer_asks,
    answer_cause,
    answer_challenge,
    answer_checks,
    answer_cost,
    answer_decide,
    answer_doubt,
    answer_doubt_anyway,
    answer_doubt_exit,
    answer_doubt_owner,
    answer_doubt_quote,
    answer_doubt_said,
    answer_figures,
    answer_fixfit,
    answer_join,
    answer_lines,
    answer_lost,
    answer_meaning,
    answer_more,
    answer_others,
    answer_overview,
    answer_port,
    answer_premise,
    answer_quote,
    answer_rerun,
    answer_runconf,
    answer_status,
    answer_story,
    answer_summary_why,
    answer_time_limit,
    answer_unheld,
    answer_unlogged,
    answer_wallclock,
    answer_whole,
)
from knowledge import answer_routes as routes
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.facts import load_catalogue
from knowledge.glossary import Term, load_glossary
from knowledge.intents import (
    CUE_WEIGHT,
    DECISIVE_WEIGHT,
    MAX_ASKS,
    MIN_SCORE,
    IntentMatcher,
    Match,
    asks,
    bare,
    named_ranks,
)
from knowledge.jobfacts_answers import build
from knowledge.schema import Entry, Xid

__all__ = ["AnswerBook", "Answerer", "Reply"]


class Answerer:
    """Answers questions about one diagnosis (and its entry, when the knowledge base has it)."""

    def __init__(
        self,
        diagnosis: Diagnosis,
        entry: Entry | None,
        related: Mapping[str, Entry] | None = None,
        matcher: IntentMatcher | None = None,
        glossary: Mapping[str, Term] | None = None,
        xids: Mapping[int, Xid] | None = None,
        past: Sequence[PastIncident] | None = None,
        debug: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        self.ctx = Ctx(
            d=diagnosis,
            view=build(diagnosis),
            entry=entry,
            related=related or {},
            glossary=glossary if glossary is not None else load_glossary(),
            xids=xids if xids is not None else load_catalogue(),
            past=past,
            debug=debug if debug is not None else answer_overview.load_debug(),
        )
        self.matcher = matcher or IntentMatcher()

    def answer(self, question: str) -> Reply:
        """The message's answer; a message that doubts the logs print a message it names ("does anything
        actually say No space left on device?") is told first whether a kept line says it, and what
        the failing rank printed instead: the rest of the message may not repeat the doubt's words."""
        got = answer_wallclock.with_run(self.ctx, self.matcher.text(question), self._answer(question))
        nodes = self.ctx.view.nodes + list(self.ctx.d.nodes)
        whole = self.matcher.match(self.matcher.text(question), nodes)
        got = answer_whole.complete(self.ctx, whole, got, self.asked)  # what the whole message asks too
        said, shown = answer_doubt_said.named(self.ctx, self.matcher.text(question))
        if not said or said.lower() in answer_asks.said(got):
            return got
        if got.intent == "help":
            return reply("quote", said, shown)
        return answer_join.first(got, said, shown)

    def _answer(self, question: str) -> Reply:
        """One ask answered as it is; a message with two or three ("which rank went first and why did
        the rest get killed?") gets the first ask's answer, then each later ask's own sentence (and
        its step or command), no fact said twice."""
        text = self.matcher.text(question)
        if (placed := self._cause_or_symptom(question, text)) is not None:
            return placed  # a pasted line "cause or symptom?": which rank printed it, its part in the failure
        if (update := self._status(text)) is not None:
            return update  # "status update: ranks, step, owner": each part in this job's numbers
        if (more := self._what_else(text)) is not None:
            return more  # "adding X. what else do i set before resubmitting?": what X leaves out
        nodes = self.ctx.view.nodes + list(self.ctx.d.nodes)
        if (own := answer_summary_why.whole(self.ctx, self.matcher.match(text, nodes))) is not None:
            return own  # "it lists X as also possible: why, and why ranked lower?": the summary's wording
        parts = [p for p in asks(text) if not bare(p) or self._strong(p)][:MAX_ASKS]
        if len(parts) < 2:
            return self.asked(question)
        replies = [self.asked(p) for p in parts]
        if replies[0].intent == "help" and bare(parts[0]) and replies[1].intent != "help":
            parts, replies = parts[1:], replies[1:]  # "only 16 MiB?? why did that fail": the real ask leads
        first = replies[0]
        if first.intent == "help":  # the first ask needs the message's other words: the message answers it
            first = self.asked(question)
            if first.intent == "help":
                return first
        elif (
            len(parts) > 1
            and replies[1].intent == first.intent
            and not answer_join.other_ranks(parts[0], parts[1])
        ):
            whole = self.asked(question)  # "was it saving? which ckpt": one answer, told both asks' words
            first = answer_join.kept_verdict(whole, first) if whole.intent == first.intent else first
        elif first.intent == "time_limit" and (whole := self.asked(question)).intent == first.intent:
            first = whole  # "what was my --time … and how much more do I need": one answer, both asks
        out = first
        for part, later in zip(parts[1:], replies[1:], strict=True):
            if first.intent == "time_limit" and answer_time_limit.covers(part):
                continue  # "how much more" after the limit: more time, which the limit's answer says
            if answer_meaning.restates(first, later, part):
                continue  # "what's a segfault and why is it not a python error": the meaning says why
            if (
                first.intent == "fix"
                and later.intent in ("fix", "verify")
                and answer_fixfit.FIT_Q.search(parts[0])
            ):
                continue  # "does that fit this run? what would you change?": the fit says both
            if later.intent == "help":  # "… which layer made the inf? how do i find out": the message says
                whole = self.asked(question)
                if whole.intent == first.intent and routes.HOW_SO.search(part):
                    continue  # "which layer made the inf? how do i find out": the first answer says how
                later = whole if whole.intent != "help" else later
            out = answer_asks.add(out, part, later)
        if out.intent != "others" and (named := answer_others.told(self.ctx, text)) is not None:
            out = answer_asks.add(out, text, named)  # "1 and 3 threw too … rank 0 printed nothing": theirs
        return out

    def _cause_or_symptom(self, question: str, text: str) -> Reply | None:
        """A pasted or described line asked "cause or symptom?" is answered as one ask, whatever the
        paste's own words would match; the initiating rank's line of context then gets the usual answer."""
        nodes = self.ctx.view.nodes + list(self.ctx.d.nodes)
        placed = answer_cause.cause_or_symptom(self.ctx, self.matcher.match(text, nodes), question)
        if placed is None or placed.intent != "context":
            return placed
        return answer_join.first(self.asked(question), placed.lead, placed.lines)

    def _status(self, text: str) -> Reply | None:
        """A status update's parts in one paragraph; an ask of the message that is no status part ("and
        is it fp16 overflow") gets its own sentence after it, as any later ask does."""
        parts = asks(text)
        if answer_story.OPENS_TIMELINE.search(text):
            return None  # "timeline for the postmortem: last line, the kill, the -9": events, not a status
        if answer_status.listed(text) < 2 and not (parts and bare(parts[0])):
            return None  # "for the postmortem: how long was it up before rank 5 blew up?": one ask, as usual
        nodes = self.ctx.view.nodes + list(self.ctx.d.nodes)
        got = answer_status.status(self.ctx, self.matcher.match(text, nodes))
        if got is None:
            return None
        for part in parts[:MAX_ASKS]:
            if not answer_status.covers(part):
                got = answer_asks.add(got, part, self.asked(part))
        return got

    def _what_else(self, text: str) -> Reply | None:
        """ "Adding X to the env. What else do I set before resubmitting?": the setup steps, told from the
        whole message (the step it names is context no ask keeps); its other asks answered after."""
        nodes = self.ctx.view.nodes + list(self.ctx.d.nodes)
        got = answer_rerun.what_else(self.ctx, self.matcher.match(text, nodes))
        if got is None:
            return None
        for part in asks(text)[:MAX_ASKS]:
            if not answer_rerun.ELSE_Q.search(part):
                got = answer_asks.add(got, part, self.asked(part))
        return got

    def _strong(self, part: str) -> bool:
        """A bare ask ("victims?", "timeout value") counts only when a cue of some intent names it;
        "the gpu is fine no?" or "file" alone matches no cue: it is context, and the message answers."""
        ranked = self.matcher.scores(part)
        return bool(ranked) and ranked[0][0] >= CUE_WEIGHT

    def asked(self, question: str) -> Reply:
        """One ask's answer; a memory answer asked *why* ("why would host RAM blow up on a save?",
        "16777216 bytes?? that's tiny, explain") also gets this job's cause, not the figures alone."""
        text = self.matcher.text(question)
        if (absent := answer_absent.not_shown(self.ctx, text)) is not None and absent.rest:
            return answer_join.first(
                self.asked(absent.rest), absent.lead, absent.lines
            )  # "rank0 log shows no nan"
        got = self._with_doing(self.answer_one(question), text)
        if (room := answer_more.headroom(self.ctx, text)) and room.lower() not in answer_asks.said(got):
            got = answer_asks.with_lead(got, room, [])  # "and how do we check the box has headroom"
        said, shown = answer_unlogged.kernel(self.ctx, text)
        if said and got.intent == "help":
            got = reply("facts", said, shown)  # "any I/O errors in dmesg?": none collected, no examples
        elif said and said.lower() not in answer_asks.said(got):
            got = answer_join.first(got, said, shown)  # "any dmesg?": none collected, then the usual answer
        got = answer_unheld.lead(self.ctx, text, got)  # "lr? fp16 or bf16?": not logged, then what is
        gap = " ".join(answer_asks.new_sentences(got, answer_unlogged.values(self.ctx, text)))
        if gap and got.intent == "help":
            got = reply("facts", gap, [])
        elif gap and gap.lower() not in answer_asks.said(got):
            joined = answer_asks.with_lead if got.intent == "facts" else answer_join.first
            got = joined(got, gap, [])  # after an unheld fact's sentence, the check it adds
        got = answer_runconf.added(self.ctx, text, got)  # "venv path?", "env vars set?", "total steps?"
        if (spent := answer_cost.cost(self.ctx, text)) and "gpu-hours" not in answer_asks.said(got):
            got = answer_cost.with_cost(got, spent)  # "how many GPU-hours did they burn waiting?"
        nodes = self.ctx.view.nodes + list(self.ctx.d.nodes)
        got = answer_figures.added(self.ctx, self.matcher.match(text, nodes), got)  # run length, numel, loss
        kept = (
            answer_lost.saved_fact(self.ctx, self.matcher.match(text, nodes))
            if got.intent == "restart"
            else None
        )
        if kept is not None and kept.lead.lower() not in answer_asks.said(got):
            got = answer_asks.with_lead(
                got, kept.lead, kept.lines
            )  # "a ckpt i can resume from?": none logged
        if (port := answer_port.proposed(self.ctx, self.matcher.match(text, nodes))) is not None:
            lone = got.intent in ("help", "explain")  # "next time --master_port 29500, fine?": that first
            got = (
                answer_join.first(got, port.lead, port.lines)
                if lone
                else answer_asks.with_lead(got, port.lead, [])
            )
        said, shown = answer_port.wrong_port(self.ctx, text)
        if said and got.intent == "help":
            got = reply("port", said, shown)  # "bot say 29500 collide but we not use it?": the port itself
        elif said and said.lower() not in answer_asks.said(got):
            got = answer_join.first(
                got, said, shown
            )  # "so the default 29500 was taken?": the port the error names
        guessing = self.matcher.match(text, nodes).intent == "alternatives" and answer_checks.guessed(text)
        if got.intent == "others" and guessing:  # "0,1,3 have nccl timeouts.. so network?": that first
            checked = answer_checks.guess(self.ctx, self.matcher.match(text, nodes))
            got = (
                got if checked is None else answer_join.first(got, checked.lead, checked.lines)
            )  # the guess first
        verdict = answer_checks.culprit_verdict(self.ctx, self.matcher.match(text, nodes))
        said, shown = answer_doubt.evidence(self.ctx, text, which=not verdict)
        if said and said.lower() not in answer_asks.said(got):
            got = answer_join.first(got, said, shown)  # "how can you pin it on rank 3?": what named it, first
        said, shown = answer_challenge.refute(self.ctx, text)
        if said and got.intent == "help":
            got = reply("alternatives", said, shown)  # the check is the answer: no list of examples
        elif said and said.lower() not in answer_asks.said(got):
            got = answer_join.first(got, said, shown)  # the named cause checked first, then the usual answer
        said, shown = answer_premise.desync(self.ctx, text)
        if said and got.intent == "help":
            got = reply("alternatives", said, shown)  # the check is the answer: no list of examples
        elif said and said.lower() not in answer_asks.said(got):
            got = answer_join.first(
                got, said, shown
            )  # "same as the desync one?": ranks in different collectives or not
        said, shown = answer_cause.not_xid(self.ctx, text)
        if said and said.lower() not in answer_asks.said(got):
            got = answer_join.first(
                got, said, shown
            )  # "same as the xid79 thing?": no Xid here, what it was instead
        if verdict and verdict.lower() not in answer_asks.said(got):
            got = answer_join.first(
                got, verdict, []
            )  # "torchrun says root cause is rank 0, right?": no or yes first
        got = self._doubts(got, text, self.matcher.match(text, nodes))
        said, shown = answer_premise.step_sentence(self.ctx, text, answer_asks.said(got))
        if said:
            got = answer_asks.with_lead(
                got, said, shown
            )  # "which rank … and around which step": the step too
        got = answer_unheld.held(self.ctx, text, got)  # "fp16 or bf16?": the line that prints it
        got = answer_decide.decided(self.ctx, self.matcher.match(text, nodes), got)  # "… drain or rerun?"
        if got.intent != "memory" or not routes.WHY_MECHANISM.search(text):
            return got
        cause = answer_overview.rank_why(self.ctx, self.matcher.match(text, nodes))
        return answer_asks.with_cause(got, cause)

    def _doubts(self, got: Reply, text: str, m: Match) -> Reply:
        """A figure or a fate the reader puts to be checked gets yes or no first ("exit code was -9
        right", "would rank 0 have failed anyway?"); "who do i ping" gets whose move it is last."""
        for said, shown in (answer_doubt_anyway.anyway(self.ctx, m), answer_doubt_exit.confirm(self.ctx, m)):
            if said and got.intent == "help":  # the check is the answer: no list of examples after it
                got = reply("rank_why", said, shown)
            elif said and said.lower() not in answer_asks.said(got):
                got = answer_join.first(got, said, shown)
        who = answer_doubt_owner.who_to_ping(self.ctx, text)
        if who and who.lower() not in answer_asks.said(got):
            got = answer_asks.with_lead(got, who, [])
        return got

    def _with_doing(self, got: Reply, text: str) -> Reply:
        """An answer that describes the initiating rank (its memory, why, which, when, the summary)
        also says what that rank was doing in words, from its own last line before the failure."""
        ini = self.ctx.view.initiating
        if got.intent not in routes.DOING_INTENTS or ini is None:
            return got
        if got.intent == "summary" and answer_doubt_quote.ONE_LINER.search(text):
            return got  # "one liner for the ticket": one sentence, not the rank's last line too
        named = named_ranks(text)
        if named and ini.rank not in named:
            return got
        sentence = answer_more.doing(self.ctx, ini, answer_asks.said(got))
        line = answer_more.doing_line(self.ctx, ini)
        words = answer_more.activity_words(line.text).lower() if line is not None else ""
        if not sentence or line is None or words in answer_asks.said(got):
            return got
        return answer_asks.with_lead(got, sentence, [line])

    def answer_one(self, question: str) -> Reply:
        """The first intent, best first, whose handler can answer from this job's facts."""
        nodes = self.ctx.view.nodes + list(self.ctx.d.nodes)
        m = self.matcher.match(question, nodes)
        ranked = self.matcher.scores(question)
        decided = bool(ranked) and ranked[0][0] >= DECISIVE_WEIGHT and ranked[0][2] != "explain"
        asks_meaning = not decided and any(i == "explain" and s >= CUE_WEIGHT for s, _, i in ranked)
        if (meant := answer_meaning.meaning(self.ctx, m)) is not None:
            return meant  # "what's a hang, in our run?": its meaning, then this job's fact, not a guess
        for check, with_fix in routes.FIRST_CHECKS:  # asks that carry their own answer, in order
            if (got := check(self.ctx, m)) is not None:
                return self._and_fix(got, m, ranked) if with_fix else got
        guess = (
            routes.GUESS.search(m.text)
            and not routes.CHOICE.search(m.text)
            and not routes.HOW_MEANS.search(m.text)
        )
        if guess and (checked := answer_overview.alternatives(self.ctx, m)) is not None:
            return checked  # "so was it the network?? gloo says …": the guess first, whatever else it names
        if (
            routes.MEANING.search(m.text)
            and (quoted := answer_quote.quote(self.ctx, m, question)) is not None
        ):
            return self._and_fix(
                quoted, m, ranked
            )  # "what does 'pos 1088 vs 982' mean": the line, its meaning
        if asks_meaning and (term := answer_advice.explain(self.ctx, m)) is not None:
            return term  # "what is the OOM killer?": the term, before the memory figures
        for score, _, intent in ranked:
            if score < MIN_SCORE:
                break
            if intent in routes.NODE_FIRST and m.node in nodes and m.rank is None:
                on_node = answer_lines.node(self.ctx, m)  # "which ranks were on gpu-02?": that node's facts
                if on_node is not None:
                    return on_node  # a node only the scheduler's banner names: the intent's own answer
            reply = routes.HANDLERS[intent](self.ctx, m)
            if reply is not None:
                return reply
        if m.node is not None:
            reply = answer_lines.node(self.ctx, m)
            if reply is not None:
                return reply
        if (term := answer_advice.explain(self.ctx, m)) is not None:
            return term  # a bare "expandable_segments??": the term it names
        if (quoted := answer_quote.quote(self.ctx, m, question, words=False)) is not None:
            return quoted  # a fragment of the logs, quoted or named, and not asked about in words
        if m.rank is not None and m.rank in self.ctx.view.ranks:
            reply = answer_overview.rank_why(self.ctx, m)  # "rank 4 too?": that rank's part
            if reply is not None:
                return reply
        return self.help(m.rank)

    def _and_fix(self, got: Reply, m: Match, ranked: list[tuple[float, int, str]]) -> Reply:
        """A meaning checked in a message that also asks what to change ("what do i change before the
        rerun? 'Killed' means oom right"): the fix, led by the meaning, so neither ask is dropped."""
        if not ranked or ranked[0][0] < DECISIVE_WEIGHT or ranked[0][2] != "fix":
            return got
        fixed = answer_overview.fix(self.ctx, m)
        return got if fixed is None else answer_join.first(fixed, got.lead, got.lines)

    def help(self, rank: int | None = None) -> Reply:
        """What it can answer, with example questions fitted to this job (and to the rank asked about)."""
        return answer_join.help_reply(self.ctx.view, rank)


class AnswerBook:
    """Answers over a set of entries; the intent index and the glossary are built once, then kept."""

    def __init__(self, entries: Mapping[str, Entry]) -> None:
        self.entries = entries
        self.matcher = IntentMatcher()
        self.glossary = load_glossary()
        self.xids = load_catalogue()
        self.debug = answer_overview.load_debug()

    def answerer(self, diagnosis: Diagnosis, past: Sequence[PastIncident] | None = None) -> Answerer:
        entry = self.entries.get(diagnosis.entry.id) if diagnosis.entry else None
        return Answerer(
            diagnosis, entry, self.entries, self.matcher, self.glossary, self.xids, past, self.debug
        )

    def answer(
        self, diagnosis: Diagnosis, question: str, past: Sequence[PastIncident] | None = None
    ) -> Reply:
        return self.answerer(diagnosis, past).answer(question)
