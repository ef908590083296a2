"""Common misspellings and dropped words of a fast typist, spelled out before matching.

The typo corrector (`knowledge.intents.correct`) fixes one-edit slips of words of five letters or more;
short words typed in a hurry (`wich`, `realy`, `nxt`, `waht`, `whre`) are below that floor, and a
dropped auxiliary ("how get a core dump", "when crash") leaves an ask the exemplars do not phrase. Each
rule here is a class of slip, not one question: data, kept apart so the shorthand table stays small.
"""

from __future__ import annotations

import re

#: short question and function words as they are mistyped (letters dropped, swapped or doubled)
_WORDS: dict[str, tuple[str, ...]] = {
    "which": ("wich", "whic", "wihch", "whihc", "whcih", "whch", "wch"),
    "what": ("waht", "wha", "whta"),
    "where": ("wher", "whre", "wehre", "whr"),
    "when": ("whne", "wehn"),
    "who": ("woh",),
    "why": ("wy", "whyy"),
    "really": ("realy", "relly", "rly", "realll", "reallly", "reall"),
    "next": ("nxt", "nex"),
    "previous": ("prev", "prv"),
    "the": ("teh",),
    "about": ("abt", "abut"),
    "because": ("becuase", "becasue", "bcs", "bcoz"),
    "should": ("shud", "shoud", "shld"),
    "could": ("cud", "coud", "cld"),
    "would": ("wud", "woud", "wld"),
    "does": ("dose",),
    "have": ("hav", "hve"),
    "again": ("agian", "agin", "agn"),
    "still": ("stil",),
    "there": ("ther", "tehre"),
    "through": ("thru",),
    "though": ("tho",),
    "without": ("w/o",),
    "message": ("msg",),
    "something": ("smth", "sth", "smthg"),
    "probably": ("prolly", "probly"),
    "right now": ("rn",),
    "i dont know": ("idk",),
    "exit code": ("exitcode", "exit-code", "exit status", "exitstatus"),
    "step": ("stp",),
    "crash": ("crsh", "carsh"),
    "resume": ("resum", "reusme", "rsume"),
    # the word typed in the asker's own language ("only one nó in this job?", "cuántos nodos")
    "node": ("nó", "nodo", "nœud", "noeud", "knoten"),
    "nodes": ("nós", "nodos", "nœuds", "noeuds"),
}
_TYPOS = tuple(
    (re.compile(r"(?<![\w/-])(?:" + "|".join(re.escape(t) for t in typos) + r")(?![\w/-])"), word)
    for word, typos in _WORDS.items()
)
#: a question word followed straight by a verb, its auxiliary dropped ("how get", "when crash",
#: "can resume"): the auxiliary put back, so the ask reads as the exemplars phrase it
_DROPPED = (
    (
        re.compile(r"\b(how|where|what) (get|set|see|fix|find|check|stop|avoid|make|turn|enable|debug)\b"),
        r"\1 do i \2",
    ),
    (re.compile(r"\bwhen (crash|die|fail|stop|hang|start|end)\b"), r"when did it \1"),
    (re.compile(r"(^|[?.!,] )can (resume|restart|rerun|retry|continue)\b"), r"\1can we \2"),
    # "exit -9", "exited w/ 137": the code a process ended with, named as the exemplars name it
    (re.compile(r"\b(what is|whats|what does|meaning of|explain) exit (-\d+|\d{1,3})\b"), r"\1 exit code \2"),
    # "can resume?? which ckpt": the checkpoint asked for is the one to resume from, not the one saved
    (
        re.compile(
            r"\b(resume|restart|rerun|resubmit|continue)(\b[^?]{0,30}\?+\s*)(which|what) checkpoint"
            r"(?: to (?:use|pick|take|load))?\b(?! to)"
        ),
        r"\1\2\3 checkpoint to resume from",
    ),
    # "other ranks timeout when n on which op": a statement, then the asks about it at its end
    (
        re.compile(r"^([a-z][\w ,-]{3,60}?) (when|where|why) (?:and|n) ((?:on|in|at) )?(which|what) "),
        r"\2 did \1 and \3\4 ",
    ),
    # "when n on which op": `n` for "and" between two words, never a name ("rank n", "step n")
    (
        re.compile(r"\b(?!(?:rank|step|node|size|of|the|to|is|ranks|steps|nodes)\b)([a-z]+) n (?=[a-z])"),
        r"\1 and ",
    ),
)


def spelled(q: str) -> str:
    """`q` (lower case) with common misspellings of short words and dropped auxiliaries put right."""
    for rx, word in _TYPOS:
        q = rx.sub(word, q)
    for rx, repl in _DROPPED:
        q = rx.sub(repl, q)
    return q
