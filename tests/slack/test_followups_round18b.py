"""Round 18b: judgement asks answered with the wrong kind of fact, or with a premise left standing
(an SRE and an ML engineer deciding what to change before the job goes back on).

Why: "which IPs / ports are in the errors, anything external?" said no port was in the kept lines,
though every collateral rank's gloo error names a loopback peer `[127.0.0.1]:port`; "so the default
29500 was the one taken?" defined `--master_port` and left the wrong port standing; "the summary said
rank 0 threw an Xid?" answered rank 0's timeout without saying no Xid is in the job at all; "so I
shrink the batch?" for an OOM in the save said yes to the step instead of no to the lever; "what knob
in the config do I change" (the reader already on bf16/ZeRO-3) gave the general steps, not the
batch line's own `max_seq_len`; "what lr / clip value should I put in?" gave losses, never saying no
line logs either setting; "adding PYTHONFAULTHANDLER=1, what else before resubmitting?" repeated the
step the reader had; "resubmitted unchanged, same failure?" was a bare ask no cue kept; "timeout is
10 s, if I set 30 min does it pass?" matched nothing; "did pytorch crash?" on a script's own
`raise ValueError` gave the losses; "is rank 1's GPU with the same busId bad too?" did not say its node
has no Xid; a drain for an unnamed node said "don't name" but not that the node is absent from the log;
"world_size=4 here, world 8 there: which is it?" got "no traceback"; "ckpt_dir is on /tmp, should I
move it?" defined CKPT_DIR instead of naming the file, its folder and whether moving it helps; a version
no line prints was said to be missing without saying it is not printed; "also what even is FSDP" was
taken for a backend question (no glossary term, and "what even is" was no meaning cue).
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    # the host:port pairs the failure lines name, and whether any is off the machine
    (
        "checkpoint_oom",
        "any external IPs or ports in the error lines? or is it all local",
        ["127.0.0.1:41668", "127.0.0.1:37611", "loopback", "nothing external"],
        ["No port appears"],
    ),
    (
        "nan_loss",
        "list the addresses in the gloo errors please",
        ["127.0.0.1:23686", "127.0.0.1:18345", "loopback"],
        [],
    ),
    # a port put as the taken one when the error names another
    (
        "rendezvous_port_in_use",
        "so the clash was on the default 29500, right? what port should i use",
        ["Not 29500", "54661"],
        [],
    ),
    # an Xid the reader was told of, on a job with none
    (
        "gpu_oom",
        "the ticket says rank 3 threw an xid and that's why the reduce_scatter hung?",
        ["No Xid", "rank 5", "OutOfMemoryError"],
        [],
    ),
    # a batch cut proposed for an OOM in the save
    (
        "zero3_save",
        "it ran out of memory just after step 100, should i cut per_device_train_batch_size then?",
        ["No:", "saving a checkpoint", "stage3_gather_16bit_weights_on_model_save"],
        ["Yes: the last step"],
    ),
    # the knob asked for, the reader's stated setup respected: the batch line's own numbers
    (
        "gpu_oom",
        "bf16 and zero3 are already on. which setting in the launcher args should i really lower?",
        ["4 x 16384", "max_seq_len", "rank5.log:207"],
        [],
    ),
    # a value asked for a setting the logs do not print
    (
        "nan_loss",
        "which learning rate and grad clipping value should we go with",
        ["not logged", "Learning rate and gradient clipping"],
        ["the logs print"],
    ),
    (
        "gpu_oom",
        "what lr should i use on the rerun?",
        ["the logs print 1.9e-05", "rank7.log:205"],
        [],
    ),
    # what else to set before the rerun: the steps the reader has not named
    (
        "segfault",
        "i'll export PYTHONFAULTHANDLER=1 in the job script. anything else to set before i resubmit?",
        ["Keep `PYTHONFAULTHANDLER=1`", "ulimit -c unlimited"],
        [],
    ),
    # resubmitted unchanged: deterministic or not, kept as an ask beside another
    (
        "desync",
        "runtime + rank count please. and if relaunched untouched, same failure?",
        ["28 s", "Not as is", "every run that takes the same code path"],
        [],
    ),
    # a longer value for the timeout the others waited out, for a silent rank
    (
        "hang_before_collective",
        "the pg timeout is only 10s here. if i set it to 60 min will it get through?",
        ["can't tell", "10 s", "py-spy dump"],
        [],
    ),
    # the framework taken to have crashed when the script's own guard raised
    (
        "nan_loss",
        "did torch crash here or what?",
        ["No, PyTorch did not crash", "your own training code", "line 207", "ValueError"],
        [],
    ),
    # the same bus id on another node: no Xid there
    (
        "xid",
        "rank 1 sits at pci 3b:00 on gpu-01 too, is that card broken as well?",
        ["Not the same card", "No Xid on gpu-01"],
        [],
    ),
    # a drain asked for a node no line names
    (
        "flight_recorder",
        "r2 box? gotta drain it",
        ["don't name rank 2's node", "not in the log", "NodeList"],
        [],
    ),
    # two world sizes put against each other: the ranks the logs show, each number held to them
    (
        "host_oom_kill",
        "torchrun printed world_size 4 but an nccl line i saw says world 16 - which one, and does it matter?",
        ["4 ranks", "ranks 0-3", "16 ranks is not what these logs show", "The read stands"],
        [],
    ),
    # a move of the checkpoint folder: the file and folder from the save line, and whether moving helps
    (
        "disk_full_save",
        "our checkpoint dir lives on /tmp, do we relocate it?",
        ["checkpoint-4.pt", "which is on /tmp", "Yes, move it", "df -h"],
        [],
    ),
    (
        "checkpoint_oom",
        "should the ckpt folder go to another disk?",
        ["checkpoint-6.pt", "would not change this failure", "out-of-memory"],
        ["Yes, move it"],
    ),
    # a version the logs never print: said not printed
    (
        "zero3_save",
        "deepspeed version on this run?",
        ["No DeepSpeed version", "not printed"],
        [],
    ),
    # a term asked with "what even is": its meaning, not the backend check
    (
        "fsdp_cpu_save",
        "which rank got killed? and what even is FSDP",
        ["Fully Sharded Data Parallel", "rank 2"],
        ["don't name the collective backend"],
    ),
]
