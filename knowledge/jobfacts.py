"""Launcher facts of one job, which the entries' verify commands and fix snippets are fitted to.

A verify command is only useful if it can be pasted: a 3-rank job must not be told to rerun with
`--nproc_per_node 8`, and `ssh $NODE` is worse than `ssh gpu-02` when the logs name the node. So
entries hold templates (`{launcher} {script} {args} --max_steps 20`, `ssh {node|$NODE} …`), this
module reads the facts from what the job's own lines say and `knowledge.jobfill` fills them in: the
launch command line (torchrun, `python -m torch.distributed.run`, srun, deepspeed, accelerate launch,
mpirun), torchrun's elastic launch-config lines, Slurm's environment and node list, the script a
traceback ran, the nodes and the world size the ranks showed. A fact the logs don't give falls back
to the template's own default (`{name|default}`) or a generic form, so a rendered command never
shows a `{placeholder}`.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from knowledge.backend import backend_of
from knowledge.patterns import Pattern
from knowledge.signals import Job

#: the FACT_PATTERNS id (knowledge/patterns.py) of the lines this module reads
FACT_ID = "launcher"

_LAUNCHERS = ("torchrun", "deepspeed", "srun", "mpirun", "accelerate")
_COMMAND = re.compile(
    r"(?:^|[\s/'\"+:=])((?:torchrun|deepspeed|srun|mpirun)\s|accelerate launch\s"
    r"|python[0-9.]*\s+-m\s+torch\.distributed\.(?:run|launch)\s)"
)
_ELASTIC = re.compile(r"^\s*(entrypoint|nproc_per_node|min_nodes|max_nodes)\s*:\s*(\S+)\s*$")
_ENV = re.compile(r"\b(SLURM_NNODES|SLURM_JOB_NUM_NODES|SLURM_NTASKS|MASTER_ADDR|MASTER_PORT)=(\S+)")
_WORLD_SIZES = re.compile(r"global_world_sizes=\[(\d+)")
_FRAME = re.compile(r'^\s*File "([^"]+\.py)", line \d+, in <module>')
#: which launcher ran the job when its command line is not in the logs (its own log lines say it)
_KIND_HINTS = (
    ("deepspeed", re.compile(r"deepspeed\.launcher|\[launch\][^\n]*\bworld_size=")),
    ("torchrun", re.compile(r"torch\.distributed\.elastic|global_world_sizes=")),
)
_STEP = re.compile(r"\b(?:global_)?step[ =:]+(\d{1,9})\b", re.IGNORECASE)

#: options that take no value, by launcher (anything else starting with `-` takes the next token)
_FLAGS = frozenset(
    {
        "--standalone",
        "--no_python",
        "--no-python",
        "--run_path",
        "--run-path",
        "-m",
        "--module",
        "--multi_gpu",
        "--use_deepspeed",
        "--use_fsdp",
        "--use_megatron_lm",
        "--cpu",
        "--debug",
        "--exclusive",
        "--unbuffered",
        "-u",
        "-l",
        "--label",
        "-v",
        "--verbose",
        "-Q",
        "--quiet",
        "-K",
        "--kill-on-bad-exit",
        "-X",
        "--no_local_rank",
        "--no-local-rank",
        "--force_multi",
        "--autotune",
        "--allow-run-as-root",
        "--oversubscribe",
        "--tee-output",
    }
)
_NPROC = (
    "--nproc_per_node",
    "--nproc-per-node",
    "--num_gpus",
    "--num-gpus",
    "--ntasks-per-node",
    "-npernode",
)
_NNODES = ("--nnodes", "--num_nodes", "--num-nodes", "--num_machines", "--num-machines", "-N", "--nodes")
_NTASKS = ("-n", "--ntasks", "-np", "--np", "--num_processes", "--num-processes")


@dataclass(frozen=True, slots=True)
class Command:
    """One launch command line, split into the launcher part and what it runs."""

    kind: str  # torchrun | deepspeed | srun | mpirun | accelerate
    launcher: tuple[str, ...]  # every token up to the script (`srun -N 2 python`, `torchrun --nnodes 2`)
    script: str | None = None
    args: tuple[str, ...] = ()
    options: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class JobFacts:
    """What the job's lines say about how it was launched. Every field may be unknown (None)."""

    kind: str | None = None
    launcher: str | None = None
    script: str | None = None
    args: str | None = None
    nproc_per_node: int | None = None
    nnodes: int | None = None
    world_size: int | None = None
    nodes: tuple[str, ...] = ()
    node: str | None = None
    master_addr: str | None = None
    master_port: str | None = None
    last_step: int | None = None
    backend: str | None = None  # `gloo` or `nccl` when the job's lines show only that one


