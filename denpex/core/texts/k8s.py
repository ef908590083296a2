"""User-facing texts of the Kubernetes integration: missing-evidence notes, CLI and node-agent errors."""

from __future__ import annotations


def missing_kernel_log(node: str, why: str) -> tuple[str, str]:
    """(what, next_action) when neither the node-agent nor the kubelet gave a node's kernel log."""
    return (
        f"kernel log of {node} ({why})",
        f"deploy the denpex node-agent DaemonSet (helm value nodeAgent.enabled=true), or run "
        f"`kubectl debug node/{node} -it --image=busybox -- dmesg -T | grep -i -e xid -e oom -e nvrm`",
    )


def missing_pod_log(pod: str, container: str, why: str) -> tuple[str, str]:
    return (
        f"log of pod {pod} container {container} ({why})",
        f"`kubectl logs {pod} -c {container} --previous` while the pod still exists; ship container "
        f"logs to durable storage so they survive pod deletion",
    )


def missing_pods(kind: str, namespace: str, name: str) -> tuple[str, str]:
    return (
        f"pods of {kind} {namespace}/{name} (none found; deleted or garbage-collected)",
        f"set the Job's ttlSecondsAfterFinished high enough that Denpex can read the pods, then "
        f"`kubectl get pods -n {namespace} -l batch.kubernetes.io/job-name={name}`",
    )


def missing_job(namespace: str, name: str) -> tuple[str, str]:
    return (
        f"the Job/PyTorchJob/JobSet {namespace}/{name} (not found in the API)",
        f"`kubectl get jobs,pytorchjobs,jobsets -n {namespace} {name}`; check the namespace and name",
    )


WATCH_HELP = "Watch Kubernetes training jobs (Job, PyTorchJob, JobSet) and report each failure to DENPEX_URL."
NODE_AGENT_HELP = "Serve this node's masked kernel log (GET /kernel-log) to the Denpex worker."

UNAUTHORIZED = "401: a valid bearer token (DENPEX_NODE_AGENT_TOKEN) is required\n"
NO_KERNEL_LOG = "the kernel ring buffer cannot be read here (needs CAP_SYSLOG): {error}\n"


def bad_time(param: str, value: str) -> str:
    return f"400: {param}={value!r} is not an ISO 8601 time or unix seconds\n"


def watcher_started(namespaces: list[str], kinds: list[str]) -> str:
    where = ", ".join(namespaces) if namespaces else "all namespaces"
    return f"denpex watch-k8s: watching {', '.join(kinds)} in {where}"


def no_cluster(error: str) -> str:
    return f"denpex: cannot find a Kubernetes cluster (no KUBECONFIG, not in a pod): {error}"
