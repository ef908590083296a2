"""Texts for "how do I get the tools to tell me X" asks and for the timeout a message names
(knowledge/answer_howto.py): the switch that reveals the asked thing on a rerun, and the timeout
value the job's own lines show, with what raising it can and cannot change."""

from __future__ import annotations

NAN_OP = (
    "To find the op that makes the first NaN/Inf: rerun a few steps with"
    " `torch.autograd.set_detect_anomaly(True)` (slow: a short repro only); the backward error it raises"
    " names the forward op whose gradient went non-finite, with that op's forward traceback."
    " Forward-pass NaNs: register a forward hook that checks `torch.isfinite` on each module's output"
    " and prints the first module that fails."
)
MISMATCH = (
    "To have torch name the mismatch: rerun with `TORCH_DISTRIBUTED_DEBUG=DETAIL` (set on every rank,"
    " e.g. `TORCH_DISTRIBUTED_DEBUG=DETAIL torchrun …`): it checks each collective's type and shape"
    " across ranks and fails with the rank that called a different one, instead of a timeout."
    " It slows collectives: use it for a repro run."
)
SLURM_WARN = (
    "To get a warning before Slurm's kill: `#SBATCH --signal=B:USR1@600` sends USR1 to the batch script"
    " 600 s before the time limit (drop `B:` to signal the job steps, i.e. the ranks, instead); trap it"
    " (`trap 'touch $CKPT_DIR/SAVE_NOW' USR1` in the script, or `signal.signal(signal.SIGUSR1, …)` in"
    " Python), save a checkpoint when it arrives, and `scontrol requeue $SLURM_JOB_ID` if you want it to"
    " continue. Leave the save enough of the warning time."
)
TIMEOUT_SEEN = "The timeout this job's lines show: {values}."
TIMEOUT_ONE = "{value} ({ref})"
TIMEOUT_WAITED = (
    " The ranks that timed out were waiting for rank {rank}, the rank this diagnosis says started it;"
    " the timeout only decides how long the others wait for it."
)
TIMEOUT_RAISE = (
    " Raising it helps only if that rank was slow and would have arrived (a long save, eval or data"
    " step on one rank); if it was stuck or gone, a longer timeout only makes the job hang longer before"
    " it fails the same way, so fix what held that rank first."
)
TIMEOUT_NONE = (
    "No kept line of this job prints a timeout value (no `Timeout(ms)=`, `Timed out waiting …ms` or"
    " `timeout … ms`), so the logs do not show which timeout was in force."
)
