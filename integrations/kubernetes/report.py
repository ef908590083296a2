"""The Kubernetes failure report: one wire model, built by the watcher and validated by the server.

`denpex watch-k8s` builds a `KubernetesReport` and POSTs `model_dump_json()` to
`/hooks/kubernetes`; the server (`bot.payloads`) validates the body with the same class. A field
added here is therefore sent and read alike, instead of being dropped silently by one side (unknown
fields are ignored, so an older server still accepts a newer watcher).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from denpex.core.ids import SAFE_ID_PATTERN

#: the longest `reason` and `message` a report may carry; the watcher clips to these
REASON_CHARS = 256
MESSAGE_CHARS = 4096
#: what the watcher keeps of a message (under the limit: a clipped text may still grow when escaped)
SENT_MESSAGE_CHARS = 4000


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


class PodReport(_Wire):
    """One pod of the failed job, with its rank when the watcher could tell it."""

    name: str = Field(min_length=1, max_length=253)
    node: str | None = Field(default=None, max_length=255)
    rank: int | None = Field(default=None, ge=0)
    phase: str | None = Field(default=None, max_length=64)
    reason: str | None = Field(default=None, max_length=REASON_CHARS)
    exit_code: int | None = None
    container: str | None = Field(default=None, max_length=253)


class KubernetesReport(_Wire):
    """A failed Job, PyTorchJob or JobSet."""

    cluster: str = Field(min_length=1, max_length=128, pattern=SAFE_ID_PATTERN)
    namespace: str = Field(min_length=1, max_length=63, pattern=SAFE_ID_PATTERN)
    kind: Literal["Job", "PyTorchJob", "JobSet"]
    name: str = Field(min_length=1, max_length=253, pattern=SAFE_ID_PATTERN)
    uid: str | None = Field(default=None, max_length=64)
    state: str = Field(min_length=1, max_length=64)
    reason: str | None = Field(default=None, max_length=REASON_CHARS)
    message: str | None = Field(default=None, max_length=MESSAGE_CHARS)
    pods: list[PodReport] = Field(default_factory=list, max_length=65536)
    start: datetime | None = None
    end: datetime | None = None
