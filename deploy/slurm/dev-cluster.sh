#!/usr/bin/env bash
# deploy/slurm/dev-cluster.sh up|down|status|restart — a real single-node Slurm 22.05 cluster for
# development and the tests in tests/slurm, with Denpex's hooks installed. Debian/Ubuntu, run as root.
#
# `up` is idempotent and takes about a second when everything is already running: it installs the
# Debian packages that are missing (munge slurmctld slurmd slurm-client slurmdbd), writes the config,
# installs the hooks, starts only the daemons that are not running (no systemd needed), restarts
# slurmctld/slurmd only when slurm.conf changed, and waits until the node is idle and the cluster is
# registered in slurmdbd (so `sacct` works).
#
# Knobs (environment):
#   DENPEX_SLURM_HOOKS=epilog|jobcomp|none  epilog: EpilogSlurmctld + node Epilog (default);
#                               jobcomp: jobcomp/script + node Epilog; none: no Denpex hooks
#   DENPEX_SLURM_MIN_JOB_AGE=30 seconds a finished job stays in slurmctld memory (scontrol)
#   DENPEX_SLURM_DBD=1|0        slurmdbd on the machine's MariaDB (started if not running)
#   DENPEX_SLURM_CPUS=8         task slots the node declares (at least the machine's CPUs). Test jobs
#                               mostly wait (hooks, sleeps), so more slots than cores lets a job array
#                               run 8 tasks at a time on a 2-core machine (SlurmdParameters=config_overrides).
#   DENPEX_URL, DENPEX_WEBHOOK_SECRET, DENPEX_CLUSTER
#                               when set, (re)write /etc/denpex/hooks.env for the hooks
#
# Gotchas this script handles (learned on these machines):
#   - slurmctld/slurmdbd leave stale pid files; a pid is trusted only if /proc/PID/comm names the daemon.
#   - Without bf_interval=1 a freshly freed node waits up to 30 s for the backfill scheduler.
#   - Without DefMemPerCPU a job takes the whole node's memory and the next job waits.
#   - Hooks must be readable by the `slurm` user: they are copied to /etc/slurm/hooks.
#   - hooks.env holds the webhook secret: root:slurm 0640 (controller hooks run as slurm, node hook as root).
#   - A node left drained by an earlier run is resumed.
#   - A requeued job waits cred_expire (120 s by default) before it may start again: 10 s here.
set -euo pipefail
CMD=${1:-up}
HERE=$(cd "$(dirname "$0")" && pwd)
HOOKS_MODE=${DENPEX_SLURM_HOOKS:-epilog}
MIN_JOB_AGE=${DENPEX_SLURM_MIN_JOB_AGE:-30}
WITH_DBD=${DENPEX_SLURM_DBD:-1}
CPUS=${DENPEX_SLURM_CPUS:-8}
if [ "$CPUS" -lt "$(nproc)" ]; then CPUS=$(nproc); fi
CLUSTER=${DENPEX_SLURM_CLUSTER:-ci}
HOST=$(hostname -s)
LOGDIR=/var/log/slurm
HOOKDIR=/etc/slurm/hooks
log() { echo "[dev-cluster] $*" >&2; }

