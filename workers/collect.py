"""Which collector gathers a job's evidence, by scheduler: a registry of import strings.

Integrations plug in by name, so the worker imports only the collector a job needs and a missing
optional integration degrades to "missing evidence" instead of breaking the worker:

    COLLECTORS = {Scheduler.slurm: "integrations.slurm:create_collector", ...}

A factory is `create_collector(settings: denpex.core.settings.Settings) -> integrations.base.Collector`.
Tests and `denpex worker` may pass their own mapping (`CollectorRegistry(overrides)`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import cast

from denpex.core.models import Scheduler
from denpex.core.settings import Settings
from integrations.base import Collector

COLLECTORS: dict[Scheduler, str] = {
    Scheduler.files: "integrations.files:create_collector",
    Scheduler.slurm: "integrations.slurm:create_collector",
    Scheduler.kubernetes: "integrations.kubernetes:create_collector",
}


class CollectorUnavailable(RuntimeError):
    """The integration for this scheduler is not installed or not configured (not worth retrying)."""


Factory = Callable[[Settings], Collector]


def load_factory(spec: str) -> Factory:
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise CollectorUnavailable(f"{module_name} is not installed") from exc
        raise
    try:
        return cast(Factory, getattr(module, attr or "create_collector"))
    except AttributeError as exc:
        raise CollectorUnavailable(f"{spec} does not exist") from exc


class CollectorRegistry:
    """Builds each scheduler's collector once per process, on first use."""

    def __init__(
        self, settings: Settings, overrides: Mapping[Scheduler, str | Collector] | None = None
    ) -> None:
        self.settings = settings
        self.specs: dict[Scheduler, str | Collector] = {**COLLECTORS, **(overrides or {})}
        self._built: dict[Scheduler, Collector] = {}

    def preload(self) -> list[str]:
        """Import every registered integration (and its optional `preload()` hook) in this process.

        Called by the worker's supervisor before it forks, so the work-horse RQ forks per job inherits
        the imported client libraries instead of importing them again for every job. Builds nothing:
        clients and their sockets are made in the work-horse. An integration that is not installed is
        skipped (it degrades to "missing evidence" when a job needs it). Returns the modules loaded.
        """
        loaded = []
        for spec in self.specs.values():
            if not isinstance(spec, str):
                continue
            module_name = spec.partition(":")[0]
            try:
                module = importlib.import_module(module_name)
                hook = getattr(module, "preload", None)
                if callable(hook):
                    hook()
            except ImportError:
                continue
            loaded.append(module_name)
        return loaded

    def get(self, scheduler: Scheduler) -> Collector:
        if scheduler in self._built:
            return self._built[scheduler]
        spec = self.specs.get(scheduler)
        if spec is None:
            raise CollectorUnavailable(f"no collector registered for {scheduler.value}")
        if isinstance(spec, str):
            try:
                collector = load_factory(spec)(self.settings)
            except CollectorUnavailable:
                raise
            except RuntimeError as exc:  # a factory's "not configured" error
                raise CollectorUnavailable(str(exc)) from exc
        else:
            collector = spec
        self._built[scheduler] = collector
        return collector