def _int(value: str | None) -> int | None:
    """`8`, `1:4` (elastic min:max → the max), anything else None."""
    if not value:
        return None
    last = value.split(":")[-1]
    return int(last) if last.isdigit() and 0 < int(last) <= 1_000_000 else None


def _options(tokens: list[str], start: int) -> tuple[dict[str, str], int]:
    """Options from `tokens[start:]` up to the first word that is not an option or its value."""
    opts: dict[str, str] = {}
    i = start
    while i < len(tokens) and tokens[i].startswith("-") and tokens[i] != "-":
        tok = tokens[i]
        if "=" in tok and tok.startswith("--"):
            key, _, value = tok.partition("=")
            opts[key] = value
            i += 1
        elif tok in _FLAGS or i + 1 >= len(tokens) or tokens[i + 1].endswith(".py"):
            opts[tok] = ""
            i += 1
        else:
            opts[tok] = tokens[i + 1]
            i += 2
    return opts, i


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=False)
    except ValueError:  # an unbalanced quote in a log line: plain words are still useful
        return text.split()


def parse_command(text: str) -> Command | None:
    """The launch command in a log line (`+ srun -N 2 torchrun --nproc_per_node 8 train.py --lr 3e-4`)."""
    m = _COMMAND.search(text)
    if m is None:
        return None
    tokens = _split(text[m.start(1) :])
    return _parse(tokens, 0)


def _parse(tokens: list[str], start: int) -> Command | None:
    word = tokens[start]
    if word.startswith("python"):  # python -m torch.distributed.run …
        kind, i = "torchrun", start + 3
    elif word == "accelerate":
        kind, i = "accelerate", start + 2
    else:
        kind, i = word, start + 1
    opts, i = _options(tokens, i)
    if i < len(tokens) and (tokens[i] in _LAUNCHERS or _is_torch_run(tokens, i)):
        inner = _parse(tokens, i)  # srun … torchrun …: the inner launcher runs the script
        if inner is not None:
            launcher = tuple(tokens[start:i]) + inner.launcher
            return replace(inner, launcher=launcher, options={**opts, **inner.options})
    j = i
    if i < len(tokens) and tokens[i].startswith("python"):
        _, j = _options(tokens, i + 1)  # python's own options (-u, -m module)
    script = tokens[j] if j < len(tokens) else None
    if script is not None and not (_runnable(script) or "-m" in tokens[start:j]):
        return None  # prose ("deepspeed 0.16.2, NCCL 2.21.5", "mpirun noticed that …"), not a command
    if script is None and not opts:
        return None
    return Command(kind, tuple(tokens[start:j]), script, tuple(tokens[j + 1 :]), opts)


def _is_torch_run(tokens: list[str], i: int) -> bool:
    return (
        tokens[i].startswith("python")
        and tokens[i + 1 : i + 2] == ["-m"]
        and (tokens[i + 2 : i + 3] in (["torch.distributed.run"], ["torch.distributed.launch"]))
    )


def _runnable(word: str) -> bool:
    return word.endswith((".py", ".sh")) or word.startswith(("./", "/", "$"))


def _first(opts: Mapping[str, str], names: Iterable[str]) -> int | None:
    for name in names:
        if name in opts and (n := _int(opts[name])) is not None:
            return n
    return None


def read(lines: Iterable[str], *, world: int | None = None, nodes: Iterable[str] = ()) -> JobFacts:
    """Facts from lines in log order (launcher lines, elastic config, env, tracebacks, progress)."""
    cmd: Command | None = None
    elastic: dict[str, str] = {}
    env: dict[str, str] = {}
    script: str | None = None
    step: int | None = None
    hint: str | None = None
    for text in lines:
        hint = hint or next((k for k, rx in _KIND_HINTS if rx.search(text)), None)
        if cmd is None and (found := parse_command(text)) is not None:
            cmd = found
        if (m := _ELASTIC.match(text)) is not None:
            elastic.setdefault(m.group(1), m.group(2))
        for key, value in _ENV.findall(text):
            env.setdefault(key, value)
        if (m := _WORLD_SIZES.search(text)) is not None:
            world = max(world or 0, int(m.group(1)))
        if script is None and (m := _FRAME.match(text)) is not None:
            script = m.group(1)
        if (m := _STEP.search(text)) is not None:
            step = int(m.group(1))
    facts = _combine(cmd, elastic, env, script, step, world, tuple(sorted(set(nodes))))
    return facts if cmd is not None or facts.nproc_per_node is None else _shaped(facts, hint)


