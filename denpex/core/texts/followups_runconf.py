"""Replies for a job's configuration asked as such: launcher and its command line, interpreter, script,
total steps, environment variables, crash dumps, step/loss/lr, node layout, DataLoader workers."""

#: the launcher the logs show
LAUNCHER = "It was launched with {launcher} ({n} process(es) on {nodes})."
#: the launcher's command line is never printed
NO_CMDLINE = (
    "The exact launch command line (and its arguments: --nnodes, --nproc_per_node, --rdzv-backend, "
    "--master_port) is not shown in the lines kept from this job's logs: none of them prints it. "
    "Find it in the job script "
    "(sbatch / submit script), the shell history, or `ps -o args= -p <pid>` while it runs."
)
#: the interpreter, read from a traceback's paths
PYTHON = (
    "The interpreter was {prefix}/bin/python{version} (Python {version}): the traceback's paths run "
    "through {prefix}/lib/python{version}/site-packages ({ref})."
)
NO_PYTHON = (
    "The Python binary and its version are not in the logs: no traceback path names an interpreter "
    "prefix. Check the job script's `which python` / `python -V`."
)
#: the training script, read from a traceback's `<module>` frame
SCRIPT = "The script was {script}: the traceback's outermost frame of the job's own code ({ref})."
NO_SCRIPT = "The script's name is not in the logs: no traceback frame names it. Check the job script."
#: total steps configured, from a `step N/M` line
TOTAL = "It was configured for {total} steps: rank {rank} logged step {step}/{total} ({ref})."
NO_TOTAL = (
    "The total number of steps configured is not in the logs: the step lines print no total. "
    "Check the training config (max_steps / epochs)."
)
#: environment variables asked
ENV_SEEN = "{name} is printed: `{text}` ({ref})."
ENV_NONE = (
    "{names} {verb} not shown in the lines kept from this job's logs: none of them "
    "prints {them}. Read the environment from the launch script or "
    "job script, `cat /proc/<pid>/environ | tr '\\0' '\\n'` of a running rank, or `printenv` at the top "
    "of the job script."
)
#: crash dumps asked
CORE_SEEN = "The logs hold crash output: `{text}` ({ref})."
CORE_NONE = (
    "No core dump path or faulthandler output is in the lines kept from this job's logs: none "
    "shows a native or "
    "Python stack of the crash. Next time set PYTHONFAULTHANDLER=1 (Python stacks of every thread) and "
    "`ulimit -c unlimited` (then `coredumpctl list` / `gdb python core` for the native stack)."
)
#: the last step line of a rank, with loss and lr as printed
PROGRESS = "Rank {rank}'s last logged step was step {step} ({ref}: `{text}`)."
LAST_LR = " The last logged lr was {lr} (step {step}, {ref})."
#: ranks per node
LAYOUT = "World size {n} on {count} node(s): {layout}."
LAYOUT_NODE = "{node} ran {k} rank(s) ({ranks})"
NO_LAYOUT = (
    "World size {n}; the node layout is not shown in the lines kept from this job's logs: they do not "
    "name the host of each rank{seen}. Check "
    "`sacct -j <jobid> -o JobID,NodeList,NTasks` or `scontrol show job <jobid>` "
    "(or the launcher's hostfile)."
)
#: DataLoader workers asked
NO_WORKERS = (
    "num_workers is not shown in the lines kept from this job's logs: none of them prints the "
    "DataLoader's settings. Check the "
    "DataLoader(...) call in {script} (or its dataloader config)."
)
#: the other ranks' timeout and when they hit it
TIMEOUT_HIT = "The other ranks (collateral) hit it{when}, after rank {rank} failed."
