"""Round 34d: asks on time_limit, rendezvous_port_in_use, nan_loss and disk_full_save — "what were ranks
1-3 blocked in", "what in the traceback says disk and not my torch.save", "comando for the space on
the ckpt dir", "give me the loss values rank 0 logged", "how many of the 10 steps completed", "what max
grad norm value", "launch setup: world size, steps, script", "an IPv6 binding issue?", "-98: what
name", "did any rank get going", "which torch class raised it", "sbatch lines to checkpoint and
requeue before the kill", "nothing logged right before the kill: normal?", "what lr do the logs show".

Why: each answer gave the verdict's own sentence (the failing rank's phase, the fix, the verify
command) and left out the fact the asker reads — the collective the others sat in and its line, the
lines of the chain that name the stream error, the disk check command, every logged loss, the last
step against the planned total, the clip value the fix names, the launch line's world size and steps,
the error line's own `useIpv6: false` and `EADDRINUSE`, the launcher's frame that raised, Slurm's
warning signal and requeue, the gap between the last step and the kill, a value the step lines print.
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # where the collateral ranks were blocked while the initiating rank failed
    (
        "disk_full_save",
        "what were ranks 1-3 blocked in when rank0 fell over",
        ["barrier"],
        [],
    ),
    (
        "disk_full_save",
        "where exactly were ranks 1-3 when rank 0 blew up writing the checkpoint?",
        ["barrier", "177|save_checkpoint"],
        [],
    ),
    (
        "disk_full_save",
        "what call were the other three ranks sitting in while rank 0 was writing the checkpoint",
        ["barrier", "177"],
        [],
    ),
    (
        "disk_full_save",
        "ranks 1,2,3 - stuck on what when 0 crashed?",
        ["barrier"],
        [],
    ),
    # what in the traceback points at the disk, not the user's call
    (
        "disk_full_save",
        "What in the traceback tells you this is the disk and not a bug in my torch.save call at line 166?",
        ["iostream error|basic_ios", "1088"],
        [],
    ),
    (
        "disk_full_save",
        "how can you tell from the stack that it's the filesystem and not my save code?",
        ["iostream error|basic_ios", "1088"],
        [],
    ),
    (
        "disk_full_save",
        "which part of the error shows the write ran out of space rather than my code being wrong?",
        ["iostream error|basic_ios", "1088"],
        [],
    ),
    # the command to check the checkpoint volume's space
    (
        "disk_full_save",
        "give me comando for check the space on ckpt dir",
        ["df -h|df -i"],
        [],
    ),
    (
        "disk_full_save",
        "cmd to see free space on the checkpoint folder?",
        ["df -h|df -i"],
        [],
    ),
    (
        "disk_full_save",
        "how do i check how full the checkpoint disk is",
        ["df -h|df -i"],
        [],
    ),
    # every logged loss value, not the last few
    (
        "nan_loss",
        "Was the loss trending upward before the NaN? Give me the values rank 0 logged.",
        ["1.1507", "1.0358"],
        [],
    ),
    (
        "nan_loss",
        "list every loss value rank 0 printed",
        ["1.1507", "1.0193", "1.0358"],
        [],
    ),
    (
        "nan_loss",
        "all the losses from step 0 on please",
        ["1.1507", "1.0358"],
        [],
    ),
    # steps done against the planned total
    (
        "nan_loss",
        "how many of the 10 planned steps actually completed before the crash?",
        ["6/10|step 6|7 steps|seven|0-6|0–6|0 through 6|0 to 6"],
        [],
    ),
    (
        "nan_loss",
        "out of the 10 steps, how many finished?",
        ["6/10|step 6|7 steps|seven|0-6|0–6|0 through 6|0 to 6"],
        [],
    ),
    (
        "time_limit",
        "how many steps did it get through before the kill?",
        ["step 150|150 steps"],
        [],
    ),
    # the clip value the fix names
    (
        "nan_loss",
        "Okay, I read through the fix section twice. Lots of options! Lower LR, longer warmup, anomaly"
        " detection, bf16... I'm not going to pretend I can judge between them, and the researchers"
        " will pick whatever they like anyway. But one of the suggestions was gradient clipping, which"
        " I've heard of but never set myself, and it sounds like the cheapest thing to try tonight."
        " What max grad norm value are you suggesting? I'd like to tell the team a specific number"
        " rather than 'some clipping'. Thanks, you're a lifesaver.",
        ["1.0"],
        [],
    ),
    (
        "nan_loss",
        "what number do you recommend for gradient clipping?",
        ["1.0"],
        [],
    ),
    (
        "nan_loss",
        "max_grad_norm - what value should we set?",
        ["1.0"],
        [],
    ),
    # the launch setup for a repro
    (
        "nan_loss",
        "launch setup for the repro - world size, steps, script",
        [
            "10 steps|10/10",
            "world size 4|4 ranks|nproc_per_node 4|nproc_per_node=4|4 processes",
            "train.py",
        ],
        [],
    ),
    (
        "nan_loss",
        "to reproduce it: how many processes, how many steps and which script?",
        [
            "10 steps|10/10",
            "world size 4|4 ranks|nproc_per_node 4|nproc_per_node=4|4 processes",
            "train.py",
        ],
        [],
    ),
    # an address-family guess, checked against the error line
    (
        "rendezvous_port_in_use",
        "Could this be an IPv6 binding issue?",
        ["useIpv6: false"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "is ipv6 involved here at all?",
        ["useIpv6: false"],
        [],
    ),
    # an error code's name
    (
        "rendezvous_port_in_use",
        "error code number is -98? what name",
        ["EADDRINUSE"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "code -98, which errno is that by name?",
        ["EADDRINUSE"],
        [],
    ),
    # did any rank start
    (
        "rendezvous_port_in_use",
        "Hi, I was told this job 'never really started'. Before I tell the researchers they didn't lose"
        " any compute, I want to make sure that's right. Did any training rank actually get going, or"
        " did it fail before that?",
        ["before any rank|launcher|0 ranks"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "I want to confirm: did a single worker come up before it failed?",
        ["before any rank|launcher|0 ranks"],
        [],
    ),
    # which class raised the bind error
    (
        "rendezvous_port_in_use",
        "was it one of our own worker ranks that failed to bind, or the launcher itself? which torch"
        " class raised it",
        ["TCPStore|static_tcp_rendezvous", "launcher|torchrun|agent"],
        [],
    ),
    (
        "rendezvous_port_in_use",
        "which class threw the bind error?",
        ["TCPStore"],
        [],
    ),
    # a checkpoint before the time limit: Slurm's warning signal and requeue
    (
        "time_limit",
        "What should I add so my trainer saves a checkpoint before the time limit hits?",
        ["USR1|--signal"],
        [],
    ),
    (
        "time_limit",
        "how do I get it to checkpoint and requeue before the kill next time - sbatch lines",
        ["USR1|--signal", "requeue"],
        [],
    ),
    (
        "time_limit",
        "how do i make it save before slurm cancels it at the limit?",
        ["USR1|--signal"],
        [],
    ),
    # the quiet stretch before the kill
    (
        "time_limit",
        "is it normal that nothing got logged for a bit right before it was killed?",
        ["03:10:00|step 150"],
        [],
    ),
    (
        "time_limit",
        "why was the log silent for the last minute or two before the cancel?",
        ["03:10:00|step 150", "100 s"],
        [],
    ),
    # a value the step lines print
    (
        "time_limit",
        "Kind of a side question, but the researchers asked me to check the learning rate the run used"
        " because they suspect someone changed the config. What learning rate do the training logs"
        " show?",
        ["3.0e-04"],
        [],
    ),
    (
        "time_limit",
        "what lr was it running with?",
        ["3.0e-04"],
        [],
    ),
    (
        "time_limit",
        "grad norm in the last logged step?",
        ["0.91"],
        [],
    ),
]