# alive PIDFILE [COMM]: the pid in PIDFILE is alive and its command name is COMM (default: file's name)
alive() {
  [ -s "$1" ] || return 1
  local pid comm; pid=$(cat "$1"); comm=${2:-$(basename "$1" .pid)}
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$comm" ]
}
stop_pidfile() {  # stop exactly the daemon recorded in PIDFILE, and nothing else
  alive "$@" || { rm -f "$1"; return 0; }
  local pid; pid=$(cat "$1"); kill "$pid"
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || { rm -f "$1"; return 0; }; sleep 0.1; done
  log "pid $pid ($1) did not stop"; return 1
}
wait_for() {  # wait_for TRIES CMD...: run CMD every 0.1 s until it succeeds
  local n=$1; shift
  for _ in $(seq 1 "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}

install_packages() {
  local pkgs=(munge slurmctld slurmd slurm-client) missing=() p
  [ "$WITH_DBD" = 1 ] && pkgs+=(slurmdbd)
  [ "$WITH_DBD" = 1 ] && ! command -v mariadbd >/dev/null && pkgs+=(mariadb-server)
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "apt-get install ${missing[*]}"
  apt-get update -qq
  # Debian's postinst would try to start the daemons through invoke-rc.d; we start them ourselves.
  DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
}

start_munge() {
  if [ ! -s /etc/munge/munge.key ]; then
    mungekey --create --force
    chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key
  fi
  install -d -o munge -g munge -m 0755 /run/munge
  alive /run/munge/munged.pid munged || runuser -u munge -- /usr/sbin/munged
  wait_for 50 sh -c 'munge -n | unmunge' || { log "munged does not answer"; return 1; }
}

install_hooks() {  # prints the slurm.conf lines that enable the hooks
  install -d -m 0755 "$HOOKDIR"
  install -d -m 0755 /etc/denpex
  if [ -n "${DENPEX_URL:-}" ]; then
    local tmp; tmp=$(mktemp)
    printf 'DENPEX_URL=%s\nDENPEX_WEBHOOK_SECRET=%s\nDENPEX_CLUSTER=%s\n' \
      "$DENPEX_URL" "${DENPEX_WEBHOOK_SECRET:-}" "${DENPEX_CLUSTER:-$CLUSTER}" > "$tmp"
    install -o root -g slurm -m 0640 "$tmp" /etc/denpex/hooks.env; rm -f "$tmp"
  fi
  case "$HOOKS_MODE" in
    none) echo "JobCompType=jobcomp/none"; return 0 ;;
    epilog|jobcomp) ;;
    *) log "DENPEX_SLURM_HOOKS must be epilog, jobcomp or none"; return 1 ;;
  esac
  install -m 0755 "$HERE/denpex-epilog-slurmctld" "$HOOKDIR/denpex-epilog-slurmctld"
  install -m 0755 "$HERE/denpex-epilog" "$HOOKDIR/denpex-epilog"
  echo "Epilog=$HOOKDIR/denpex-epilog"
  if [ "$HOOKS_MODE" = jobcomp ]; then
    install -m 0755 "$HERE/denpex-jobcomp" "$HOOKDIR/denpex-jobcomp"
    echo "JobCompType=jobcomp/script"; echo "JobCompLoc=$HOOKDIR/denpex-jobcomp"
  else
    echo "EpilogSlurmctld=$HOOKDIR/denpex-epilog-slurmctld"; echo "JobCompType=jobcomp/none"
  fi
}

write_slurm_conf() {  # returns 0 when slurm.conf changed
  local hooks=$1 track acct mem tmp
  if grep -q ' /sys/fs/cgroup/memory cgroup ' /proc/mounts; then
    # cgroup v1 memory controller: a job over --mem is killed by the kernel (real OOM, real kernel line)
    printf 'CgroupPlugin=cgroup/v1\nConstrainCores=yes\nConstrainRAMSpace=yes\nConstrainSwapSpace=yes\n' \
      > /etc/slurm/cgroup.conf
    track=$'ProctrackType=proctrack/cgroup\nTaskPlugin=task/cgroup,task/affinity\nJobAcctGatherType=jobacct_gather/cgroup'
  else  # no v1 memory controller: Slurm's own polling kills jobs over --mem
    track=$'ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nJobAcctGatherType=jobacct_gather/linux\nJobAcctGatherParams=OverMemoryKill'
  fi
  acct="AccountingStorageType=accounting_storage/none"
  [ "$WITH_DBD" = 1 ] && acct=$'AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=localhost\nAccountingStoreFlags=job_script'
  mem=$(( $(awk '/MemTotal/{print int($2/1024)}' /proc/meminfo) - 1024 ))
  tmp=$(mktemp)
  cat > "$tmp" <<EOF
# written by deploy/slurm/dev-cluster.sh — a single-node development cluster
ClusterName=$CLUSTER
SlurmctldHost=$HOST
SlurmUser=slurm
AuthType=auth/munge
AuthInfo=cred_expire=10
MpiDefault=none
$track
ReturnToService=2
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=/var/lib/slurm/slurmd
StateSaveLocation=/var/lib/slurm/slurmctld
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=512
MinJobAge=$MIN_JOB_AGE
KillWait=5
PrologEpilogTimeout=60
JobRequeue=1
JobAcctGatherFrequency=1
$acct
$hooks
SlurmctldLogFile=$LOGDIR/slurmctld.log
SlurmdLogFile=$LOGDIR/slurmd.log
SlurmdParameters=config_overrides
NodeName=$HOST CPUs=$CPUS RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  if cmp -s "$tmp" /etc/slurm/slurm.conf; then rm -f "$tmp"; return 1; fi
  install -m 0644 "$tmp" /etc/slurm/slurm.conf; rm -f "$tmp"
  return 0
}

