"""Round 33d: how long the other ranks sat waiting, with both clock times ("how long did the other 7
gpus sit there waiting after rank 5 died", "how long were the gpus idle before the watchdog killed
things?"); a one-liner for the incident channel; the frames a stack ask wants in words the frame
answer missed ("python stack", "agent frame", "where in torchrun", "all_reduce vs broadcast, from which
src?"); the peer address in a gloo error ("which peer port?", which got a false "no port appears");
the first exception of a chained traceback ("first exception in the chain"); and a platform-angle ask
when the job's own code raised ("or did their script just stop itself?").

Why: each answer gave the roles or a span but not the fact asked: the wait's start and end times
(the first rank's failure and the watchdog's end), the user's call with its arguments, the launcher's
agent frames, the peer's host:port in the ranks' own error line, the call that failed first in the
chain (`write_record`), the `raise` in the user's script with its line.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    (
        "flight_recorder",
        "how long were the gpus sitting idle before the watchdog killed things?",
        ["600000|600012", "03:10:01"],
        [],
    ),
    (
        "gpu_oom",
        "how long did the other 7 gpus sit there waiting after rank 5 died",
        ["03:14:02", "03:24:02", "600000|600 s"],
        [],
    ),
    (
        "xid",
        "how long did everyone wait after the gpu died before it all came down",
        ["03:14:03", "03:24:03"],
        [],
    ),
    ("host_oom_kill", "how long were ranks 0,1,3 stuck waiting?", ["03:14", "03:24"], []),
    (
        "gpu_oom",
        "one sentence for the incident channel please",
        ["rank 5", "out of memory|OOM", "gpu-02"],
        [],
    ),
    ("xid", "quick line for the ops channel?", ["rank 5", "Xid 79", "gpu-02"], []),
    (
        "desync",
        "which ranks were in all_reduce vs broadcast, and broadcast from which src?",
        ["src=0", "rank 3", "line 142", "line 144"],
        [],
    ),
    (
        "segfault",
        "where were ranks 0 and 2 in the python stack when the peer vanished",
        ["backward", "line 209"],
        [],
    ),
    (
        "segfault",
        "what error did ranks 0/2 get and which peer port",
        ["Connection reset by peer", "1931"],
        ["No port appears"],
    ),
    (
        "rendezvous_port_in_use",
        "which agent frame kicked off the rendezvous? line numbers pls",
        ["_rendezvous", "line 528", "line 67"],
        ["I can answer from"],
    ),
    (
        "rendezvous_port_in_use",
        "did this one even start training? any gpu time lost? where in torchrun did it die",
        ["before any", "static_tcp_rendezvous|next_rendezvous"],
        [],
    ),
    (
        "disk_full_save",
        "first exception in the chain — which serialization call failed before the inline_container enforce?",
        ["write_record", "basic_ios::clear"],
        [],
    ),
    (
        "disk_full_save",
        "what was the original error on rank 0 before the enforce fail?",
        ["write_record", "iostream error"],
        [],
    ),
    (
        "nan_loss",
        "is there any platform angle here at all, or did their script just stop itself?",
        ["Loss is nan", "line 207"],
        [],
    ),
    ("nan_loss", "did the training code kill itself on purpose?", ["ValueError", "207"], []),
]
