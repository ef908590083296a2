"""Where one ask of a message ends and the next begins ("which port, who sits on it, cmd to check").

People put two or three asks in one Slack message, joined by `?`, `+`, a dash, `y/n`, `but` or
`, and`; some asks have no question word at all ("victims?", "restart as is y/n", "timeout value +
which step"). Split here, each ask is matched to its own intent (`knowledge.intents`) and answered
with its own sentence (`knowledge.answer_asks`). Kept apart from the matcher: it is plain text rules,
and the matcher module stays small.
"""

from __future__ import annotations

import re

#: where one ask ends and another begins: a `?` mid-text, a sentence's end, `+`, a dash, `y/n`, `but`,
#: `, and why`, `and which` ... (one group: the separator is kept, it says whether the part was asked);
#: "deepspeed + torch versions" is one ask, a `+` inside a list of names
_ASK_SPLIT = re.compile(
    # an ellipsis with a space before it elides a quoted line ("from the saving checkpoint to ... line
    # until"): it splits only before a new ask
    r"(\?+\s+|(?<=[a-z0-9)\]`\x27\"])\.\s+(?=[a-z`\x27\"])|(?<![\s.])(?:\.{2,}|…)\s*"
    r"|\s(?:\.{2,}|…)\s*(?=(?:why|what|which|how|where|when|who|is|was|did|does|do|can|and|so|but)\b|$)"
    r"|\s+\+\s+(?![\w.-]+ versions?\b)|\s+[—–]+\s+"
    r"|\s+-{1,2}\s+(?=[a-z])|\s+y ?/ ?n\b\W*|\s*[,;]?\s+but\s+"
    r"|\s*[,;]\s*(?:and\s+|also\s+)?(?=(?:why|what|which|how|where|when|who|was|is|did|"
    r"does|do|can|should|could|will|were|are|show me|give me|paste)\b)"
    # "and how, …" / "died and how" at the end: the same ask ("who else died and how"), not a new one
    r"|\s+(?:and|n)\s+(?:also\s+)?(?:(?:at|in|on|from|for|by) )?"
    r"(?=(?:why|what|which|how|where|when|who)\b(?!\s*(?:[,;?.]|$)))"
    r"|\s+and\s+(?=(?:do|does|did|should|can|could|is|was|are|were|will) (?:i|we|you|it|they|this|that)\b)"
    # "what line raised it, exit codes?": a short topic asked after a comma at the end ("right?" is no topic)
    r"|\s*,\s*(?=(?!(?:right|correct|yes|no|true|ok|okay|yeah|yep|innit|eh|pls|please|thx|thanks)\W*$)"
    r"[a-z][\w'/-]*(?: [\w'/-]+){0,2}\?+\s*$)"
    # "pid 4411 whose is that": a pasted line, then the ask about it
    r"|(?<=[\w)\]`\x27\"])\s+(?=whose (?:\w+ )?(?:is|was) (?:that|this|it)\b))"
)
_ASKS = re.compile(
    r"^(?:ok(?:ay)? |so |and |n |also |hey |then |wait |lead q |ok so |roughly |approx\w* |ballpark )*"
    r"(?:(?:from|at|on|in|to|for|since|until|by|with) )?"  # "and from which step"
    r"(?:fix|fixes|workaround|eta|timeline|root cause|tldr|one[- ]?liner|"  # a bare topic is an ask ("fix?")
    r"why|what|whats|which|how|hows|where|when|who|whos|whose|was|wasnt|is|isnt|wtf|explain|any|"
    r"show|give|paste|cite|tell|are|were|did|didnt|does|do|can|could|should|will|would|has|have|"
    r"cant|cannot|couldnt|shouldnt|wont|wouldnt|dont|doesnt|arent|werent)\b"
    # "I need to know if gpu-02 gets drained": an ask put as a need
    r"|^(?:i|we) (?:need|want|have|would like|d like) to (?:know|find out|understand) "
    r"(?:if|whether|which|what|who|when|how|why)\b"
    # a request put as a noun ("exact command to see who holds the port", "steps to resume")
    r"|^(?:the |an? )?(?:exact |right |correct |quickest |best |one[- ]line |safe )?"
    r"(?:command|commands|cmd|steps|way|script|line|snippet|config) (?:to|for)\b"
)
#: a separator that asks what came before it: `?`, `y/n` (a bare "victims?" or "restart as is y/n" asks)
_ASKED = re.compile(r"\?|\by ?/ ?n\b")
#: a statement put up to be checked ("the loss was fine, pls confirm"): an ask without a question word
_CHECK_ME = re.compile(
    r"\b(?:please |can you )?(?:confirm|verify|double[- ]check|sanity[- ]check)(?: please)?$"
)
#: a clause that names figures it wants ("rank 0 OOM numbers (tried to alloc / free), what step"): an ask
_FIGURES = re.compile(r"\b(?:numbers|figures|stats|breakdown)\b")
#: `+` joins two asks ("timeout value + what step"), never an ask and its context
_PLUS = re.compile(r"\s+\+\s+$")
#: a short topic after a `?` that ends the message asks too ("victims? exit codes")
MAX_TAIL_WORDS = 3
#: at most this many asks of one message are answered, each with its own sentence
MAX_ASKS = 4


