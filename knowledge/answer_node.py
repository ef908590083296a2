"""Whether a node is at fault: an Xid and its card, the same bus id on another node, drain or not.

"Is it hardware?", "do I drain gpu-02?", "rank 1 on gpu-01 has busId 3b000 too, is it broken?": a node
is drained on these answers, so each says first what this job's evidence shows about the node (an Xid
on it, or nothing at all), then the commands fitted to it.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex.core.texts import followups as tf
from denpex.core.texts import followups_job as tj
from denpex.core.texts import followups_verdicts as tv
from denpex.core.texts import thread as t
from knowledge import (
    answer_advice,
    answer_checks,
    answer_code,
    answer_job,
    answer_mechanism,
    answer_more,
    answer_rerun,
    answer_xid_facts,
)
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.evidence_numbers import xid as parse_xid
from knowledge.intents import Match
from knowledge.wording import phase_words


def same_slot(c: Ctx, m: Match) -> str:
    """A rank on another node whose GPU has the failed GPU's PCI id: a different card in the same slot."""
    r = c.view.ranks.get(m.rank) if m.rank is not None else None
    xids = answer_advice.xid_lines(c)
    if r is None or r.gpu is None or not xids or (ev := parse_xid(xids[0].text)) is None:
        return ""
    node = next((n for n, ls in c.d.nodes.items() if xids[0] in ls), None)
    if node is None or r.node == node or ev.pci is None or ev.pci not in r.gpu:
        return ""
    owner = next(
        (x.rank for x in c.view.ranks.values() if x.node == node and x.gpu and ev.pci in x.gpu), None
    )
    who = owner if owner is not None else "?"
    said = tf.PCI_OTHER_NODE.format(xid_node=node, pci=ev.pci, xid_rank=who, node=r.node)
    if r.node is not None and not any(x in c.d.nodes.get(r.node, []) for x in xids):
        said += " " + tv.PCI_NO_XID_THERE.format(node=r.node)  # "is rank 1's GPU bad too?": not that one
    return said


_RMA = re.compile(r"\b(?:rma|replace|replacement|swap|return)\b", re.IGNORECASE)


def hardware(c: Ctx, m: Match) -> Reply | None:
    """Hardware or not; when it is not and the tracebacks show a desync, that is the code's part."""
    base = answer_advice.hardware(c, m)
    if base is None:
        return None
    collateral = answer_checks.named_collateral(c, m)  # "ranks 4 and 6 errored too: bad GPUs as well?"
    if cleared := answer_checks.node_collateral(c, m):  # "is gpu-01 also bad?": that node first
        first = base.lead[0].lower() + base.lead[1:] if base.lead[1:2].islower() else base.lead
        base = reply("hardware", f"{cleared} {first}", base.lines, action=base.action)
    version = answer_more.versions(c, m) if "driver" in m.text else ""  # "what driver is on that box?"
    if version:  # the version first, whatever follows
        base = reply("hardware", f"{version} {base.lead}", base.lines, action=base.action)
    if answer_advice.xid_lines(c):
        rma = [s for s in c.steps if _RMA.search(s)]
        step = tf.RMA_NEXT.format(step=rma[0]) if rma and _RMA.search(m.text) else _xid_action(c, m)
        code = c.d.verify
        if _DRAIN.search(m.text) and "drain" in c.d.fix_snippet:  # "exact cmds to drain it": the fitted ones
            step, code = f"{step} {tj.DRAIN_CMD}".strip(), f"{c.d.verify}\n{c.d.fix_snippet}".strip()
        slot = same_slot(c, m)  # "rank 1 at 3b:00 on gpu-01 too: bad card?": another node's, no Xid there
        lead = " ".join(x for x in (slot, base.lead, collateral, step) if x)
        return reply("hardware", lead, base.lines, action=base.action, code=code)
    note = answer_code.desync_note(c)
    ini = c.view.initiating
    if not note and ini is not None and f"rank {ini.rank}" not in base.lead.lower():
        note = tf.started_here(ini.rank, t.category_words(c.view.category), "")  # "a gloo bug?": who began
    kernel = tf.NO_KERNEL_FAULT.format(rank=ini.rank) if ini is not None else ""
    if ini is not None and ini.node:  # "which box is that on and is the gpu bad": the node, named
        kernel = tv.NO_KERNEL_FAULT_ON.format(rank=ini.rank, node=ini.node)
    if answer_job.no_worker_started(c):  # "is it my code?": it never ran
        kernel = tf.NO_WORKER_RAN
    copies = answer_mechanism.copies(c)  # not the node: it was asked to hold a copy per rank
    if _software(c):  # "bad gpu?" for a NaN or an OOM: no, said plainly
        base = replace(base, lead=tv.NOT_HARDWARE.format(what=t.category_words(c.view.category)))
        base = replace(base, lead=f"{version} {base.lead}".strip())
    lead = " ".join(x for x in (_no_drain(c, m), base.lead, collateral, note, kernel, copies) if x)
    rerun, shown = answer_rerun.before_rerun(c, m, lead)  # what to change (or grab) before the rerun
    lead = f"{lead} {rerun}".strip()
    return reply("hardware", lead, [*base.lines, *shown], action=base.action)


