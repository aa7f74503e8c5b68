# shellcheck shell=bash
# cluster.sh: a single-node Slurm on localhost for the tests, sourced by test-array.sh.
#
#   cluster_start DIR   writes a munge key, slurm.conf and a spool under DIR, starts munged,
#                       slurmctld and slurmd as the current user, exports SLURM_CONF and waits
#                       until the node is idle; returns 1 with CLUSTER_WHY set when it cannot
#   cluster_stop        cancels every job of the cluster, waits for them, stops the daemons
#
# Every daemon runs as the user who runs the test (SlurmUser and SlurmdUser are that user), so
# root is not needed: the jobs run as that user too. Ports are chosen free; nothing outside DIR
# is written, so several clusters can run at once. No cgroup plugin: proctrack/linuxproc finds
# a job's processes by parentage, so there is no cgroup.conf to write and no systemd to ask.

CLUSTER_DIR=
CLUSTER_WHY=
CLUSTER_PIDS=()

# A TCP port nobody listens on, and the next one: from /proc/net/tcp{,6}, whose local ports
# are hex; state 0A is LISTEN.
cluster_free_port() {
  local used=" " f addr st p
  for f in /proc/net/tcp /proc/net/tcp6; do
    [ -r "$f" ] || continue
    while read -r _ addr _ st _; do
      if [ "$st" = 0A ]; then used+="$((16#${addr##*:})) "; fi
    done < <(tail -n +2 "$f")
  done
  for ((p = 20000 + ($$ * 37) % 20000; ; p += 2)); do
    if [ "$p" -ge 40000 ]; then p=20000; fi
    [[ "$used" == *" $p "* || "$used" == *" $((p + 1)) "* ]] || break
  done
  echo "$p"
}

# cluster_wait SECONDS COMMAND...: runs COMMAND every 0.2 s until it succeeds; gives up when
# it returns 2 (it never will).
cluster_wait() {
  local until=$((SECONDS + $1)) rc
  shift
  while :; do
    rc=0
    "$@" >/dev/null 2>&1 || rc=$?
    case $rc in 0) return 0 ;; 2) return 1 ;; esac
    [ "$SECONDS" -lt "$until" ] || return 1
    sleep 0.2
  done
}

# cluster_up munged|slurmctld|slurmd [SOCKET]: whether the daemon started last answers; exits
# the wait at once (status 2) when it has died.
cluster_up() {
  kill -0 "${CLUSTER_PIDS[-1]}" 2>/dev/null || return 2
  case $1 in
  munged) [ -S "$2" ] ;;
  slurmctld) scontrol ping ;;
  slurmd) [ "$(sinfo -h -N -o %T 2>/dev/null)" = idle ] ;;
  esac
}

# The last lines of the daemons' logs, for a message.
cluster_logs() {
  local f
  for f in "$CLUSTER_DIR"/log/*; do
    [ -s "$f" ] || continue
    echo "--- $f"
    grep -v -e 'pmix' -e 'MPI: Cannot create context' "$f" | tail -n 8
  done
}

cluster_start() {
  CLUSTER_DIR=$1
  local d=$CLUSTER_DIR user host port
  user=$(id -un)
  host=$(hostname -s)
  mkdir -p "$d"/{key,run,state,spool,log}
  # munged wants its socket's directories searchable by everyone (--force makes the ones
  # above DIR, a private temporary directory, a warning) and the key readable by its user only.
  chmod 755 "$d" "$d/run"
  chmod 700 "$d/key"
  head -c 1024 /dev/urandom >"$d/key/munge.key"
  chmod 600 "$d/key/munge.key"
  port=$(cluster_free_port)
  cat >"$d/slurm.conf" <<EOF
ClusterName=mapfarmtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/run/munge.socket
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
KillWait=5
MinJobAge=3600
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 RealMemory=1024 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$d/slurm.conf

  munged -F --force --socket="$d/run/munge.socket" --key-file="$d/key/munge.key" \
    --pid-file="$d/run/munged.pid" --seed-file="$d/key/munge.seed" \
    --log-file="$d/log/munged.log" >"$d/log/munged.out" 2>&1 &
  CLUSTER_PIDS+=($!)
  if ! cluster_wait 10 cluster_up munged "$d/run/munge.socket"; then
    CLUSTER_WHY="munged did not start"
    return 1
  fi
  slurmctld -D -i -f "$d/slurm.conf" >"$d/log/slurmctld.out" 2>&1 &
  CLUSTER_PIDS+=($!)
  if ! cluster_wait 20 cluster_up slurmctld; then
    CLUSTER_WHY="slurmctld did not answer"
    return 1
  fi
  slurmd -D -f "$d/slurm.conf" >"$d/log/slurmd.out" 2>&1 &
  CLUSTER_PIDS+=($!)
  if ! cluster_wait 30 cluster_up slurmd; then
    CLUSTER_WHY="the node did not become idle (sinfo: $(sinfo -h -N -o '%T %E' 2>&1))"
    return 1
  fi
}

# Whether every slurmstepd (one per job step, a daemon of its own) has ended: each keeps
# slurmd's log open until it has reported its step's end.
cluster_no_steps() {
  local p
  for p in $(find /proc/[0-9]*/fd -lname "$CLUSTER_DIR/log/slurmd.log" 2>/dev/null | cut -d/ -f3); do
    [ "$p" = "${CLUSTER_PIDS[2]}" ] || return 1
  done
}

cluster_stop() {
  [ -n "$CLUSTER_DIR" ] || return 0
  if [ "${#CLUSTER_PIDS[@]}" -ge 3 ]; then
    scancel --quiet --user="$(id -un)" 2>/dev/null || true
    cluster_wait 15 test -z "$(squeue -h 2>/dev/null)" || true
    cluster_wait 15 cluster_no_steps || true
  fi
  local pid k
  for ((k = ${#CLUSTER_PIDS[@]} - 1; k >= 0; k--)); do # slurmd, slurmctld, then munged
    pid=${CLUSTER_PIDS[k]}
    kill -TERM "$pid" 2>/dev/null || continue
    cluster_wait 10 eval "! kill -0 $pid" || kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  CLUSTER_PIDS=()
}