def asks(q: str) -> list[str]:
    """The questions in a normalised message that asks several ("which rank went first and why did the
    rest get killed?"); a clause that asks nothing ("ok so rank 5 oomd") is context, not an ask. A bare
    topic asked with `?`, `y/n` or `+` ("victims?", "restart as is y/n", "timeout value + which step") is
    an ask, told the statement before it ("ranks 1-3 in the barrier — victims?"): alone it says too little."""
    if items := _topic_list(q):
        return items
    pieces = _ASK_SPLIT.split(q)
    parts = [_after_context(p.strip(" ,;.!?+-—–")) for p in pieces[::2]]
    seps = [*pieces[1::2], q[-1:]]
    out: list[str] = []
    context = topic = ""  # the statement before, and a bare topic asked just before ("TCPStore??")
    for i, part in enumerate(parts):
        if not part:
            continue
        plus = bool(_PLUS.match(seps[i]) or (i and _PLUS.match(seps[i - 1])))
        last = 0 < i == len(parts) - 1 and "?" in seps[i - 1] and len(part.split()) <= MAX_TAIL_WORDS
        if part.startswith("or ") and out and "?" in seps[i - 1] and not _ASKS.search(part[3:]):
            out[-1] = f"{out[-1].rstrip('?')} {part}"  # "lr too high? or bad data?": one ask, a choice
            continue
        if _WHICH_OF.search(part) and out and topic:  # "rank 0's traceback, rank 2's kill?? which one is it"
            out[-1] = f"{out[-1].rstrip('?')}: {part}"  # one ask: the choice needs both sides it is between
            topic = context = ""
            continue
        wanted = _FIGURES.search(part) and not _STATEMENT.search(part)  # "rank 0 OOM numbers, what step"
        if _ASKS.search(part) or _GUESSING.search(part) or _CHECK_ME.search(part) or wanted:
            before = context or topic  # "TCPStore?? what is that": "that" is the topic
            if before and (ranks := _RANK_ONLY.match(before)) and _IT.search(part):
                part, before = _IT.sub(ranks.group(1), part, 1), ""  # "rank 1 — did it error?": rank 1's
            out.append(f"{before}: {part}" if before and _BACK.search(part) else part)
            topic = ""
        elif _ASKED.search(seps[i]) or plus or last:
            asked = f"{part}?" if "?" in seps[i] else part  # "network?" asks; "network" names
            out.append(f"{context}: {asked}" if context else asked)
            topic = part
        else:
            context = part  # a statement: kept only for an ask that points back at it
            continue
        context = ""
    return out