start_dbd() {
  if ! mariadb-admin ping >/dev/null 2>&1; then
    install -d -o mysql -g mysql /run/mysqld
    [ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql >/dev/null
    log "starting MariaDB"
    start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd -- --user=mysql
    wait_for 300 mariadb-admin ping || { log "MariaDB did not start"; return 1; }
  fi
  mariadb -e "CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'denpex-dev';
              ALTER USER 'slurm'@'localhost' IDENTIFIED BY 'denpex-dev';
              GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';"
  local tmp; tmp=$(mktemp)
  printf '%s\n' AuthType=auth/munge DbdHost=localhost SlurmUser=slurm "LogFile=$LOGDIR/slurmdbd.log" \
    PidFile=/run/slurmdbd.pid StorageType=accounting_storage/mysql StorageHost=localhost \
    StorageUser=slurm StoragePass=denpex-dev StorageLoc=slurm_acct_db > "$tmp"
  if ! cmp -s "$tmp" /etc/slurm/slurmdbd.conf; then
    install -o slurm -g slurm -m 0600 "$tmp" /etc/slurm/slurmdbd.conf; stop_pidfile /run/slurmdbd.pid
  fi
  rm -f "$tmp"
  alive /run/slurmdbd.pid || /usr/sbin/slurmdbd
  wait_for 100 bash -c 'exec 3<>/dev/tcp/127.0.0.1/6819' || { log "slurmdbd does not listen"; return 1; }
}

wait_idle() {
  local st="" i
  for i in $(seq 1 120); do
    st=$(sinfo -h -N -n "$HOST" -o %T 2>/dev/null || true)
    case "$st" in
      idle|mixed|allocated|planned|completing) return 0 ;;
      drain*|down*|fail*) [ "$i" -gt 4 ] && scontrol update nodename="$HOST" state=resume >/dev/null 2>&1 ;;
    esac
    sleep 0.5
  done
  log "node state '$st' after 60 s"; tail -n 20 "$LOGDIR/slurmctld.log" "$LOGDIR/slurmd.log" >&2
  return 1
}

up() {
  local t0=$SECONDS hooks
  install_packages
  getent hosts "$HOST" >/dev/null || echo "127.0.0.1 $HOST" >> /etc/hosts
  start_munge
  install -d -o slurm -g slurm /var/lib/slurm/slurmctld /var/lib/slurm/slurmd "$LOGDIR"
  hooks=$(install_hooks)
  if write_slurm_conf "$hooks"; then
    log "slurm.conf changed: restarting slurmctld and slurmd"
    stop_pidfile /run/slurmd.pid; stop_pidfile /run/slurmctld.pid
  fi
  [ "$WITH_DBD" = 1 ] && start_dbd
  alive /run/slurmctld.pid || /usr/sbin/slurmctld
  wait_for 100 scontrol ping || { log "slurmctld does not answer"; tail -n 20 "$LOGDIR/slurmctld.log" >&2; return 1; }
  alive /run/slurmd.pid || /usr/sbin/slurmd
  wait_idle
  if [ "$WITH_DBD" = 1 ]; then
    wait_for 100 sh -c "sacctmgr -n -P list cluster format=cluster | grep -qx '$CLUSTER'" \
      || { log "cluster $CLUSTER is not registered in slurmdbd"; return 1; }
  fi
  log "up in $((SECONDS - t0)) s: $(sinfo -h -o '%P %a %D %T %N')"
}

down() {  # MariaDB is the machine's: it is left running
  stop_pidfile /run/slurmd.pid; stop_pidfile /run/slurmctld.pid; stop_pidfile /run/slurmdbd.pid
  stop_pidfile /run/munge/munged.pid munged
  log "stopped"
}

status() {
  local f
  for f in /run/munge/munged.pid /run/slurmdbd.pid /run/slurmctld.pid /run/slurmd.pid; do
    if alive "$f"; then echo "up   $f $(cat "$f")"
    else echo "down $f"; fi
  done
  mariadb-admin ping 2>/dev/null || echo "MariaDB down"
  sinfo 2>/dev/null || true
}

case "$CMD" in
  up) up ;;
  down) down ;;
  restart) down; up ;;
  status) status ;;
  *) echo "usage: $0 up|down|restart|status" >&2; exit 2 ;;
esac
