"""`denpex serve` as a real process mounts the Slack app: HTTP at /slack/events and Socket Mode."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from tests.fakes.slack import FakeSlack, payloads
from tests.support.redis_server import free_port

DENPEX = str(Path(sys.executable).parent / "denpex")


def test_serve_mounts_http_and_socket_mode(fake_slack: FakeSlack, redis_url: str) -> None:
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "DENPEX_WEBHOOK_SECRET": "whsec",
        "DENPEX_CHANNEL": "C0ALERTS",
        "SLACK_BOT_TOKEN": fake_slack.bot_token,
        "SLACK_SIGNING_SECRET": "sigsec",
        "SLACK_API_URL": fake_slack.base_url,
        "SLACK_APP_TOKEN": fake_slack.app_token,
    }
    proc = subprocess.Popen(
        [DENPEX, "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "denpex serve did not start"
                time.sleep(0.1)
        body = payloads.form_body(fake_slack.slash_command("help"))
        headers = {**payloads.sign(body, "sigsec"), "Content-Type": "application/x-www-form-urlencoded"}
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/slack/events", data=body.encode(), headers=headers
        )
        assert b"/denpex diagnose" in urllib.request.urlopen(request, timeout=10).read()  # noqa: S310
        fake_slack.wait_for(lambda: fake_slack.socket_connections, 20, "Socket Mode connection")
        eid = fake_slack.send_slash_command("quota")
        assert "0 of 3" in fake_slack.wait_for(fake_slack.ack_of(eid), 10, "ack")["text"]
    finally:
        proc.terminate()
        proc.wait(15)
