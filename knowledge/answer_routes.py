"""Where a follow-up question goes: each intent's handler and the patterns that reroute an ask.

Kept apart from `knowledge.answers` (which decides, per ask, which of these applies) so the table of
intents and the cues read as data, in one place.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from knowledge import (
    answer_advice,
    answer_advice_value,
    answer_around,
    answer_backend,
    answer_bind,
    answer_blame,
    answer_checks,
    answer_ckpt_move,
    answer_code,
    answer_code_cause,
    answer_code_raised,
    answer_compare,
    answer_complaint,
    answer_debug,
    answer_delta,
    answer_device,
    answer_doubt_quote,
    answer_dumps,
    answer_ending,
    answer_errline,
    answer_evidence,
    answer_facts,
    answer_fields,
    answer_fixdoubt,
    answer_fixfit,
    answer_fixordebug,
    answer_grace,
    answer_guesses,
    answer_history,
    answer_hostmem,
    answer_howfar,
    answer_hungdead,
    answer_job,
    answer_laststep,
    answer_lines,
    answer_lost,
    answer_mechanism,
    answer_memlimit,
    answer_memory,
    answer_mine,
    answer_node,
    answer_norank,
    answer_origin,
    answer_overview,
    answer_owner,
    answer_pace,
    answer_pid,
    answer_places,
    answer_platform,
    answer_port,
    answer_premise,
    answer_premise_cause,
    answer_printed,
    answer_proof,
    answer_quote,
    answer_rankdiff,
    answer_rerun,
    answer_rootcause,
    answer_said_where,
    answer_save_copy,
    answer_secrets,
    answer_silent,
    answer_spans,
    answer_stack,
    answer_story,
    answer_summary_why,
    answer_sure,
    answer_tally,
    answer_teardown,
    answer_time_limit,
    answer_triage,
    answer_trial,
    answer_untimed,
    answer_victims,
    answer_waitout,
    answer_whatif,
    answer_window,
    answer_world,
    answer_xid_code,
    answer_xid_facts,
    answer_yesno,
)
from knowledge.answer_types import Ctx, Reply, reply
from knowledge.intents import Match

#: a guess at the cause put as a question ("was it the network?", "could the disk have done this?")
CAUSES = (
    r"(?:network|infiniband|interconnect|nic|ib|fabric|switch|disk|storage|filesystem|nfs|data ?loader"
    r"|dataset|scheduler"
    r"|slurm|preempt\w*)"
)
GUESS = re.compile(
    r"\b(?:is|was|could|couldnt|might) (?:it|this|that)\b[^?]{0,30}?\b(?:the )?" + CAUSES + r"\b"
    # "does that mean the network broke?", "so the IB died?": a cause read into a line, to be checked
    r"|\b(?:does|did|do) (?:that|this|it|those|these|they) (?:mean|imply|suggest|point to)\b[^?]{0,30}?\b"
    + CAUSES
    + r"\b"
    r"|\b(?:the )?" + CAUSES + r"(?: (?:mount|link|share|volume|drive|card|fabric|switch))?"
    # "did the network between them break?": the link between the ranks named, checked as a guess
    r"(?: between (?:them|those|these|the (?:ranks|nodes|gpus|two)"
    r"|ranks? \d+(?:(?:,? and |, ?| & |-| )\d+)*))?"
    r" (?:broke|break|died|failed|fail|went down|dropped|glitched|flaked)\b"
    # "ranks 1 2 3 … they also have disk problem?": the named ranks' own share of the cause
    r"|\b(?:they|those|these|ranks? \d+(?:(?:,? and |, ?| & |-| )\d+)*) (?:all |also |too |as well )*"
    r"(?:have|had|has|got|hit|see|saw)"
    r"\b[^?]{0,12}?\b" + CAUSES + r"\b"
)
#: "how does that mean the disk is full?": asks how a line says it, not a guess to check
HOW_MEANS = re.compile(
    r"\bhow (?:does|did|do|is|would|can) (?:that|this|it|the \w+) (?:mean|imply|say|show)\b"
)
#: an ask that only asks how to do what the ask before it named ("how do i find out", "how do I check")
HOW_SO = re.compile(
    r"^(?:and |so |ok )?how (?:do|can|would|should) (?:i|we|you) "
    r"(?:find (?:it |that )?out|check|see|tell|know|do (?:it|that|this)|get (?:it|that|this))"
    r"(?: (?:it|that|this|them))?\W*$"
)
#: two senders offered ("was that slurm enforcing --mem or the kernel?"): asks who sent the kill, which
#: the failing rank's answer says (the OOM killer's SIGKILL), not a check of one guess
CHOICE = re.compile(r"\bor (?:was it )?(?:the )?(?:kernel|oom[- ]?killer|oom|cgroup|os)\b")
#: a question about what something means ("wat is 10000ms", "what's code: -98", "is that SIGKILL?")
MEANING = re.compile(
    r"\b(?:mean|means|meaning|stand for)\b"
    r"|^(?:wat|wtf|whats|what\x27s|what is|what are)\b"
    r"(?!.*\b(?:doing|happen\w*|going on|wrong|cause\w*|fix|next)\b)"
)

#: a memory question that asks what made it need that memory, not only how much ("i thought FSDP
#: shards everything, why would host RAM blow up", "16777216 bytes?? that's tiny, explain")
WHY_MECHANISM = re.compile(
    r"^why\b|\bwhy (?:would|did|does|do|is|was|were|on earth)\b|\bhow come\b|\bexplain\b"
    r"|\b(?:thats|that is|its|it is|so|too) (?:tiny|small|little|nothing)\b|\bi thought\b"
)


Handler = Callable[[Ctx, Match], Reply | None]
#: intents whose answer describes the initiating rank: each also says what it was doing, in words
DOING_INTENTS = frozenset(
    {"memory", "rank_why", "which_rank", "when", "summary", "phase", "activity", "show_lines"}
)
#: intents a question naming one of the job's nodes (and no rank) asks about that node
NODE_FIRST = frozenset({"ranks_count", "which_rank", "show_lines", "summary"})
HANDLERS: dict[str, Handler] = {
    "summary": answer_rootcause.summary,
    "others": answer_overview.others,
    "which_rank": answer_overview.which_rank,
    "rank_why": answer_overview.rank_why,
    "when": answer_story.when,
    "ranks_count": answer_facts.ranks_count,
    "phase": answer_overview.phase,
    "memory": answer_memory.answer,
    "hang": answer_overview.hang,
    "show_lines": answer_code_cause.show_lines,
    "code": answer_code_cause.where_in_code,
    "batch": answer_code.batch,
    "debug": answer_overview.debug,
    "node": answer_lines.node,
    "hardware": answer_overview.hardware,
    "restart": answer_overview.restart,
    "fix": answer_overview.fix,
    "verify": answer_advice.verify,
    "command": answer_advice.check_command,
    "alternatives": answer_overview.alternatives,
    "explain": answer_advice.explain,
    "activity": answer_overview.activity,
    "fix_time": answer_advice.fix_time,
    "history": answer_history.history,
    "changed": answer_history.changed,
    "complaint": answer_complaint.complaint,
    "timeout_help": answer_checks.timeout_help,
    "secrets": answer_secrets.secrets,
    "versions": answer_history.versions,
    "backend": answer_checks.backend,
    "path": answer_quote.path,
    "port": answer_bind.port,
    "loss": answer_evidence.loss,
    "gaps": answer_evidence.gaps,
    "time_limit": answer_time_limit.limit_value,
}


def _whose_pid(c: Ctx, m: Match) -> Reply | None:
    return answer_pid.whose(c, m.text)


def _crashed_library(c: Ctx, m: Match) -> Reply | None:
    said, shown = answer_mechanism.crashed_library(c, m.text)
    return reply("rank_why", said, shown) if said else None


#: asks that carry their own answer, tried in this order before any intent (True: the fix is added)
FIRST_CHECKS: tuple[tuple[Handler, bool], ...] = (
    (answer_platform.platform_or_ours, False),  # "platform issue or ours? tell the HPC team?"
    (answer_platform.dmesg_before_return, False),  # "check dmesg before putting it back?": yes, how
    (answer_norank.no_such_rank, False),  # "did rank 5 enter SeqNum 5?" on a 4-rank job: no rank 5
    (answer_fields.fields, False),  # "DistNetworkError fields: useIpv6 and code?": as printed
    (answer_errline.flag, False),  # "could this be an IPv6 binding issue?": `useIpv6: false` as printed
    (answer_errline.started, False),  # "did any rank actually get going?": no worker started
    (answer_errline.before_limit, False),  # "what do I add so it saves before the time limit?"
    (answer_teardown.stopped, False),  # "pids torchrun SIGTERMed + exit codes?": the sends, the summary
    (answer_teardown.order, False),  # "SIGTERMs before or after rank 3's -11? exact times": in order, why
    (answer_world.world, False),  # "world_size=4 here, world 8 there: which is it?": the ranks shown
    (answer_compare.slurm_states, False),  # "what would slurm show if this were preemption?"
    (answer_compare.instead, False),  # "confidence only 0.46, what would make you call it a hang?"
    (answer_summary_why.confidence_why, False),  # "why is the confidence only 0.63?": score, runner-up, gaps
    (answer_summary_why.also_possible, False),  # "'Also possible: X': why wasn't it picked?"
    (answer_summary_why.borrowed_time, False),  # "why 'at or after' 21:38:30?": a borrowed lower bound
    (answer_summary_why.no_node, False),  # "why doesn't it name a node for rank 0?": no line names it
    (answer_summary_why.verify_expect, False),  # "the Verify command: what should I expect to see?"
    (answer_summary_why.kill_tie, False),  # "how does it tie the OOM kill to rank 2?": pid and launcher line
    (answer_device.device, False),  # "which host/gpu was rank 0 on?": its node and device, by line
    (answer_delta.delta, False),  # "ts of the save line vs torchrun's failure record, delta?"
    (answer_story.timeline_first, False),  # "postmortem timeline, times as printed: …": every event
    (answer_rankdiff.compare, False),  # "did every rank see it or just one?"
    (answer_origin.origin, False),  # "where does the 600 s come from?", "and the other ranks?"
    (answer_code_raised.raised, False),  # "which path raised, static or c10d? file:line, exception class"
    (answer_code_raised.own_raise, False),  # "did pytorch crash?": no, the script's own guard raised it
    (
        answer_waitout.waited_out,
        False,
    ),  # "why 10 min of nothing after rank 5 died?": the timeout they sat out
    (answer_victims.slow_notice, False),  # "why did they take ten minutes to notice?": the timeout
    (answer_victims.change_call, False),  # "died in reduce_metric: change it, or victims?": where they waited
    (answer_victims.waited_proof, False),  # "evidence 1 and 3 waited on 2, not the other way?": their errors
    (answer_memlimit.limit_or_ram, False),  # "box out of RAM or a cgroup/--mem limit? any MaxRSS/dmesg?"
    (answer_dumps.dump_file, False),  # "what is nccl_trace_rank_2? binary when i cat it": a pickled dump
    (answer_triage.timeout_value, False),  # "is 10000ms the default? just bump it?": ours, and no
    (answer_triage.usual_noise, False),  # "usual nccl timeout noise, safe to ignore?": who they waited on
    (answer_fixordebug.fix_or_debug, False),  # "num_workers=0: a fix or just a debug step?": which, first
    (answer_whatif.what_if, False),  # "would a smaller batch have fixed it?": yes / no / can't tell
    (answer_compare.separate, False),  # "ranks 1-3 died in barrier: a separate comm failure?"
    (answer_compare.code, False),  # "which error code did the socket return?": as the line prints it
    (answer_blame.order_claim, False),  # "did ranks 1-3 fail before rank 0?": no, who failed first
    (answer_blame.blame_call, False),  # "is the barrier the bug?": no, where they waited and on whom
    (answer_save_copy.option_blamed, False),  # "is full_state_dict=True the culprit?": yes, the copy it built
    (answer_sure.sure_of_rank, False),  # "how sure are you it was rank 3?" when rank 3 was inferred
    (answer_premise_cause.writer_reason, False),  # "rank 0 got killed because it writes the ckpt?"
    (answer_yesno.crash_claim, False),  # "the worker on rank 3 segfaulted, right?": who started it
    (answer_premise_cause.cause_claim, False),  # "rank 0 on gpu-01 OOMed, confirm?": who did, and what
    (answer_premise.rank_started, False),  # "rank 1 started it right?": no or yes, then the true fact
    (answer_premise.step_claim, False),  # "it died at step 9?": the last step any rank logged
    (answer_time_limit.sacct, False),  # "sacct cmd for this one pls": with this job's id
    (answer_time_limit.job_id, False),  # "job id?": the id and the line that gives it
    (answer_owner.owner, False),  # "model team or infra ticket?": whose it is, by this job's cause
    (_whose_pid, False),  # "`Killed process 51234` whose pid is that": its rank and node
    (answer_doubt_quote.which_line, False),  # "which line says time limit, quote it"
    (answer_evidence.sigkill_check, True),  # "'killed by signal: Killed' -- a sigkill?": who sent it
    (answer_backend.nccl_applies, False),  # "is this NCCL at all?" on a gloo job: no, and what it is
    (answer_stack.stack_next_time, False),  # "next time it wedges, what gets its python stack?"
    (answer_debug.pin_down, False),  # "repro + pin down the batch on one box": the failing rank's shard
    (answer_trial.trial, False),  # "minimal change at train.py:174, and test it on a 2-3 step run?"
    (answer_mine.mine, False),  # "is this a bug in my model?" for a disk, Xid, port or time limit: no
    (answer_hungdead.hung_or_dead, False),  # "how do you know rank 3 was hung rather than dead?"
    (answer_hungdead.quiet_for, False),  # "how long was rank 2 quiet before the others gave up?"
    (answer_guesses.hang_guess, False),  # "it was hang maybe?": checked first
    (answer_guesses.allocator_try, False),  # "cant we just set expandable_segments?"
    (answer_xid_code.code_guess, False),  # "couldn't it be a CUDA kernel bug?" on Xid 79: no, why
    (answer_xid_facts.xid_facts, False),  # "how do we know the Xid is rank 5's GPU? earlier Xids?"
    (answer_node.whose_gpu, False),  # "xid says pid=…, no NCCL pid matches: how do we know it's rank 5's?"
    (answer_said_where.where_said, False),  # "where does it say the disk is full?": the lines, the check
    (answer_job.progress_at_end, False),  # "still making progress when slurm killed it?": step, end
    (answer_grace.grace, False),  # "how long was the grace period before the step was killed?"
    (answer_laststep.last_step_when, False),  # "last training step logged before the crash, and when?"
    (answer_around.steps_done, False),  # "how many steps completed before the crash?": the last step
    (answer_job.job_and_step, False),  # "JOB 991 vs STEP 991.0 lines?": the job, its step, one event
    (answer_silent.own_output, False),  # "anything in rank 3's stderr?": what the silent rank wrote
    (answer_window.window, False),  # "paste what rank 5 logged between step 2000 and the OOM"
    (answer_window.beside, False),  # "anything besides training right before, uploads?": those lines
    (answer_around.around, False),  # "printed on rank 5 right before the OOM / after the Xid?"
    (answer_printed.printed, False),  # "does the log print X=true anywhere, or is it inferred?"
    (answer_hostmem.host_each, False),  # "host RAM of each rank?": the kernel's kill line, the rest unknown
    (answer_places.place, False),  # "where in train.py were 0-2 waiting": each rank's call and line
    (answer_tally.tally, False),  # "how many ranks printed a traceback / got SIGTERM?": counted
    (answer_ending.ending, False),  # "last step on each rank and when", "quote rank 5's own error"
    (answer_proof.error_text, False),  # "the actual error text from the write? ENOSPC?": as printed
    (answer_proof.kill_line, False),  # "the line proving slurm killed it for time": quoted, and why
    (answer_proof.silent_doing, False),  # "what was rank 3 doing: a loop, I/O?": its lines can't tell
    (answer_howfar.how_far, False),  # "how far did it get and how fast?": step N of M, rate, phase
    (answer_howfar.step_diff, False),  # "what's different about the step that died?": its batch line
    (answer_untimed.untimed, False),  # "what time did it fail?" with no time on any line: none
    (answer_spans.spans, False),  # "how long was rank 0 in the save before it threw": the lines' times
    (answer_pace.pace, False),  # "was step 2000 slower?": the step lines' times
    (_crashed_library, False),  # "do we know which library crashed": a native frame, or how to get one
    (answer_fixfit.overflow_check, False),  # "is it fp16 overflow?": any loss-scaling line, and the failure
    (answer_advice_value.value, False),  # "what lr / clip value should i put in?": logged or not
    (answer_fixdoubt.fix_doubted, False),  # "you say X fixes it: how sure? rank 0 still holds it all"
    (answer_fixfit.advice_fit, False),  # "the diagnosis says X: does that fit this run?": held to its facts
    (answer_rerun.leftover, False),  # "anything left to kill before i relaunch?": no worker ever started
    (answer_rerun.what_else, False),  # "adding X; what else do i set before resubmitting?": the rest
    (answer_ckpt_move.move, False),  # "ckpt_dir is on /tmp, should i move it?": the file, and yes or no
    (answer_port.addresses, False),  # "which IPs / ports are in the errors, anything external?"
    (answer_port.free_check, False),  # "how do i verify the port is free before relaunch?"
    (answer_port.holder, False),  # "how do i find what's sitting on it?" after a port clash
    (answer_port.never_again, False),  # "what goes on the torchrun line so it never collides again?"
    (answer_lost.lost, False),  # "how much do we lose": the last step reached against the last save
    (answer_rerun.lost_any, False),  # "did we lose anything?": the same two facts, asked yes or no
)
