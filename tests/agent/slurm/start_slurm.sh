#!/bin/bash
# Start a throw-away single-node Slurm cluster (munged + slurmctld + slurmd)
# whose files all live under DIR, for automated tests.
# Usage: start_slurm.sh DIR   (DIR: an empty directory owned by the caller)
# On success prints "SLURM_CONF=DIR/slurm.conf" and exits 0; on any failure
# prints one line on stderr, stops what it started and exits 77 (test skip).
# Env: SLURM_TEST_CTLD_PORT / SLURM_TEST_SLURMD_PORT pick the ports
# (default: random free high ports), SLURM_TEST_TIMEOUT (default 30 s).

# Daemons live in /usr/sbin, which is not always on a user's PATH.
PATH="$PATH:/usr/sbin:/sbin"
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$1
TIMEOUT=${SLURM_TEST_TIMEOUT:-30}

fail() {
    echo "start_slurm: $*" >&2
    [ -n "$DIR" ] && [ -d "$DIR" ] && "$HERE/stop_slurm.sh" "$DIR" >/dev/null 2>&1
    exit 77
}

[ "$EUID" = 0 ] || fail "must run as root (SlurmUser=root)"
[ -n "$DIR" ] && [ -d "$DIR" ] || fail "usage: start_slurm.sh DIR (an existing empty directory)"
DIR=$(cd "$DIR" && pwd)
for b in munged slurmctld slurmd sinfo srun scontrol; do
    [ -x "$(type -P "$b")" ] || fail "'$b' not found (apt-get install slurmctld slurmd slurm-client munge)"
done
# Unix sockets are limited to 108 bytes; slurmd's lives in spool/.
[ ${#DIR} -lt 70 ] || fail "DIR path too long for unix sockets: $DIR"

# A random high TCP port nobody listens on (checked with ss when present).
free_port() {
    local p
    for _ in $(seq 50); do
        p=$((20000 + RANDOM % 40000))
        command -v ss >/dev/null || { echo $p; return; }
        ss -Htln "sport = :$p" 2>/dev/null | grep -q . || { echo $p; return; }
    done
    return 1
}

mkdir -p "$DIR/state" "$DIR/spool" "$DIR/log" || fail "cannot create directories in $DIR"

# --- munge: private key and daemon, so we need neither /etc/munge nor /run/munge.
dd if=/dev/urandom of="$DIR/munge.key" bs=1 count=1024 2>/dev/null || fail "cannot write munge key"
chmod 400 "$DIR/munge.key"
# --force: munged otherwise refuses e.g. a socket in a dir not open to all
# (mktemp -d makes 0700 dirs) or a key under a group/world-writable /tmp.
munged --force --key-file="$DIR/munge.key" --socket="$DIR/munge.socket" \
    --pid-file="$DIR/munged.pid" --log-file="$DIR/log/munged.log" \
    --seed-file="$DIR/munged.seed" 2>"$DIR/log/munged.err" \
    || fail "munged failed to start: $(tail -n1 "$DIR/log/munged.err")"
# munged returns once it is ready; still, its socket must be there.
[ -S "$DIR/munge.socket" ] || fail "munged socket did not appear"

# --- slurm.conf: one node (this host) with all its CPUs, no cgroups, no accounting.
HOST=$(hostname -s)
CPUS=$(nproc)
CTLD_PORT=${SLURM_TEST_CTLD_PORT:-$(free_port)} || fail "no free port found"
SLURMD_PORT=${SLURM_TEST_SLURMD_PORT:-$(free_port)} || fail "no free port found"
[ "$CTLD_PORT" != "$SLURMD_PORT" ] || fail "slurmctld and slurmd ports collide ($CTLD_PORT)"
cat >"$DIR/slurm.conf" <<EOF
ClusterName=testcluster
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge.socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
# CR_CPU: each CPU is a separate consumable, so two 1-task jobs run side by side.
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=100 State=UNKNOWN
PartitionName=debug Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$DIR/slurm.conf"

# --- daemons: foreground (-D) in the background, so we know their pids at
# once and see them die (a daemonizing one fails after its parent exited 0);
# setsid: a signal to the caller's process group must not reach them.
declare -A PID
for d in slurmctld slurmd; do
    setsid "$d" -D -f "$SLURM_CONF" </dev/null >"$DIR/log/$d.err" 2>&1 &
    PID[$d]=$!
    disown # no "Killed" job notices from this shell on stderr
    echo "${PID[$d]}" >"$DIR/$d.pid" # for stop_slurm.sh, even if it dies early
done

# Wait until the node is idle (controller up, slurmd registered); fail fast,
# with its last error, if a daemon died meanwhile (e.g. its port was taken).
# Running = exists and is no zombie (a dead child stays one until reaped).
running() { case $(ps -o stat= -p "$1" 2>/dev/null) in '' | Z*) return 1 ;; esac; }
end=$((SECONDS + TIMEOUT))
until [ "$(timeout 3 sinfo -h -n "$HOST" -o %t 2>/dev/null)" = idle ]; do
    for d in slurmctld slurmd; do
        running "${PID[$d]}" ||
            fail "$d died: $(grep -hE 'error|fatal' "$DIR/log/$d.log" "$DIR/log/$d.err" | tail -n1) (see $DIR/log)"
    done
    [ $SECONDS -lt $end ] || fail "node $HOST not idle after ${TIMEOUT}s (see $DIR/log)"
    sleep 0.2
done
timeout 15 srun --quiet -N1 -n1 hostname >/dev/null 2>"$DIR/log/srun.err" \
    || fail "test srun failed: $(tail -n1 "$DIR/log/srun.err")"

echo "SLURM_CONF=$SLURM_CONF"
