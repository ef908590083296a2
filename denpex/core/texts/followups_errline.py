"""Texts for asks answered by the failure line's own fields and by how the job ended
(knowledge/answer_errline.py): a flag the error line prints (`useIpv6: false`), whether any worker
started, and a save before the scheduler's time limit."""

from __future__ import annotations

FLAG_SAID = "The error line itself prints `{field}` ({ref}): {meaning}"
#: what a flag's value means for the guess, by the flag's topic and its value
FLAG_MEANINGS = {
    ("ipv6", "false"): (
        "the store did not try IPv6 at all (IPv6 was not preferred, so it listened on IPv4 only): this is"
        " not an IPv6 binding problem."
    ),
    ("ipv6", "true"): "the store tried IPv6 first, then IPv4.",
}
FLAG_GENERIC = "{topic} was {state} for that call."
FLAG_FAILED = " What failed instead: `{what}`."

#: after the Slurm warning's how-to (`followups_howto.SLURM_WARN`): the batch script's side of it
BEFORE_LIMIT = (
    "For the trap to run, start the job step in the background (`srun … &`) and `wait` on it; add"
    " `#SBATCH --requeue` so the requeued job starts again and resumes from the checkpoint it saved."
)
BEFORE_LIMIT_THIS = " No line of this run shows such a warning before its end: {end}"
