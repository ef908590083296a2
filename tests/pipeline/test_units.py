"""Small pure pieces of the pipeline: hostlists, signatures, payload → job, log-root safety, escaping."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot import payloads
from denpex.core.models import JobRef, Scheduler
from integrations.files import FilesCollector, UnsafePath, resolve_job_dir
from integrations.hostlist import HostlistError, expand
from integrations.signing import sign, signature, verify
from integrations.slack_client import api_url, make_web_client
from tests.fakes.render import PlainRenderer, escape


@pytest.mark.parametrize(
    ("expr", "nodes"),
    [
        ("gpu-[01-04,07],login1", ["gpu-01", "gpu-02", "gpu-03", "gpu-04", "gpu-07", "login1"]),
        ("r[1-2]n[01-02]", ["r1n01", "r1n02", "r2n01", "r2n02"]),
        ("node5", ["node5"]),
        ("a[8-10]", ["a8", "a9", "a10"]),
        ("gpu-01,gpu-01", ["gpu-01"]),
    ],
)
def test_hostlist_expands(expr: str, nodes: list[str]) -> None:
    assert expand(expr) == nodes


@pytest.mark.parametrize("expr", ["gpu-[01-", "gpu-]", "a[x]", "a[5-1]", "n[0-99999999]"])
def test_hostlist_rejects(expr: str) -> None:
    with pytest.raises(HostlistError):
        expand(expr)


def test_signature_reasons() -> None:
    headers = sign("s3cret", b"{}", ts=1_000_000, path="/hooks/job")
    ts, sig = headers["X-Denpex-Timestamp"], headers["X-Denpex-Signature"]
    assert sig.startswith("v2=")
    ok = {"path": "/hooks/job"}
    assert verify("s3cret", b"{}", ts, sig, now=1_000_100, **ok) is None
    assert verify("s3cret", b"{}", ts, sig, now=1_000_301, **ok) == "stale"
    assert verify("s3cret", b"{ }", ts, sig, now=1_000_000, **ok) == "mismatch"
    assert verify("other", b"{}", ts, sig, now=1_000_000, **ok) == "mismatch"
    assert verify("s3cret", b"{}", ts, sig, now=1_000_000, path="/hooks/slurm") == "mismatch"
    assert verify("s3cret", b"{}", None, sig) == "missing"
    assert verify("s3cret", b"{}", "soon", sig) == "malformed"
    assert verify("s3cret", b"{}", "\u0661" * 7, sig, **ok) == "malformed"
    v1 = signature("s3cret", b"{}", ts)
    assert verify("s3cret", b"{}", ts, v1, now=1_000_000, **ok) == "v1_disabled"
    assert verify("s3cret", b"{}", ts, v1, now=1_000_000, accept_v1=True, **ok) is None


def test_payloads_to_job_keys() -> None:
    slurm = payloads.slurm_event(
        payloads.parse(
            payloads.SlurmJobBody,
            {"cluster": "hpc", "job_id": 12, "state": "FAILED", "node_list": "n[1-2]", "restart_count": 2},
        )
    )
    assert slurm.job.nodes == ["n1", "n2"] and slurm.dedupe_key == "slurm:hpc:12#restart2"
    kube = payloads.kubernetes_event(
        payloads.parse(
            payloads.KubernetesBody,
            {
                "cluster": "k",
                "namespace": "ml",
                "kind": "PyTorchJob",
                "name": "llama",
                "state": "Failed",
                "pods": [
                    {
                        "name": "llama-worker-3",
                        "node": "gpu-7",
                        "rank": 3,
                        "reason": "OOMKilled",
                        "exit_code": 137,
                    }
                ],
            },
        )
    )
    assert kube.job.key == "kubernetes:k:ml/PyTorchJob/llama" and kube.job.nodes == ["gpu-7"]
    assert "reason=OOMKilled exitCode=137" in kube.facts[1]
    with pytest.raises(payloads.PayloadError) as err:
        payloads.parse(payloads.FilesJobBody, {"cluster": "ci", "job_id": "a b"})
    assert err.value.field == "job_id"


def test_log_root_is_a_jail(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "ci" / "1").mkdir(parents=True)
    (root / "ci" / "1" / "rank0.log").write_text("hello\n")
    secret = tmp_path / "secret.txt"
    secret.write_text("outside\n")
    os.symlink(secret, root / "ci" / "1" / "rank1.log")  # a file symlink out of the job folder
    assert resolve_job_dir(root, "ci", "1") == (root / "ci" / "1").resolve()
    for cluster, job_id in (("ci", ".."), ("..", "ci"), ("ci", "/etc"), ("ci", "a/b"), ("", "1")):
        with pytest.raises(UnsafePath):
            resolve_job_dir(root, cluster, job_id)
    evidence = FilesCollector(root).collect(JobRef(scheduler=Scheduler.files, cluster="ci", job_id="1"))
    assert [s.name for s in evidence.sources] == ["rank0.log"]
    missing = FilesCollector(root).collect(JobRef(scheduler=Scheduler.files, cluster="ci", job_id="2"))
    assert missing.sources == [] and missing.missing


def test_plain_renderer_escapes_log_text() -> None:
    from denpex.core.models import Diagnosis, EvidenceLine, Initiating

    diag = Diagnosis(
        category="gpu_oom",
        confidence=0.5,
        initiating=Initiating(
            rank=1,
            evidence=[
                EvidenceLine(source="rank1.log", line=3, text="<!channel> see <http://evil|here> & more")
            ],
        ),
    )
    job = JobRef(scheduler=Scheduler.files, cluster="ci", job_id="1")
    text = "\n".join(m.text for m in PlainRenderer().thread_messages(job, diag))
    assert "<!channel>" not in text and "&lt;!channel&gt;" in text and "&amp; more" in text
    assert escape("a<b>&c") == "a&lt;b&gt;&amp;c"


def test_slack_client_base_url_and_rate_limit_handler() -> None:
    assert api_url("http://127.0.0.1:9/api") == "http://127.0.0.1:9/api/"
    client = make_web_client("xoxb-test", "http://127.0.0.1:9/api")
    assert client.base_url == "http://127.0.0.1:9/api/"
    assert any(type(h).__name__ == "RateLimitErrorRetryHandler" for h in client.retry_handlers)
