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
    answer_all_or_some,
    answer_alloc_small,
    answer_bystanders,
    answer_call_line,
    answer_chain,
    answer_change,
    answer_cited_line,
    answer_ckpt_file,
    answer_claimed_kind,
    answer_contest,
    answer_datafix,
    answer_dcp_api,
    answer_delta,
    answer_desync_change,
    answer_died_of,
    answer_doing_named,
    answer_dump_states,
    answer_dump_timeout,
    answer_envvar,
    answer_fell_over,
    answer_figures,
    answer_file_lines,
    answer_first_named,
    answer_fix_asked,
    answer_fix_cmds,
    answer_frames_asked,
    answer_frames_more,
    answer_gpu_ids,
    answer_grounds,
    answer_hosts,
    answer_howto,
    answer_judge,
    answer_kernel_cmd,
    answer_kill_proof,
    answer_killscope,
    answer_lastlog,
    answer_lastloss,
    answer_launch,
    answer_libframes,
    answer_line_change,
    answer_line_figures,
    answer_lineaudit,
    answer_loglines,
    answer_named_line,
    answer_named_more,
    answer_named_stamps,
    answer_oom_limit,
    answer_parts,
    answer_rank_figures,
    answer_rank_file,
    answer_rank_order,
    answer_rank_tails,
    answer_real_ask,
    answer_records,
    answer_redo,
    answer_rerun_cmd,
    answer_runconf,
    answer_same_host,
    answer_same_save,
    answer_save_start,
    answer_scanaudit,
    answer_sched_end,
    answer_selfstop,
    answer_series,
    answer_settings_asked,
    answer_setup,
    answer_silence,
    answer_span_whole,
    answer_started_proof,
    answer_statedict,
    answer_step_stamps,
    answer_terms_job,
    answer_terse,
    answer_timedout,
    answer_timeout_figure,
    answer_topics,
    answer_values,
    answer_values_before,
    answer_verify_asked,
    answer_victims,
    answer_waited,
    answer_xid_code,
    answer_yesno,
)
from knowledge.answer_types import Ctx, Reply
from knowledge.intents import Match


