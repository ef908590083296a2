"""Texts for a value of this job asked about by its key ("what is SeqNum 48213?", "what does exitcode
-9 mean here?", "who did the OOM killer kill?"): where the value is in this job's logs."""

from __future__ import annotations

#: the lines of this job that hold the asked value
VALUE_HERE = "In this job's logs, `{key}` {value} is on {refs}."
#: a collective's sequence number: which op it was, who reported it, the last one that completed
SEQ_OP = "Collective #{seq} was `{op}` (reported by rank{s} {ranks})."
SEQ_DONE = "The last collective those ranks completed was #{done}: #{seq} never finished."
#: the collective traces' reading of the same sequence number (a rank missing from it)
SEQ_SUSPECT = "The collective traces say rank {rank} {why}."
#: an exit code's launcher line: whose process it was
EXIT_WHO = "The launcher reported exitcode {code} for local_rank {local} (pid {pid}) ({ref})."
#: the kernel's kill of a pid
KILLED = "The kernel's OOM killer killed pid {pid}{name}{node} ({ref})."
