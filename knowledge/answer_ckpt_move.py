"""Where the checkpoint goes, asked as a move ("ckpt_dir is on /tmp i think, should i move it?").

Why: the code answer named the frame that called `torch.save` and defined `CKPT_DIR` as a placeholder,
but never the file the save line names, its folder, or whether moving it would help. The answer is the
file and folder from the job's own save line, then yes when the save failed on the disk (with what to
check on the new place), or no when it failed for another reason (memory), since the folder is not what
broke.
"""

from __future__ import annotations

import re

from denpex.core.texts import followups_verdicts as tv
from denpex.core.texts import thread as t
from knowledge.answer_quote import saving_line
from knowledge.answer_types import Ctx, Reply, ref, reply
from knowledge.intents import Match

#: a move of the checkpoint folder asked ("should i move it", "put the ckpt dir elsewhere", "off /tmp")
MOVE_Q = re.compile(
    r"\b(?:move|moving|relocat\w*|elsewhere|somewhere else|off /tmp)\b"
    r"|\banother (?:disk|volume|filesystem|drive)\b"
)
#: a folder under /tmp (often small, node-local and cleaned)
_TMP = re.compile(r"^/tmp/")
_CKPT = re.compile(r"\b(?:ckpt|checkpoint|save|output)s?(?:[_ ]?(?:dir|folder|path|location))?\b|/tmp\b")
_DISK = ("disk_full_or_io",)
#: the absolute path a save line names
_PATH = re.compile(r"(/[^\s'\"`]+)")


def move(c: Ctx, m: Match) -> Reply | None:
    """The file the save line names and its folder; whether moving the folder would help this job."""
    ini = c.view.initiating
    if ini is None or not MOVE_Q.search(m.text) or not _CKPT.search(m.text):
        return None
    found = saving_line(c)
    if found is None:
        return None
    name, line = found
    full = _PATH.search(line.text)
    path = full.group(1) if full is not None and full.group(1).endswith(name) else name
    folder = path.rsplit("/", 1)[0] if "/" in path else "."
    tmp = tv.CKPT_ON_TMP if _TMP.match(path) else ""
    lead = tv.CKPT_WRITING.format(
        rank=ini.rank, file=path.rsplit("/", 1)[-1], ref=ref(line), folder=folder, tmp=tmp
    )
    key = c.view.key_line()
    eref = ref(key[0]) if key else "its log"
    what = t.category_words(c.view.category)
    tail = tv.CKPT_MOVE_DISK if c.view.category in _DISK else tv.CKPT_MOVE_OTHER
    lead = f"{lead} {tail.format(what=what, eref=eref, folder=folder)}"
    return reply("code", lead, [line, *key])


__all__ = ["MOVE_Q", "move"]
