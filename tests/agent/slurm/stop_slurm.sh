#!/bin/bash
# Stop the cluster start_slurm.sh started under DIR, via its pid files.
# Idempotent: missing pid files or dead processes are fine. Always exits 0.
# Usage: stop_slurm.sh DIR
PATH="$PATH:/usr/sbin:/sbin"
DIR=$1
[ -n "$DIR" ] && [ -d "$DIR" ] || exit 0
DIR=$(cd "$DIR" && pwd)
export SLURM_CONF="$DIR/slurm.conf"

# Running = exists and not a zombie (a dead daemon's parent may reap it late).
running() { case $(ps -o stat= -p "$1" 2>/dev/null) in '' | Z*) return 1 ;; esac; }

# Job steps (slurmstepd) of this cluster: slurmd ran with SLURM_CONF=DIR/...
# in its environment, which its stepds inherit.
stepds() {
    local p
    for p in $(pgrep -x slurmstepd); do
        tr '\0' '\n' 2>/dev/null <"/proc/$p/environ" | grep -qxF "SLURM_CONF=$SLURM_CONF" && echo "$p"
    done
}

# Cancel running jobs while the controller is still up, so that their stepds
# end, and the clients (srun) waiting on them return; all bounded.
if running "$(cat "$DIR/slurmctld.pid" 2>/dev/null)" && [ -f "$SLURM_CONF" ]; then
    timeout 5 squeue -h -o %A 2>/dev/null | xargs -r timeout 5 scancel 2>/dev/null
    for _ in $(seq 25); do [ -z "$(stepds)" ] && break; sleep 0.2; done
fi

# Terminate a daemon by pid file: TERM, wait at most ~5 s, then KILL.
stop_pidfile() {
    local f="$DIR/$1.pid" pid
    [ -f "$f" ] || return
    pid=$(cat "$f" 2>/dev/null)
    # Only signal a live process that really is that daemon (pids get reused).
    if [ -n "$pid" ] && [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = "$1" ]; then
        kill -TERM "$pid" 2>/dev/null
        for _ in $(seq 25); do running "$pid" || break; sleep 0.2; done
        kill -KILL "$pid" 2>/dev/null
    fi
    rm -f "$f"
}
# slurmd first, then the controller, munged last (both need it to talk).
stop_pidfile slurmd
stop_pidfile slurmctld
# Stepds that outlived the cancel: kill them and their tasks.
for p in $(stepds); do pkill -KILL -P "$p"; kill -KILL "$p"; done 2>/dev/null
stop_pidfile munged
exit 0
