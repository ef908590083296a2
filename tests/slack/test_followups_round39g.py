"""Follow-ups round 39g (blind batch 136): a fix's own setting, resume point and rerun length asked in
a few words — "flag for ckpt rotation", "grad clip flag", "ds config key to flip", "what timeout to set
in init_process_group", "any ckpt to resume?", "how many steps to get past the failure?", "how fast
does it repro, which step?", "diag before returning it".

Why they failed: the asks name no rank or fact, so they fell to the help reply or to an intent one word
pulled in ("rotation" read as rotating a leaked secret, "timeout" answered with the timeout observed,
"how many steps" with the step reached). Now `knowledge.answer_fix_asked` answers them from this job's
fitted fix (the step and snippet line holding the words asked, the step saying what checkpoint exists,
the last logged step and the verify command's `--max_steps`), and the node's health check replaces the
help reply (`knowledge.answer_xid_code.with_back_in`).
"""

from __future__ import annotations

CASES: list[tuple[str, str, list[str], list[str]]] = [
    ("disk_full_save", "which flag turns on checkpoint rotation", ["save_total_limit"], ["secret"]),
    ("disk_full_save", "ckpt rotation flag?", ["save_total_limit"], ["secret"]),
    ("disk_full_save", "option for checkpoint rotation pls", ["save_total_limit"], ["secret"]),
    ("nan_loss", "gradient clipping flag?", ["max_grad_norm|clip_grad_norm"], []),
    ("nan_loss", "flag for grad clipping", ["max_grad_norm|clip_grad_norm"], []),
    ("nan_loss", "clip grad setting", ["max_grad_norm|clip_grad_norm"], []),
    ("zero3_save", "deepspeed config key to flip?", ["stage3_gather_16bit_weights_on_model_save"], []),
    ("zero3_save", "which ds key do i flip", ["stage3_gather_16bit_weights_on_model_save"], []),
    ("zero3_save", "ds_config option to toggle", ["stage3_gather_16bit_weights_on_model_save"], []),
    ("zero3_save", "any checkpoint to resume from?", ["global_step|no save|may have no|no checkpoint"], []),
    ("zero3_save", "do we have a ckpt we can resume", ["global_step|no save|may have no|no checkpoint"], []),
    (
        "zero3_save",
        "which checkpoint do i resume from",
        ["global_step|no save|may have no|no checkpoint"],
        [],
    ),
    (
        "hang_before_collective",
        "which timeout should i set in init_process_group",
        ["timedelta|hours=3"],
        [],
    ),
    ("hang_before_collective", "what timeout do i set for init_process_group?", ["timedelta|hours=3"], []),
    ("hang_before_collective", "timeout setting for init_process_group", ["timedelta|hours=3"], []),
    ("flight_recorder", "how many steps should i run to get past where it failed", ["50"], []),
    ("flight_recorder", "how many steps to run so it gets past the failing step", ["50"], []),
    ("flight_recorder", "how many steps do we need to repro it", ["50"], []),
    ("segfault", "how quickly does it reproduce, at which step", ["step 1|step 2"], []),
    ("segfault", "how fast will it repro? what step", ["step 1|step 2"], []),
    ("segfault", "repro at what step?", ["step 1|step 2"], []),
    ("xid", "diagnostics before returning it", ["dcgmi diag"], []),
    ("xid", "diags before returning it to service", ["dcgmi diag"], []),
    ("xid", "diag to run before returning the gpu", ["dcgmi diag"], []),
]
