"""The rank that binds the rendezvous store's port: an `Address already in use` raised while a
training process builds its TCPStore is rank 0's.

In the `env://` and `tcp://` rendezvous every process constructs a TCPStore, but only the master
(`is_master = rank == 0`, torch/distributed/rendezvous.py: `_create_c10d_store`, older releases'
`TCPStore(master_addr, master_port, world_size, start_daemon)`) listens on MASTER_PORT; the others
connect as clients and cannot get EADDRINUSE from it. A bind failure under those frames therefore
names rank 0 even when the log carries no rank label. torchrun's agent binds its own store in
torch/distributed/elastic: that failure is the launcher's, and no rank is named for it.
"""

from __future__ import annotations

import re

from knowledge.signals import Job, Signal
from knowledge.verdict import Verdict

_IN_USE = re.compile(r"Address already in use|EADDRINUSE|errno: 98\b", re.IGNORECASE)
#: the frames of a training process's own store (a server only on rank 0)
_PROCESS_STORE = re.compile(r"_create_c10d_store|_env_rendezvous_handler|_tcp_rendezvous_handler|TCPStore\(")
#: torchrun's agent building its store: not a rank's
_AGENT_STORE = re.compile(
    r"torch/distributed/elastic/(?:rendezvous|agent)/|_create_tcp_store|static_tcp_rendezvous|launch_agent"
)


def binder_rank(job: Job, v: Verdict) -> Signal | None:
    """The evidence line that makes the store's bind failure rank 0's, or None."""
    if v.rank is not None or v.category != "rendezvous_failure" or _agent_store(job):
        return None
    for s in v.evidence:
        context = " ".join(s.hit.before)
        if (
            _IN_USE.search(s.hit.text)
            and _PROCESS_STORE.search(context)
            and not _AGENT_STORE.search(context)
            and s.hit.rank.rank is None
        ):
            return s
    return None


def _agent_store(job: Job) -> bool:
    """Whether the kept end of any log shows torchrun's agent building its store (the frames above the
    error can be further up than the lines kept around it)."""
    return any(_AGENT_STORE.search(text) for scan in job.scans for _, text in scan.numbered_tail)
