"""The worker's supervisor imports the integrations before it forks, so a work-horse per job does not
import the client libraries again (a 1,000-rank Kubernetes job paid seconds for it every time)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from denpex.core.models import Scheduler
from denpex.core.settings import Settings
from workers.collect import CollectorRegistry


def test_preload_imports_each_integration_and_skips_what_is_not_installed() -> None:
    registry = CollectorRegistry(
        Settings(),
        {Scheduler.files: "integrations.files:create_collector", Scheduler.slurm: "no_such_pkg.x:f"},
    )
    loaded = registry.preload()
    assert "integrations.files" in loaded and "integrations.kubernetes" in loaded
    assert "no_such_pkg.x" not in loaded
    assert registry._built == {}, "preloading builds no collector (no client, no socket before a fork)"


def test_after_preload_a_forked_child_finds_the_kubernetes_client_already_imported() -> None:
    script = textwrap.dedent(
        """
        import os, sys
        from denpex.core.settings import Settings
        from workers.collect import CollectorRegistry
        assert "kubernetes.client" not in sys.modules
        CollectorRegistry(Settings()).preload()
        pid = os.fork()
        if pid == 0:
            os._exit(0 if "kubernetes.client" in sys.modules else 3)
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