#: a terse list of topics ("pids, exit codes, time of failure"): each item is its own ask
_LIST_SEP = re.compile(r"\s*,\s*(?:and\s+|&\s+)?|\s+and\s+(?=[^,]*$)")
_LIST_ITEM = re.compile(r"^[\w .'/-]+$")
#: a verb makes an item a statement ("the loss looked fine, pls confirm"), not a topic asked for
_STATEMENT = re.compile(
    r"\b(?:was|is|were|are|looked|looks|seems?|seemed|died|failed|crashed|hung|please|thanks|thx)\b"
)
#: a list item longer than this is a sentence, not a topic
MAX_ITEM_WORDS = 4


def _topic_list(q: str) -> list[str]:
    """The items of a message that only lists what it wants ("pids, exit codes, time of failure"): no
    question word anywhere, so the ask splitter sees one clause, yet each item asks for its own fact."""
    if "," not in q:
        return []
    items = [i for i in _LIST_SEP.split(q.strip(" ?.!")) if i]
    if len(items) < 2 or any(not _LIST_ITEM.match(i) or len(i.split()) > MAX_ITEM_WORDS for i in items):
        return []
    said = (_ASKS, _GUESSING, _CHECK_ME, _STATEMENT)
    return [] if any(rx.search(i) for rx in said for i in items) else [f"{i}?" for i in items]


def bare(part: str) -> bool:
    """An ask without a question word ("victims?", "network?"): its answer may add nothing."""
    ask = part.rsplit(": ", 1)[-1]
    said = _ASKS.search(ask) or _GUESSING.search(part) or _CHECK_ME.search(ask)
    return not (said or _TERM_ASKED.search(ask) or _TIMELINE_LEAD.search(part))


#: a message that opens by asking for a timeline ("postmortem timeline please, times as printed: …")
_TIMELINE_LEAD = re.compile(r"^(?:\S+ ){0,3}?(?:time ?line|sequence of events)\b")


#: a statement that only names ranks ("rank 1 — did it error at all?"): the ask after it is about them
_RANK_ONLY = re.compile(r"^(?:and |what about |re |for )?(ranks? \d+(?:\s*(?:,|-|and|&)\s*\d+)*)$")


#: the pronoun an ask after a rank-only statement points back with ("rank 1 — did it error?")
_IT = re.compile(r"\b(?:it|they|he|she)\b")


#: a paste that ends by asking what one of its tokens is ("name: eaddrinuse whats -98?"): an ask
_TERM_ASKED = re.compile(r"\b(?:whats|what is|what are|wtf is)\s+\S+\s?\?$")


#: an ask about the statement just before it ("I hardcode the port. is that it?")
_BACK = re.compile(
    r"^(?:is|was|were|are|could|would|should|does|do|did|will|can) (?:that|this|they|those|these)\b"
    r"|^(?:what|whats|what is|what does) (?:that|this|it)(?: mean)?$"
    r"|\b(?:last|first|latest|previous|next|other) (?:\w+ )?one$"
    r"|\b(?:bump|raise|increase|extend|lower|drop|flip|trust|ignore) (?:it|that|this|them)\b"
    r"|^whose (?:\w+ )?(?:is|was) (?:that|this|it)\b"
)


#: a choice between the things just said ("which one is the culprit", "which of them do I chase")
_WHICH_OF = re.compile(r"^(?:so |ok |then )?which (?:one|of (?:them|the two|those|these|both))\b")


#: a clause offering a guess ("smells like a network blip", "pretty sure the box is flaky"): it asks to
#: be checked, as "is it the network?" would, even with no question word
_GUESSING = re.compile(
    r"\b(?:smells|looks|sounds|feels|seems) like\b|\bpretty sure\b|\bi (?:think|bet|suspect|reckon)\b"
    r"|\bmy (?:guess|bet) is\b"
)


#: "for the weekly report: how far did it get" — a short lead-in before a colon is context
_LEAD_IN = re.compile(r"^[^:?]{1,40}:\s+(?=\S)")


def _after_context(part: str) -> str:
    if _ASKS.search(part):
        return part
    rest = _LEAD_IN.sub("", part, count=1)
    return rest if _ASKS.search(rest) else part
