"""A collector for fault tests: the files collector, but every log streams slowly into the engine.

`denpex worker --collector files=tests.faults.slow_collector:create_collector` then spends a few
seconds inside `Engine.diagnose` per job, long enough for a test to SIGKILL the worker mid-scan.
`DENPEX_TEST_CHUNK_DELAY` sets the pause per 4 KiB chunk (seconds).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

from denpex.core.models import Evidence, JobRef, LogSource
from integrations.files import create_collector as files_collector

CHUNK = 4096


class SlowCollector:
    def __init__(self, settings: Any) -> None:
        self.inner = files_collector(settings)
        self.delay = float(os.environ.get("DENPEX_TEST_CHUNK_DELAY", "0.05"))

    def _slow(self, source: LogSource) -> LogSource:
        def chunks() -> Iterator[bytes]:
            for part in source.open_bytes():
                for i in range(0, len(part), CHUNK):
                    time.sleep(self.delay)
                    yield part[i : i + CHUNK]

        return source.model_copy(update={"path": None, "data": None, "chunks": chunks})

    def collect(self, job: JobRef) -> Evidence:
        evidence = self.inner.collect(job)
        return evidence.model_copy(update={"sources": [self._slow(s) for s in evidence.sources]})


def create_collector(settings: Any) -> SlowCollector:
    return SlowCollector(settings)
