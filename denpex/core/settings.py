"""Configuration from the environment (and an optional `.env`-style file), validated at start-up.

Every process builds one `Settings` and passes it (or the clients made from it) down; nothing reads
`os.environ` later. A missing required setting is reported by `require()` as one line naming it.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class MissingSetting(RuntimeError):
    """A setting a command needs is not configured. `str()` is the one-line message for the user."""


class DrainAction(StrEnum):
    """What the thread's Drain button runs (`DENPEX_DRAIN_ACTION`): nothing (no button), or the
    scheduler's own drain (`scontrol update ... state=drain`, or a Kubernetes cordon)."""

    off = "off"
    slurm = "slurm"
    kubernetes = "kubernetes"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=None, env_prefix="", extra="ignore", case_sensitive=False, populate_by_name=True
    )

    redis_url: str | None = Field(default=None, alias="REDIS_URL")
    #: Redis Sentinel instead of one fixed server: comma-separated `host:port` of the Sentinels. The
    #: clients then follow the master they name across failovers; `REDIS_URL`, when also set, only
    #: supplies the database number and the data nodes' user and password (its host is ignored).
    redis_sentinels: str | None = Field(default=None, alias="DENPEX_REDIS_SENTINELS")
    redis_sentinel_master: str = Field(default="mymaster", min_length=1, alias="DENPEX_REDIS_SENTINEL_MASTER")
    redis_sentinel_password: SecretStr | None = Field(default=None, alias="DENPEX_REDIS_SENTINEL_PASSWORD")

    @field_validator("redis_sentinels")
    @classmethod
    def _sentinel_addresses(cls, value: str | None) -> str | None:
        """`host:port[,host:port…]`, checked at start-up so a typo is one line, not a failover surprise."""
        if value is None or not value.strip():
            return None
        for item in value.split(","):
            host, sep, port = item.strip().rpartition(":")
            if not sep or not host or not port.isascii() or not port.isdigit() or not 0 < int(port) < 65536:
                raise ValueError(f"expected host:port[,host:port...], got {item.strip()!r}")
        return value

    @property
    def sentinels(self) -> list[tuple[str, int]]:
        """The Sentinels' addresses (empty: no Sentinel, `REDIS_URL` is the one server)."""
        items = [i.strip().rpartition(":") for i in (self.redis_sentinels or "").split(",") if i.strip()]
        return [(host.strip("[]"), int(port)) for host, _, port in items]

    def require_redis(self) -> None:
        """Raise `MissingSetting` unless Redis is configured, by `REDIS_URL` or by Sentinels."""
        if not self.redis_url and not self.sentinels:
            raise MissingSetting(
                "REDIS_URL is not set (nor DENPEX_REDIS_SENTINELS); it is required for this command"
            )

    slack_bot_token: SecretStr | None = Field(default=None, alias="SLACK_BOT_TOKEN")
    slack_signing_secret: SecretStr | None = Field(default=None, alias="SLACK_SIGNING_SECRET")
    slack_app_token: SecretStr | None = Field(default=None, alias="SLACK_APP_TOKEN")
    slack_api_url: str = Field(default="https://slack.com/api/", alias="SLACK_API_URL")
    #: seconds a Slack Web API call may take before the worker gives up and RQ retries it
    slack_timeout_seconds: int = Field(default=15, ge=1, le=300, alias="DENPEX_SLACK_TIMEOUT")
    channel: str | None = Field(default=None, alias="DENPEX_CHANNEL")
    webhook_secret: SecretStr | None = Field(default=None, alias="DENPEX_WEBHOOK_SECRET")
    alertmanager_token: SecretStr | None = Field(default=None, alias="DENPEX_ALERTMANAGER_TOKEN")
    #: accept old `v1=` webhook signatures (no route signed) while hooks are being upgraded; off by default
    accept_v1: bool = Field(default=False, alias="DENPEX_ACCEPT_V1")
    #: when set, `GET /metrics` needs `Authorization: Bearer <token>`
    metrics_token: SecretStr | None = Field(default=None, alias="DENPEX_METRICS_TOKEN")
    #: alerts one Alertmanager request may carry; past it the request is refused with 400
    max_alerts: int = Field(default=50, ge=1, le=10_000, alias="DENPEX_MAX_ALERTS")
    #: seconds a webhook sender has to deliver its whole body (a slow sender is cut off with 408)
    body_timeout_seconds: float = Field(default=10.0, gt=0, le=300, alias="DENPEX_BODY_TIMEOUT")
    #: seconds a connection has, from opening (or its previous response), to send a request's line and
    #: headers; a slow sender (slowloris) is disconnected, and idle keep-alive connections close after it
    header_timeout_seconds: float = Field(default=10.0, gt=0, le=300, alias="DENPEX_HEADER_TIMEOUT")
    log_root: Path | None = Field(default=None, alias="DENPEX_LOG_ROOT")
    url: str | None = Field(default=None, alias="DENPEX_URL")
    cluster: str = Field(default="default", alias="DENPEX_CLUSTER")
    queue_name: str = Field(default="denpex", alias="DENPEX_QUEUE")
    node_grace_seconds: float = Field(default=20.0, ge=0, alias="DENPEX_NODE_GRACE_SECONDS")
    max_body_bytes: int = Field(default=8 << 20, ge=1024, alias="DENPEX_MAX_BODY_BYTES")
    rank_byte_cap: int = Field(default=64 << 20, ge=4096, alias="DENPEX_RANK_BYTE_CAP")
    #: processes that scan one job's logs in parallel (0: one per CPU), as `denpex diagnose --jobs`
    scan_jobs: int = Field(default=0, ge=0, alias="DENPEX_SCAN_JOBS")
    result_ttl_seconds: int = Field(default=14 * 86400, ge=60, alias="DENPEX_RESULT_TTL")
    k8s_namespaces: str | None = Field(default=None, alias="DENPEX_K8S_NAMESPACES")
    k8s_cluster: str | None = Field(default=None, alias="DENPEX_K8S_CLUSTER")
    node_agent_token: SecretStr | None = Field(default=None, alias="DENPEX_NODE_AGENT_TOKEN")
    node_agent_namespace: str | None = Field(default=None, alias="DENPEX_NODE_AGENT_NAMESPACE")
    llm_url: str | None = Field(default=None, alias="DENPEX_LLM_URL")
    llm_model: str | None = Field(default=None, alias="DENPEX_LLM_MODEL")
    log_level: str = Field(default="INFO", alias="DENPEX_LOG_LEVEL")
    # -- PyTorch Flight Recorder dumps (integrations.slurm.dumps, integrations.kubernetes.dumps)
    #: comma-separated globs the Slurm collector matches under a job's working and output folders
    #: (relative, or absolute; `**` spans folders; `%j`, `$SLURM_JOB_ID` expanded); default torch's names
    fr_glob: str = Field(default="**/nccl_trace_rank_*", alias="DENPEX_FR_GLOB")
    #: bytes of one dump read at most (a 20,000-entry dump with stacks is ~100 MB); larger ones are named
    fr_max_bytes: int = Field(default=256 << 20, ge=4096, alias="DENPEX_FR_MAX_BYTES")
    #: node agent: the host folder of the pods' trace volume (`<namespace>/<pod>/` below it); unset: off
    fr_host_path: Path | None = Field(default=None, alias="DENPEX_FR_HOST_PATH")
    # -- quota reservations and `/denpex redeem` attempt limits (workers.quota)
    #: a worker's reservation of a quota unit is reclaimed after this long (a crashed worker's unit
    #: comes back); longer than a job's whole retry schedule, so a live job keeps its unit
    quota_reserve_ttl_seconds: int = Field(default=7200, ge=60, alias="DENPEX_QUOTA_RESERVE_TTL")
    #: wrong codes one Slack user may try within `redeem_user_window_seconds`
    redeem_user_attempts: int = Field(default=5, ge=1, alias="DENPEX_REDEEM_USER_ATTEMPTS")
    redeem_user_window_seconds: int = Field(default=600, ge=1, alias="DENPEX_REDEEM_USER_WINDOW")
    #: wrong codes a whole workspace may try within `redeem_team_window_seconds`
    redeem_team_attempts: int = Field(default=20, ge=1, alias="DENPEX_REDEEM_TEAM_ATTEMPTS")
    redeem_team_window_seconds: int = Field(default=3600, ge=1, alias="DENPEX_REDEEM_TEAM_WINDOW")
    # -- the knowledge base on the web and the paste-a-log page (bot.web)
    #: where people reach `denpex serve` (`https://denpex.example.com`); set: threads link entries to it
    public_url: str | None = Field(default=None, pattern=r"^https?://[^\s<>|\"]+$", alias="DENPEX_PUBLIC_URL")
    #: `POST /api/diagnose` wants `Authorization: Bearer <this>`; unset (and no trusted header): API off
    web_token: SecretStr | None = Field(default=None, alias="DENPEX_WEB_TOKEN")
    #: a header a reverse proxy in front sets after its own login (`X-Forwarded-User`); its value is the
    #: client. Only name one the proxy always overwrites: anyone reaching the server directly can send it
    web_trusted_header: str | None = Field(default=None, alias="DENPEX_WEB_TRUSTED_HEADER")
    #: diagnoses one client may ask per minute, and how many at once after a pause
    web_rate_per_minute: float = Field(default=10.0, gt=0, le=10_000, alias="DENPEX_WEB_RATE")
    web_rate_burst: int = Field(default=5, ge=1, le=10_000, alias="DENPEX_WEB_BURST")

    # -- incident history and node health (workers.incidents, workers.nodehealth)
    #: incidents kept per cluster (the oldest go first); history is Scale, node health every plan
    history_max_incidents: int = Field(default=500, ge=1, le=100_000, alias="DENPEX_HISTORY_MAX")
    #: days an incident is kept (counted back from the newest incident of its cluster)
    history_days: int = Field(default=30, ge=1, le=3650, alias="DENPEX_HISTORY_DAYS")
    #: hardware-class incidents on one node (the new one included) from which the thread advises
    #: draining it; an Xid whose catalogue action is `reboot_node` or `drain_rma` advises it at once
    drain_after: int = Field(default=2, ge=1, le=1000, alias="DENPEX_DRAIN_AFTER")
    # -- no floods (workers.floods)
    #: new threads one channel gets per minute; past it failures fold into one "N more failures"
    #: message, updated in place (0: no cap). 60 is Slack's own pace of one message a second
    max_threads_per_min: int = Field(default=60, ge=0, le=10_000, alias="DENPEX_MAX_THREADS_PER_MIN")
    #: the thread's "Drain <node>" button (bot.slack.drain): `off` shows none; `slurm` / `kubernetes`
    #: show it beside the drain advice and run that scheduler's drain when an admin presses it
    drain_action: DrainAction = Field(default=DrainAction.off, alias="DENPEX_DRAIN_ACTION")
    #: comma-separated Slack user ids (`U0123ABC`) allowed to press Drain; anyone else is refused
    admins: str | None = Field(default=None, alias="DENPEX_ADMINS")

    @property
    def admin_ids(self) -> frozenset[str]:
        """The Slack user ids in `DENPEX_ADMINS` (empty: nobody may drain)."""
        return frozenset(a.strip() for a in (self.admins or "").split(",") if a.strip())

    def require(self, *names: str) -> None:
        """Raise `MissingSetting` naming the first environment variable that is unset."""
        for name in names:
            field = next(
                (f for f, info in type(self).model_fields.items() if info.alias == name or f == name), None
            )
            if field is None:
                raise KeyError(name)
            if getattr(self, field) in (None, ""):
                alias = type(self).model_fields[field].alias or field
                raise MissingSetting(f"{alias} is not set; it is required for this command")

    @property
    def namespaces(self) -> list[str]:
        return [n.strip() for n in (self.k8s_namespaces or "").split(",") if n.strip()]
