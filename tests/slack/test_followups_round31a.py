"""Round 31a: asks about the frames of a rank's traceback and the gloo error it ended in — "which
line in save_checkpoint?", "traceback stops at _state_dict_utils.py line 343, what was it doing",
"0 and 2 got pair.cc:537 and rank 1 nothing, why?", "where in the launcher did it die".

Why: an answer about the rank's role or phase left out the frames the asker reads; each asked rank's
saved traceback gives its deepest frame in the user's code (with its source line), the frames the
message names, the innermost frame and the exception it ended in; a collateral rank with no
traceback is named with the launcher's word for its end (SIGTERM); gloo's pair.cc errors are the
peer's socket closing; with no rank started, the launcher's own traceback is walked.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "desync",
        "you say rank 3 was in broadcast while the others were in all_reduce — what lines of"
        " train.py exactly?",
        ["line 142", "line 144", "reduce_metric"],
        [],
    ),
    (
        "desync",
        "show me the branch in train.py where rank 3 and the rest split",
        ["line 142", "line 144", "reduce_metric"],
        [],
    ),
    (
        "disk_full_save",
        "ranks 1-3 died in dist.barrier — which line in save_checkpoint?",
        ["line 177|train.py:177"],
        [],
    ),
    (
        "disk_full_save",
        "what frame were ranks 1 to 3 in when gloo closed on them",
        ["line 177", "barrier", "pair.cc:553"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "rank 0's traceback stops at _state_dict_utils.py line 343 with no exception message. what"
        " was it doing there",
        ["_full_post_state_dict_hook", "line 301", "offload_to_cpu=True|FULL_STATE_DICT"],
        [],
    ),
    (
        "fsdp_cpu_save",
        "what is the _full_post_state_dict_hook frame in rank 0's trace",
        ["line 343", "line 301"],
        [],
    ),
    (
        "zero3_save",
        "rank0 OOMs on 'Tried to allocate 2.00 GiB' inside p.clone() — what is that frame doing"
        " during save_model",
        ["line 3466|_zero3_consolidated_16bit_state_dict", "2.00 GiB"],
        [],
    ),
    (
        "nan_loss",
        "ranks 0/2 failed at line 209 with Connection closed by peer. is 209 the backward allreduce?",
        ["line 209", "pair.cc:553|Connection closed by peer"],
        [],
    ),
    (
        "segfault",
        "0 and 2 got 'Read error ... Connection reset by peer' at pair.cc:537 and rank 1 nothing."
        " why the difference?",
        ["pair.cc:537", "line 209", "Rank 1 printed no traceback", "SIGTERM"],
        [],
    ),
    (
        "checkpoint_oom",
        "I see 'Connection closed by peer' from gloo on ranks 0 and 2, and why does rank 3 have no"
        " traceback at all",
        ["pair.cc:553", "Rank 3 printed no traceback", "SIGTERM"],
        [],
    ),
    (
        "dataloader_worker_killed",
        "ranks 0,1,3 all -15 in the launcher summary but only 1 and 3 printed gloo errors. whats"
        " going on with rank 0",
        ["-15|SIGTERM", "pair.cc:553"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "did any rank actually start? where in the launcher did it die",
        ["static_tcp_rendezvous", "no rank|before any"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "trace goes through static_tcp_rendezvous.py line 67 creating TCPStore — so this node was"
        " the store server?",
        ["line 67", "54661"],
        [],
    ),
]
