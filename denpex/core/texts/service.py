"""Texts of `denpex serve`, `denpex worker` and `denpex demo` (terminal output and errors)."""

from __future__ import annotations

SERVE_HELP = "Run the webhook server (scheduler webhooks, /healthz, /metrics, and the Slack app's routes)."
WORKER_HELP = "Run RQ workers that collect, diagnose and post failed jobs."
DEMO_HELP = "Run the whole pipeline on this machine with a bundled failed 8-rank job (no config needed)."
PROCESSES_HELP = "Worker processes to run (each diagnoses one job at a time)."
BURST_HELP = "Exit once the queue is empty (tests, one-off catch-up)."
MAINTENANCE_HELP = "Seconds between re-queue checks for jobs whose worker died."
MONITORING_HELP = "Seconds between a busy worker's heartbeats."
GRACE_HELP = "Seconds after a missed heartbeat before a job counts as abandoned and is re-queued."
COLLECTOR_HELP = (
    "Use another collector for a scheduler, e.g. slurm=integrations.files:create_collector (repeatable)."
)
ENTRIES_HELP = "Folder of knowledge entries (*.toml) to use instead of the bundled ones."
KEEP_HELP = "Keep the demo's server, worker and Redis running until Ctrl-C."


def error(command: str, message: str) -> str:
    return f"denpex {command}: {message}"


def no_redis_server() -> str:
    return (
        "redis-server is not installed and REDIS_URL is not set "
        "(install redis-server, or point REDIS_URL at one)"
    )


def demo_timeout(seconds: float, state: str) -> str:
    return f"no diagnosis after {seconds:.1f} s (job state: {state}); the worker's output follows"


def demo_posted(channel: str, ts: str) -> str:
    return f"Posted to Slack: channel {channel}, thread ts {ts}"


def demo_banner(url: str, redis_url: str) -> str:
    return f"Denpex demo: server {url}, Redis {redis_url}, one worker"


def demo_sent(job_key: str, status: str) -> str:
    return f"Sent a signed /hooks/job webhook for {job_key}: {status}"


DEMO_HEADING = "The Slack thread Denpex would post (set SLACK_BOT_TOKEN and DENPEX_CHANNEL to post it)"


def demo_timing(seconds: float) -> str:
    return f"webhook → diagnosis in {seconds:.2f} s"


def bad_collector(spec: str) -> str:
    return f"--collector {spec!r}: expected <slurm|kubernetes|files>=<module>:<factory>"


def demo_keep(url: str, redis_url: str) -> str:
    return (
        f"Still running: DENPEX_URL={url} REDIS_URL={redis_url}; sign webhooks with the "
        "DENPEX_WEBHOOK_SECRET you exported before `denpex demo` (Ctrl-C to stop)"
    )


def slack_rejected(error: str) -> str:
    return f"Slack rejected SLACK_BOT_TOKEN ({error}); check the token and the app's installation"


def slack_unreachable(url: str, problem: str) -> str:
    return f"cannot reach the Slack Web API at {url} ({problem}); check SLACK_API_URL and the network"


def serving(url: str, log_level: str) -> str:
    """`denpex serve`'s one start-up line, once it listens."""
    return (
        f"denpex serve: listening on {url} (webhooks /hooks/…, Slack /slack/events, /healthz, /metrics); "
        f"logs: JSON lines on stderr, level {log_level.upper()} (DENPEX_LOG_LEVEL)"
    )


def worker_prints(missing: list[str]) -> str:
    """`denpex worker` without Slack settings: said once at start."""
    return (
        f"denpex worker: {' and '.join(missing)} not set, so nothing is posted to Slack; each diagnosis is "
        "printed as a `diagnosed` log line on stderr and kept in Redis"
    )
