"""`denpex codes create` as a real process against a real redis-server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import redis

from workers.quota import Quota

DENPEX = str(Path(sys.executable).parent / "denpex")


def test_codes_create_prints_once_and_stores_hashes(redis_url: str, redis_client: redis.Redis) -> None:
    env = {**os.environ, "REDIS_URL": redis_url}
    out = subprocess.run(
        [DENPEX, "codes", "create", "--days", "14", "--daily-limit", "50", "--count", "3"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    codes = out.stdout.split()
    assert len(codes) == 3 and all(c.startswith("DPX-") for c in codes)
    assert "Shown once" in out.stderr
    stored = b"".join(redis_client.keys("*")) + b"".join(
        v for k in redis_client.keys("*") for v in redis_client.hvals(k)
    )
    assert not any(c.encode() in stored or c.replace("-", "").encode() in stored for c in codes)
    quota = Quota(redis_client)
    result = quota.redeem("TCLI", codes[0])
    assert result.ok and result.daily_limit == 50


def test_codes_create_needs_redis_url() -> None:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    out = subprocess.run(
        [DENPEX, "codes", "create"], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert out.returncode == 2 and "REDIS_URL is not set" in out.stderr
