"""Configuration from the environment (and an optional `.env`-style file), validated at start-up.

Every process builds one `Settings` and passes it (or the clients made from it) down; nothing reads
`os.environ` later. A missing required setting is reported by `require()` as one line naming it.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class MissingSetting(RuntimeError):
    """A setting a command needs is not configured. `str()` is the one-line message for the user."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=None, env_prefix="", extra="ignore", case_sensitive=False, populate_by_name=True
    )

    redis_url: str | None = Field(default=None, alias="REDIS_URL")
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
    log_root: Path | None = Field(default=None, alias="DENPEX_LOG_ROOT")
    url: str | None = Field(default=None, alias="DENPEX_URL")
    cluster: str = Field(default="default", alias="DENPEX_CLUSTER")
    queue_name: str = Field(default="denpex", alias="DENPEX_QUEUE")
    node_grace_seconds: float = Field(default=20.0, ge=0, alias="DENPEX_NODE_GRACE_SECONDS")
    max_body_bytes: int = Field(default=8 << 20, ge=1024, alias="DENPEX_MAX_BODY_BYTES")
    rank_byte_cap: int = Field(default=64 << 20, ge=4096, alias="DENPEX_RANK_BYTE_CAP")
    result_ttl_seconds: int = Field(default=14 * 86400, ge=60, alias="DENPEX_RESULT_TTL")
    k8s_namespaces: str | None = Field(default=None, alias="DENPEX_K8S_NAMESPACES")
    k8s_cluster: str | None = Field(default=None, alias="DENPEX_K8S_CLUSTER")
    node_agent_token: SecretStr | None = Field(default=None, alias="DENPEX_NODE_AGENT_TOKEN")
    node_agent_namespace: str | None = Field(default=None, alias="DENPEX_NODE_AGENT_NAMESPACE")
    llm_url: str | None = Field(default=None, alias="DENPEX_LLM_URL")
    llm_model: str | None = Field(default=None, alias="DENPEX_LLM_MODEL")
    log_level: str = Field(default="INFO", alias="DENPEX_LOG_LEVEL")

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