#: "do I drain it?", "take the node out?", "cordon it?"
_DRAIN = re.compile(
    r"(?<!down the )\b(?:drain\w*|cordon\w*|take (?:it|the node|the box) out|pull (?:it|the node|the box))\b"
)


#: a node action asked about ("reboot anything?", "swap the gpu?"): the verb the answer says no or yes to
_NODE_ACTION = re.compile(
    r"\b(?P<act>reboot|power[- ]?cycle|reset|swap|replace|rma)(?:ed|ing|s)?\b", re.IGNORECASE
)
#: an entry's fix step that is that action (the reboot or reset it names)
_REBOOT_STEP = re.compile(r"\b(?:reboot|power-cycle|reset)\b", re.IGNORECASE)


def _no_drain(c: Ctx, m: Match) -> str:
    """ "Do I drain gpu-02?", "reboot anything?", "swap it?" for a job with no hardware evidence: no,
    said first, with the node."""
    ini = c.view.initiating
    node = m.node or (ini.node if ini is not None and ini.node else None) or "the node"
    if _DRAIN.search(m.text):
        asked = c.view.ranks.get(m.rank) if m.rank is not None else ini
        unnamed = tv.NODE_UNNAMED.format(rank=asked.rank) if asked and not asked.node and not m.node else ""
        what = t.category_words(c.view.category)
        if ini is not None and ini.phase and ini.phase != "teardown":  # "… while saving a checkpoint"
            what += f" while {phase_words(ini.phase)}"
        return f"{unnamed}{tj.NO_DRAIN.format(node=node, what=what)}"
    if (act := _NODE_ACTION.search(m.text)) is None:
        return ""
    said = tv.NO_HW_ACTION if _software(c) else tv.HW_ACTION_UNSURE  # a silent death may be the GPU's
    return said.format(act=_verb(act.group("act")), node=node)


def _software(c: Ctx) -> bool:
    """The entry says this failure is software or configuration (or neither: a full disk, a scheduling
    decision), never the hardware; "neither by itself" (a teardown) leaves the first failure open."""
    said = c.entry.faq.hardware_or_software.lower() if c.entry is not None else ""
    return said.startswith("software") or (said.startswith("neither") and "by itself" not in said[:20])


def _verb(act: str) -> str:
    low = act.lower()
    return "power-cycle" if low.startswith("power") else "RMA" if low == "rma" else low


def _xid_action(c: Ctx, m: Match) -> str:
    """ "Does it need a reboot?" for an Xid that is hardware: yes, with the entry's reboot/reset step."""
    act = _NODE_ACTION.search(m.text)
    if act is None or c.entry is None or _verb(act.group("act")) not in ("reboot", "reset", "power-cycle"):
        return ""
    steps = [s for s in c.steps if _REBOOT_STEP.search(s)]
    return tv.XID_ACTION.format(step=steps[0]) if steps else ""


#: "how do we know it's rank 5's gpu?", "what ties it to rank 5", with the Xid named anywhere in the message
_WHOSE_GPU = re.compile(
    r"\bhow (?:do|did|can|would|are) (?:we|you|i|they) (?:know|tell|(?:be )?sure|(?:be )?certain)\b.{0,30}"
    r"\b(?:rank \d+|its|it'?s|that|the same|this)\b.{0,20}\b(?:gpu|card|device)\b"
    r"|\bwhat (?:ties|links|maps|connects) (?:it|the xid|that|this) to (?:rank \d+|a rank|that rank)\b"
)


def whose_gpu(c: Ctx, m: Match) -> Reply | None:
    """ "Xid says pid=45121, no NCCL pid matches. So how do we know it's rank 5's GPU?": the tie of the
    Xid to its rank (its bus id against the ranks' start-up lines), whatever words carry the Xid."""
    if c.view.category != "gpu_hardware_xid" or "xid" not in m.text or not _WHOSE_GPU.search(m.text):
        return None
    ini = c.view.initiating
    rank = ini.rank if ini is not None else m.rank
    return answer_xid_facts.xid_facts(c, replace(m, text=f"how do we know the xid is rank {rank}'s gpu"))


__all__ = ["hardware", "same_slot", "whose_gpu"]
