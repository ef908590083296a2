"""Prometheus metrics: one `CollectorRegistry` per app, nothing global.

Webhook counters live in the server process. Diagnoses by category, the failure-to-post latency and
queue depth are produced by worker processes, so they are kept in Redis (`workers.store` `stats:*`)
and read at scrape time by `PipelineCollector` — one scrape shows the whole pipeline however many
workers run. Incidents by category and by node (`denpex_incidents_total`,
`denpex_node_incidents_total`) are counted by the incident history (`workers.incidents`) in the same
script that records an incident, so a retried post never counts twice.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import redis
from prometheus_client import CollectorRegistry, Counter
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from rq import Queue

from workers.incidents import IncidentBook
from workers.store import LATENCY_BUCKETS, STATS_CATEGORIES, STATS_LATENCY, as_str


class PipelineCollector(Collector):
    """Reads the workers' counters from Redis on each scrape; a Redis outage yields no samples."""

    def __init__(self, client: redis.Redis, queue_name: str) -> None:
        self.client, self.queue_name = client, queue_name

    def collect(self) -> Iterator[Metric]:
        try:
            categories = self.client.hgetall(STATS_CATEGORIES)
            latency = {as_str(k): as_str(v) for k, v in self.client.hgetall(STATS_LATENCY).items()}
            depth = Queue(self.queue_name, connection=self.client).count
            incidents, node_incidents = IncidentBook(self.client).counts()
        except redis.RedisError:
            return
        diag = CounterMetricFamily("denpex_diagnoses", "Diagnoses produced, by category", labels=["category"])
        for category, count in sorted(categories.items()):
            diag.add_metric([as_str(category)], float(count))
        yield diag
        buckets = [(str(b), float(latency.get(f"le:{b}", 0))) for b in LATENCY_BUCKETS]
        buckets.append(("+Inf", float(latency.get("count", 0))))
        yield HistogramMetricFamily(
            "denpex_failure_to_post_seconds",
            "Seconds from the job's end to the Slack post",
            buckets=buckets,
            sum_value=float(latency.get("sum", 0.0)),
        )
        gauge = GaugeMetricFamily("denpex_queue_depth", "Jobs waiting in the RQ queue", labels=["queue"])
        gauge.add_metric([self.queue_name], float(depth))
        yield gauge
        yield from incident_metrics(incidents, node_incidents)


def incident_metrics(
    incidents: dict[tuple[str, ...], int], node_incidents: dict[tuple[str, ...], int]
) -> Iterator[Metric]:
    """The incident history's counters: by (cluster, category) and by (cluster, node, class)."""
    by_category = CounterMetricFamily(
        "denpex_incidents", "Posted diagnoses recorded as incidents", labels=["category", "cluster"]
    )
    for (cluster, category), count in sorted(incidents.items()):
        by_category.add_metric([category, cluster], float(count))
    yield by_category
    by_node = CounterMetricFamily(
        "denpex_node_incidents",
        "Incidents per node: initiating, or a hardware-class signal (class)",
        labels=["node", "cluster", "class"],
    )
    for (cluster, node, kind), count in sorted(node_incidents.items()):
        by_node.add_metric([node, cluster, kind], float(count))
    yield by_node


@dataclass
class Metrics:
    registry: CollectorRegistry
    received: Counter
    rejected: Counter
    queued: Counter
    duplicates: Counter
    node_logs: Counter


def create_metrics(client: redis.Redis | None, queue_name: str) -> Metrics:
    registry = CollectorRegistry()
    metrics = Metrics(
        registry=registry,
        received=Counter("denpex_webhooks_received", "Webhooks received", ["route"], registry=registry),
        rejected=Counter(
            "denpex_webhooks_rejected", "Webhooks rejected", ["route", "reason"], registry=registry
        ),
        queued=Counter("denpex_jobs_queued", "Jobs queued for diagnosis", ["route"], registry=registry),
        duplicates=Counter(
            "denpex_webhooks_duplicate", "Reports of an already queued job", ["route"], registry=registry
        ),
        node_logs=Counter("denpex_node_logs_stored", "Node kernel logs stored", registry=registry),
    )
    if client is not None:
        registry.register(PipelineCollector(client, queue_name))
    return metrics
