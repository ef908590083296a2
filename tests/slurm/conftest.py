"""Slurm fixtures: a real single-node Slurm 22.05 cluster with Denpex's hooks installed.

`deploy/slurm/dev-cluster.sh up` installs what is missing (as root, on Debian/Ubuntu) and starts
munge, slurmdbd (on the machine's MariaDB), slurmctld and slurmd; it takes about a second when the
cluster is already up. Every test in this folder is marked `slurm`.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.slurm.support import (
    LOCK_WAIT,
    Cluster,
    Sink,
    can_run_cluster,
    cancel_leftovers,
    cluster_up,
    exclusive_lock,
    hooks_env,
    make_hook_log,
)

SECRET = "slurm-test-secret-7d1e"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    first = True
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.slurm)
            if first and "slurm_cluster" in getattr(item, "fixturenames", ()):
                # The session fixture's setup (which may wait for another session's Slurm tests) runs
                # inside the first test that uses it, and counts against that test's timeout.
                item.add_marker(pytest.mark.timeout(LOCK_WAIT + 300))
                first = False


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    why = can_run_cluster()
    if why:
        pytest.skip(why)
    with exclusive_lock():
        cluster_up()
        cancel_leftovers()
        workdir = tmp_path_factory.mktemp("slurm-jobs")
        os.chmod(workdir, 0o700)  # root-only: the worker-as-nobody test relies on it
        cluster = Cluster(workdir)
        cluster.resume()
        cluster.start_background()
        yield cluster
        cluster.resume()


@pytest.fixture
def hook_log() -> Iterator[Path]:
    """A file both hooks can append to: the node hook runs as root, the controller hook as `slurm`."""
    log = make_hook_log()
    yield log
    shutil.rmtree(log.parent, ignore_errors=True)


@pytest.fixture
def sink(slurm_cluster: Cluster, hook_log: Path) -> Iterator[Sink]:
    """A signed-webhook receiver with /etc/denpex/hooks.env pointing the real hooks at it."""
    with (
        Sink(SECRET) as receiver,
        hooks_env(
            DENPEX_URL=receiver.url,
            DENPEX_WEBHOOK_SECRET=SECRET,
            DENPEX_CLUSTER="ci",
            DENPEX_HOOK_LOG=str(hook_log),
        ),
    ):
        receiver.log = hook_log
        yield receiver
