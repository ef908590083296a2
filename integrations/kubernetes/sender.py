"""POST a failure to `{DENPEX_URL}/hooks/kubernetes`, signed with the shared webhook secret."""

from __future__ import annotations

import json
from typing import Any

import urllib3

from integrations.signing import sign


class SendError(RuntimeError):
    def __init__(self, message: str, *, retry: bool) -> None:
        super().__init__(message)
        self.retry = retry


class HookSender:
    """Signs with `integrations.signing` (HMAC-SHA256 over `v1:{ts}:{body}`) and POSTs the JSON body."""

    def __init__(
        self, base_url: str, secret: str, *, timeout: float = 15.0, http: urllib3.PoolManager | None = None
    ) -> None:
        self.url = base_url.rstrip("/") + "/hooks/kubernetes"
        self.secret = secret
        self.http = http or urllib3.PoolManager(retries=False, timeout=urllib3.Timeout(total=timeout))

    def send(self, payload: dict[str, Any]) -> int:
        """Raise `SendError(retry=True)` for network errors, 429 and 5xx; `retry=False` for other 4xx."""
        body = json.dumps(payload, separators=(",", ":"), default=str).encode()
        headers = {"Content-Type": "application/json", **sign(self.secret, body)}
        try:
            resp = self.http.request("POST", self.url, body=body, headers=headers)
        except urllib3.exceptions.HTTPError as exc:
            raise SendError(f"POST {self.url}: {type(exc).__name__}", retry=True) from exc
        if resp.status == 429 or resp.status >= 500:
            raise SendError(f"POST {self.url}: HTTP {resp.status}", retry=True)
        if resp.status >= 400:
            text = resp.data[:300].decode("utf-8", "replace")
            raise SendError(f"POST {self.url}: HTTP {resp.status}: {text}", retry=False)
        return resp.status
