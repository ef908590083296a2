"""Replies for a fact of a kind this job's evidence does not hold (the learning rate, the precision, who
holds a port, the configured total steps, the rank-to-host map, who changed the code, the model), each
said plainly first, then the nearest fact the logs do hold."""

#: the fact asked is of a kind no line of this job prints
MISSING = "{what} is not in the logs: no line of this job prints it."
#: the nearest fact the logs do hold, after the missing one
NEAREST = " What they do show: {fact}"
ALSO = " They also show {fact}"
#: the kinds of fact, as named in the reply
LR = "The learning rate"
PRECISION = "The precision the run trained in (fp16, bf16 or fp32)"
CLIPPING = "Whether gradient clipping was on (a max_grad_norm / gradient_clipping setting)"
PORT_HOLDER = "Which process (pid) held port {port}"
TOTAL_STEPS = "The total number of steps the run was configured for"
LAYOUT = "Which host each rank ran on"
AUTHOR = "Who last changed the code (an author or a commit)"
MODEL = "The model and its parameter count"
DRIVER = "The NVIDIA driver version"
#: the nearest facts
LOSS_LINE = "rank {rank}'s last step line, step {step} ({ref}: `{text}`)."
FAILED = "rank {rank} failed first with {what} ({ref}: `{text}`)."
PORT_LINE = (
    "the launcher could not listen on port {port}: `EADDRINUSE` ({ref}), which names only the port and "
    "the error, no pid and no socket state (a live listener or a lingering socket look the same here)."
)
PORT_CHECK = (
    " To see which it is, run on that node while it happens: `ss -tanp 'sport = :{port}'` "
    "(or `lsof -i :{port}`): a LISTEN row shows the pid holding it."
)
PACE = (
    "the last step logged was step {step} ({ref}), {per} per step from step {first} on: at that pace "
    "{hour} steps an hour, to size `--time` against the total from the run's config (max_steps / epochs)."
)
LAST_STEP = "the last step logged was step {step} ({ref})."
PLACED = "{placed}; the other ranks' lines name no host."
PLACED_RANK = "rank {rank} ran on {node}"
NO_HOSTS = "no rank's line names its host: {ranks} rank(s), none placed on a host{named}."
NODES_NAMED = " (the lines name only {nodes}, not which rank ran there)"
FIRST_LINE = "the first failure line ({ref}: `{text}`)."
PRINTED = "The logs print it: `{text}` ({ref})."
LAYOUT_CHECK = " Check `sacct -j <jobid> -o JobID,NodeList,NTasks` or the launcher's hostfile."
OWN_CODE = (
    "where the job's own code failed, {file} line {line} in `{func}` ({ref}){code}. Check "
    "`git log -p -- {file}` (or `git blame -L {line},{line} {file}`) for who changed it and when."
)
OWN_CODE_TEXT = ": `{code}`"
AUTHOR_CHECK = " Check `git log -p` on the training script for who changed it and when."
GRAD_NORM = (
    "the grad_norm each step logged, e.g. {value} at step {step} ({ref}): the norm, which a clip does "
    "not print."
)