def complete(ctx: Ctx, whole: Match, got: Reply, asked: Callable[[str], Reply]) -> Reply:
    """`got` with what the whole message (`whole`) asks beyond it; `asked` answers one ask."""
    got = answer_terse.expand(whole.text, got, asked)  # "nccl?", "sig?", "which rnak hung"
    got = answer_real_ask.with_real_ask(ctx, whole.text, got, asked)  # "could you please explain why …"
    got = answer_sched_end.with_end(ctx, whole, got)  # "quote the slurm line", "exact time it cancel?"
    got = answer_first_named.with_first(ctx, whole.text, got, asked)  # "which died first? i see rank0 err"
    got = answer_rank_order.with_order(ctx, whole.text, got)  # "which rank was last to log 'Starting …'"
    got = answer_ckpt_file.with_file(ctx, whole.text, got)  # "what ckpt file was it writing? rm the partial"
    got = answer_rank_file.with_own_file(ctx, whole.text, got)  # "rank1 per-rank log + line, not console"
    got = answer_file_lines.with_file_lines(ctx, whole.text, got)  # "slurm-991.log: what does line 1 say?"
    got = answer_figures.whole_message(ctx, whole, got)  # "and how big was it?", "numbers pls"
    got = answer_judge.with_facts(ctx, whole.text, got)  # "is the box broken?", "whose fault?"
    got = answer_parts.complete(ctx, whole.text, got, asked)  # a part left out
    got = answer_contest.contested(ctx, whole, got)  # "why rank 2 and not 0?", "how sure?"
    got = answer_topics.complete(whole.text, got, asked)  # "impact: step lost, nodes involved"
    got = answer_yesno.recheck(ctx, whole.text, got, asked)  # "the timeout was 10 s?"
    got = answer_timeout_figure.with_figure(ctx, whole.text, got, asked)  # "exact value pls", "set where?"
    got = answer_runconf.with_backend(ctx, whole.text, got)  # "backend + timeout value in use?"
    got = answer_envvar.with_var(ctx, whole.text, got)  # "which env var reports the mismatch?"
    got = answer_change.with_change(ctx, whole, got)  # "…, and what do I flip in ds_config?"
    got = answer_line_change.with_line_change(ctx, whole.text, got)  # "what to change around line 174?"
    got = answer_values_before.with_values(ctx, whole.text, got)  # "lr and grad_norm just before the save?"
    got = answer_redo.stated_step(ctx, whole.text, got)  # "at step 40 of 100, redo it all?"
    got = answer_oom_limit.with_limit(ctx, whole.text, got)  # "and what limit was it up against?"
    got = answer_same_save.with_save(ctx, whole.text, got)  # "die at the same save again?"
    got = answer_gpu_ids.with_ids(ctx, whole.text, got)  # "local gpu index?", "same pid?"
    got = answer_agent.with_agent(ctx, whole.text, got)  # "torchrun agent pid?", "static or c10d?"
    got = answer_frames_asked.with_frames(ctx, whole.text, got)  # "which line in save_checkpoint?"
    got = answer_libframes.with_lib_frames(ctx, whole.text, got)  # "where in torch: gather or file write?"
    got = answer_alloc_small.with_small(ctx, whole, got)  # "what does `… 16777216 bytes` mean? seems tiny"
    got = answer_values.with_values(ctx, whole.text, got)  # "what is SeqNum 48213?"
    got = answer_grounds.with_grounds(ctx, whole.text, got)  # "tied 0.46, why desync?", "no ENOSPC line?"
    got = answer_terms_job.with_terms(ctx, whole.text, got)  # "what's a collateral rank?", "core dump?"
    got = answer_howto.with_howto(ctx, whole.text, got)  # "find the op that makes the nan", "my 10s timeout?"
    got = answer_lastlog.with_last(ctx, whole.text, got)  # "rank 2 went quiet - last thing it logged?"
    got = answer_step_stamps.with_stamps(ctx, whole.text, got)  # "step 40 stamps?", "rank 2 behind?"
    got = answer_kernel_cmd.with_command(ctx, whole.text, got)  # "no dmesg: what do I run, which pid?"
    got = answer_desync_change.with_change(ctx, whole.text, got)  # "rewrite reduce_metric how?"
    got = answer_timedout.with_timed_out(ctx, whole.text, got)  # "when did they time out?"
    got = answer_waited.with_wait(ctx, whole.text, got)  # "how long did the other gpus sit waiting?"
    got = answer_span_whole.with_spans(ctx, whole, got)  # "what times … SIGTERM … and record rank 3's exit?"
    got = answer_frames_more.with_more(ctx, whole.text, got)  # "python stack?", "which peer port?"
    got = answer_chain.with_chain(ctx, whole.text, got)  # "first exception in the chain?"
    got = answer_selfstop.with_self_stop(ctx, whole.text, got)  # "platform angle, or did it stop itself?"
    got = answer_setup.with_setup(ctx, whole.text, got)  # "which model?", "world size 4 vs 8?"
    got = answer_series.with_series(ctx, whole, got)  # "trending up? give me the values rank 0 logged"
    got = answer_hosts.with_hosts(ctx, whole.text, got)  # "blast radius by host: which ranks on each?"
    got = answer_died_of.with_died_of(ctx, whole, got)  # "they all died too. what did they die of?"
    got = answer_killscope.with_scope(ctx, whole.text, got)  # "did it kill my whole job or just one?"
    got = answer_settings_asked.with_settings(ctx, whole.text, got)  # "which deepspeed settings made it?"
    got = answer_verify_asked.with_verify(ctx, whole, got)  # "how do I know it worked, what to check?"
    got = answer_launch.with_launch(ctx, whole.text, got)  # "MASTER_ADDR/PORT?", "launcher, steps?"
    got = answer_victims.with_died(ctx, whole.text, got)  # "… compared to what rank 2 died with?"
    got = answer_victims.with_own_log(ctx, whole.text, got)  # "rank 5 own log say what? not dmesg"
    got = answer_xid_code.with_not_code(ctx, whole.text, got)  # "what is Xid 79? something in my code?"
    got = answer_xid_code.with_back_in(ctx, whole.text, got)  # "what to run before gpu-02 goes back?"
    got = answer_datafix.with_data_fix(ctx, whole.text, got)  # "how should I restructure the dataset code?"
    got = answer_datafix.with_pointer(ctx, whole.text, got)  # "sure it isn't the workers? what points else"
    got = answer_loglines.with_lines(ctx, whole.text, got)  # "quote the launcher line", "which port each?"
    got = answer_lineaudit.complete(ctx, whole.text, got, asked)  # "time from which line?", "which worker?"
    got = answer_named_line.with_named(ctx, whole.text, got)  # "what does the WARNING line say?"
    got = answer_cited_line.with_cited(ctx, whole.text, got)  # "what does rank5.log:207 say?"
    got = answer_named_stamps.with_named(ctx, whole.text, got)  # "step 0 and step 6 timestamps?"
    got = answer_rerun_cmd.with_rerun_command(ctx, whole.text, got)  # "gdb cmd next time?"
    got = answer_kill_proof.with_kill_proof(ctx, whole.text, got)  # "how do you know it was the oom killer?"
    got = answer_named_more.with_audit(ctx, whole.text, got)  # "no timestamp: where is the time from?"
    got = answer_line_figures.with_figures(ctx, whole.text, got)  # "pos what vs what?", "same line where?"
    got = answer_fix_cmds.with_commands(ctx, whole.text, got)  # "launcher cmd + env the bot suggests"
    got = answer_scanaudit.with_audit(ctx, whole.text, got)  # "files and ranks scanned?", "runner-up?"
    got = answer_scanaudit.with_rank_facts(ctx, whole.text, got, asked)  # "all in the same op?"
    got = answer_records.with_records(ctx, whole.text, got)  # "quote the kernel line", "total-vm? UID?"
    got = answer_save_start.with_start(ctx, whole.text, got)  # "exact save start ts, filename, step"
    got = answer_save_start.with_step(ctx, whole.text, got)  # "last train step + ts before the save"
    got = answer_save_start.with_logger(ctx, whole.text, got)  # "which rank logged the ckpt-6 save?"
    got = answer_fell_over.with_fell_over(ctx, whole.text, got)  # "time it fell over + the timeout"
    got = answer_same_host.with_host(ctx, whole.text, got)  # "rank 3 on a different host than the others?"
    got = answer_lastloss.with_losses(ctx, whole.text, got)  # "last loss printed?", "other ranks' losses?"
    got = answer_rank_figures.with_rank_figures(ctx, whole.text, got)  # "loss at step 2000 on each rank?"
    got = answer_rank_tails.with_tails(ctx, whole.text, got)  # "what did the ranks print at the very end?"
    got = answer_call_line.with_call_line(ctx, whole.text, got)  # "train.py line with FSDP.x call"
    got = answer_dump_states.with_states(ctx, whole.text, got)  # "last dump entry's state on each rank?"
    got = answer_bystanders.complete(ctx, whole.text, got)  # "did the others OOM too or just wait?"
    got = answer_started_proof.with_proof(ctx, whole.text, got)  # "prove rank 1 went first", "related?"
    got = answer_silence.with_intervals(ctx, whole.text, got)  # "how many step intervals of silence?"
    got = answer_dump_timeout.with_dump_timeout(ctx, whole.text, got)  # "dump says timeout_ms 3000?"
    got = answer_delta.with_delta(ctx, whole.text, got)  # "… did the save start right after step 6?"
    got = answer_fix_asked.with_setting(ctx, whole.text, got)  # "grad clip flag", "ds key to flip"
    got = answer_fix_asked.with_resume(ctx, whole.text, got)  # "is there any ckpt to resume?"
    got = answer_fix_asked.with_repro(ctx, whole.text, got)  # "how many steps to get past it?"
    got = answer_statedict.with_kind(ctx, whole.text, got)  # "full state dict vs sharded, which here?"
    got = answer_doing_named.with_doing(ctx, whole.text, got)  # "what were ranks 0 and 2 doing?"
    got = answer_claimed_kind.with_claim(ctx, whole.text, got)  # "rank 0 segfaulted right?"
    got = answer_all_or_some.with_count(ctx, whole.text, got)  # "all four ranks or only three?"
    return answer_dcp_api.fit(ctx, got)  # the entry's FSDP1 cause and fix said in the job's DCP API too