def _combine(
    cmd: Command | None,
    elastic: Mapping[str, str],
    env: Mapping[str, str],
    script: str | None,
    step: int | None,
    world: int | None,
    nodes: tuple[str, ...],
) -> JobFacts:
    opts = dict(cmd.options) if cmd is not None else {}
    if cmd is not None and cmd.kind == "mpirun" and "-N" in opts:  # mpirun -N: processes per node
        opts["-npernode"] = opts.pop("-N")
    nnodes = (
        _first(opts, _NNODES)
        or _int(elastic.get("max_nodes"))
        or _int(env.get("SLURM_NNODES") or env.get("SLURM_JOB_NUM_NODES"))
    )
    ntasks = _first(opts, _NTASKS) or _int(env.get("SLURM_NTASKS"))
    nproc = _first(opts, _NPROC) or _int(elastic.get("nproc_per_node"))
    if nnodes is None and len(nodes) > 1:
        nnodes = len(nodes)
    if ntasks and nproc is None and ntasks % (nnodes or 1) == 0:
        nproc = ntasks // (nnodes or 1)
    world = world or ntasks or (nproc * (nnodes or 1) if nproc else None)
    if nproc is None and world and world % (nnodes or 1) == 0:
        nproc = world // (nnodes or 1)
    if nnodes is None and world and nproc and world // nproc > 1:
        nnodes = world // nproc
    launcher = shlex.join(cmd.launcher) if cmd is not None else None
    master = opts.get("--rdzv_endpoint") or opts.get("--rdzv-endpoint") or ""
    addr, _, port = master.partition(":")
    return JobFacts(
        kind=cmd.kind if cmd is not None else None,
        launcher=launcher,
        script=(cmd.script if cmd is not None else None) or elastic.get("entrypoint") or script,
        args=shlex.join(cmd.args) if cmd is not None and cmd.script else None,
        nproc_per_node=nproc,
        nnodes=nnodes,
        world_size=world,
        nodes=nodes,
        master_addr=opts.get("--master_addr") or opts.get("--master-addr") or addr or env.get("MASTER_ADDR"),
        master_port=opts.get("--master_port") or opts.get("--master-port") or port or env.get("MASTER_PORT"),
        last_step=step,
    )


def _shaped(facts: JobFacts, hint: str | None) -> JobFacts:
    """The launcher with the job's shape, when the logs show the shape but not the command line."""
    nnodes, nproc = facts.nnodes or 1, facts.nproc_per_node
    if hint == "deepspeed":
        nodes = f" --num_nodes {nnodes}" if nnodes > 1 else ""
        return replace(facts, kind=hint, launcher=f"deepspeed{nodes} --num_gpus {nproc}")
    nodes = f" --nnodes {nnodes}" if nnodes > 1 else ""
    return replace(facts, kind="torchrun", launcher=f"torchrun{nodes} --nproc_per_node {nproc}")


def from_job(job: Job, patterns: Sequence[Pattern], rank: int | None, node: str | None) -> JobFacts:
    """Facts of a scanned job: its launcher lines, the initiating rank's tail, its ranks and nodes."""
    fact = {p.idx for p in patterns if p.kind == "fact" and p.sig_id == FACT_ID}
    texts: list[str] = []
    steps: list[str] = []
    for scan in job.scans:
        src = scan.source
        texts.extend(hit.text for hit in scan.hits if fact.intersection(hit.patterns))
        if src.kind in ("rank", "combined") and (rank is None or src.rank in (None, rank)):
            texts.extend(t for _, t in scan.numbered_tail if _FRAME.match(t))
        if rank is not None and src.rank == rank:
            steps = [t for _, t in scan.numbered_tail if _STEP.search(t)]
    nodes = {n for n in job.rank_node.values() if n} | {s.source.node for s in job.scans if s.source.node}
    facts = read([*texts, *steps[-1:]], world=job.world, nodes={n for n in nodes if n})
    port = facts.master_port or _store_port(h.text for scan in job.scans for h in scan.hits)
    return replace(facts, node=node, master_port=port, backend=backend_of(job))


#: the store's port as c10d's errors name it: `failed to bind to [::]:54661`, `connect to (10.0.0.1,
#: 29500)`, `failed to listen on any local network address. port: 54661,`
_STORE_PORT = re.compile(
    r"failed to bind to \[[^\]\n]*\]:([0-9]{2,5})\b|connect to \(?\[?[A-Za-z0-9_.:-]+\]?, ?([0-9]{2,5})\)"
    r"|failed to listen on any local network address\. port: ([0-9]{2,5}),"  # torch >= 2.3's wording
)


def _store_port(texts: Iterable[str]) -> str | None:
    """The rendezvous port the failure lines name, when the launch lines did not say it."""
    for text in texts:
        if (m := _STORE_PORT.search(text)) is not None:
            return next(g for g in m.groups() if g)
    return None
