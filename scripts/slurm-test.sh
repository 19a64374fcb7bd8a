#!/usr/bin/env bash
# scripts/slurm-test.sh — run a sweep on a real single-node Slurm cluster and check it.
#
# Starts munged, slurmctld and slurmd (Debian packages munge and slurm-wlm, installed by
# scripts/setup.sh) as this script's own background processes on 127.0.0.1, with a generated
# slurm.conf, munge key and state directories in a temporary directory (ports chosen free;
# nothing under /etc is used or changed), then:
#   1. clean run: submits a small sweep with the script printed by `lbsim slurm` (a job array
#      plus a merge job with --dependency=afterok), waits, and checks that the merged CSV is
#      byte for byte the CSV of the same sweep run locally with `lbsim sweep` + `lbsim merge`;
#   2. fault test: submits it again into a new directory, kills (SIGKILL) the array task of the
#      slowest point mid-run, checks that the merge job did not run and that `lbsim merge`
#      refuses and names the missing point, resubmits the same script (tasks run with
#      --resume), and checks that the merged CSV again equals the local one, with one row per
#      point and replication and the points finished before the kill not recomputed.
# The daemons are stopped on exit. Takes about a minute on 2 cores.
#
# Needs root (slurmd starts jobs as their user) and python3 (to pick free ports).
# Fails, saying why, when Slurm is missing or cannot start. LBSIM_NO_SLURM=1 skips the test with
# a loud "NOT RUN" message and exit status 0 (for machines that opted out of installing Slurm);
# KEEP=1 keeps the temporary directory.
set -euo pipefail

log() { printf '[slurm-test] %s\n' "$*"; }
fail() { printf '[slurm-test] FAIL: %s\n' "$*" >&2; exit 1; }

if [ "${LBSIM_NO_SLURM:-0}" = 1 ]; then
  log "NOT RUN: LBSIM_NO_SLURM=1 is set, so the real-Slurm test of lbsim slurm/sweep/merge was skipped."
  exit 0
fi

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
for c in munged slurmctld slurmd sbatch squeue scancel scontrol sinfo python3; do
  command -v "$c" >/dev/null 2>&1 ||
    fail "$c not found: Slurm cannot start here. Install it with scripts/setup.sh (Debian packages slurm-wlm, munge) or set LBSIM_NO_SLURM=1 to skip this test explicitly."
done
[ "$(id -u)" = 0 ] || fail "must run as root (slurmd launches jobs as their user and needs root); run make test as root"
command -v go >/dev/null 2>&1 || export PATH="$PATH:/usr/local/go/bin"

T="$(mktemp -d /tmp/lbsim-slurm.XXXXXX)"
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ "${KEEP:-0}" = 1 ]; then log "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT

# ------------------------------------------------------------------ the cluster
mkdir -p "$T"/{state,spool,log,bin}
head -c 1024 /dev/urandom >"$T/munge.key"
chmod 400 "$T/munge.key"
read -r PCTL PD < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
H="$(hostname -s)"
export SLURM_CONF="$T/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=lbsimtest
SlurmctldHost=$H(127.0.0.1)
SlurmctldPort=$PCTL
SlurmdPort=$PD
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge.sock
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ReturnToService=2
MinJobAge=600
KillWait=5
NodeName=$H NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=500 State=UNKNOWN
PartitionName=test Nodes=$H Default=YES MaxTime=INFINITE State=UP
EOF
show_logs() {
  local f
  for f in "$T"/log/*; do echo "--- $f (last 15 lines)" >&2; tail -n 15 "$f" >&2 || true; done
}
munged --foreground --force --key-file="$T/munge.key" --socket="$T/munge.sock" --pid-file="$T/munged.pid" \
  --log-file="$T/log/munged.log" --seed-file="$T/munged.seed" >>"$T/log/munged.log" 2>&1 &
PIDS+=($!)
slurmctld -D -i -f "$SLURM_CONF" >"$T/log/slurmctld.out" 2>&1 &
PIDS+=($!)
slurmd -D -f "$SLURM_CONF" >"$T/log/slurmd.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 60); do
  state="$(sinfo -h -N -o '%T' 2>/dev/null || true)"
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "${state:-}" = idle ] || { show_logs; fail "Slurm did not start: node state '${state:-none}' after 30 s (logs above)"; }
log "Slurm $(sinfo -V | awk '{print $2}') up: node $H ($(nproc) CPUs), controller port $PCTL, slurmd port $PD"

# ------------------------------------------------------------------ lbsim and the sweep
(cd "$ROOT" && go build -o "$T/bin/lbsim" ./cmd/lbsim)
LBSIM="$T/bin/lbsim"
# 2 policies x 3 loads x 2 replications, N = 100; the lambda = 0.9 points run 20 times longer
# (the jsqd one is killed in the fault test). Point 5 is (jsqd, 0.9).
cat >"$T/spec.json" <<'EOF'
{"name": "slurm-test", "seed": 2026, "replications": 2,
 "base": {"servers": 100},
 "axes": [{"policy": ["jsq", "jsqd"]},
          {"lambda": [0.5, 0.7, 0.9], "horizon": [20000, 20000, 400000]}]}
EOF
SLOW=5
SLOW_DESC="point 5 (policy=jsqd, horizon=400000, lambda=0.9)"

t0=$SECONDS
"$LBSIM" sweep "$T/spec.json" --out "$T/local" --quiet >/dev/null
"$LBSIM" merge "$T/local" --out "$T/local.csv" >/dev/null
log "local sweep + merge: $((SECONDS - t0)) s, $(($(wc -l <"$T/local.csv") - 1)) rows"

# submit DIR: writes the lbsim slurm script for DIR and runs it; sets ARRAY and MERGE.
submit() {
  local dir="$1"
  [ -f "$T/$dir.sh" ] || "$LBSIM" slurm "$T/spec.json" --out "$T/$dir" --shards 6 --time 00:10:00 \
    --merge-out "$T/$dir.csv" >"$T/$dir.sh"
  local out
  out="$(bash "$T/$dir.sh")" || fail "submitting $T/$dir.sh failed: $out"
  log "$out"
  read -r ARRAY MERGE < <(sed -n 's/^submitted: array job \([0-9]*\) .* merge job \([0-9]*\) .*/\1 \2/p' <<<"$out")
  [ -n "${MERGE:-}" ] || fail "could not read the job ids from: $out"
}
# wait_jobs: waits until ARRAY and MERGE have left the queue.
wait_jobs() {
  for _ in $(seq 240); do
    [ -z "$(squeue -h -j "$ARRAY,$MERGE" 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  squeue >&2 || true
  show_logs
  fail "jobs $ARRAY and $MERGE still in the queue after 120 s"
}
job_state() { scontrol show job "$1" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -n 1; }
check_same() {
  cmp -s "$T/local.csv" "$1" ||
    { diff "$T/local.csv" "$1" | head -n 20 >&2; fail "$1 differs from the local run's CSV"; }
  local rows uniq
  rows="$(($(wc -l <"$1") - 1))"
  uniq="$(tail -n +2 "$1" | cut -d, -f1,2 | sort -u | wc -l)"
  [ "$rows" = 12 ] && [ "$uniq" = 12 ] || fail "$1: $rows rows, $uniq distinct (point, replication); want 12 and 12"
}

# ------------------------------------------------------------------ 1. clean run
t0=$SECONDS
submit clean
wait_jobs
[ "$(job_state "$MERGE")" = COMPLETED ] || { show_logs; cat "$T"/clean/logs/* >&2 || true; fail "merge job $MERGE: $(job_state "$MERGE")"; }
check_same "$T/clean.csv"
hosts="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["shards"])' "$T/clean.provenance.json")"
log "1. clean run OK in $((SECONDS - t0)) s: 6 array tasks (shards $hosts) + merge job; CSV identical to the local run"

# ------------------------------------------------------------------ 2. fault test
t0=$SECONDS
submit fault
task="${ARRAY}_$SLOW"
for _ in $(seq 120); do
  st="$(squeue -h -j "$task" -o '%T %M' 2>/dev/null || true)"
  case "$st" in RUNNING\ 0:0[2-9]*|RUNNING\ 0:[1-9]*) break ;; esac
  sleep 0.5
done
case "$st" in RUNNING*) ;; *) fail "array task $task never ran for 2 s (state '$st')" ;; esac
[ ! -e "$T/fault/points/point-00000$SLOW.json" ] || fail "point $SLOW finished before the kill; make it slower"
# SIGKILL to the task's processes (the batch step execs lbsim): no chance to clean up, as
# when a node dies; scancel would send SIGTERM first.
# The task's process: lbsim with SLURM_ARRAY_JOB_ID=$ARRAY and SLURM_ARRAY_TASK_ID=$SLOW.
pid=""
for e in /proc/[0-9]*/environ; do
  p="${e#/proc/}" && p="${p%/environ}"
  [ "$(cat "/proc/$p/comm" 2>/dev/null)" = lbsim ] || continue
  env="$(tr '\0' '\n' <"$e" 2>/dev/null || true)"
  grep -qx "SLURM_ARRAY_JOB_ID=$ARRAY" <<<"$env" && grep -qx "SLURM_ARRAY_TASK_ID=$SLOW" <<<"$env" && pid="$p"
done
[ -n "$pid" ] || fail "found no lbsim process of array task $task"
kill -KILL "$pid"
log "killed array task $task (point $SLOW, lbsim pid $pid) with SIGKILL after ${st#RUNNING }"
wait_jobs
[ "$(job_state "$task")" != COMPLETED ] || fail "the killed task $task completed"
[ "$(job_state "$MERGE")" != COMPLETED ] && [ ! -e "$T/fault.csv" ] ||
  fail "the merge job ran although an array task failed (state $(job_state "$MERGE"))"
before="$(cd "$T/fault/points" && sha256sum point-*.json)"
[ "$(wc -l <<<"$before")" = 5 ] || fail "want the 5 other points finished, have: $before"
if err="$("$LBSIM" merge "$T/fault" --out "$T/fault-partial.csv" 2>&1)"; then
  fail "lbsim merge accepted an incomplete sweep"
fi
grep -qF "1 of 6 points missing" <<<"$err" && grep -qF "$SLOW_DESC" <<<"$err" ||
  fail "lbsim merge does not name the missing point: $err"
log "merge refused: $err"
submit fault
wait_jobs
[ "$(job_state "$MERGE")" = COMPLETED ] || { show_logs; fail "merge job $MERGE after resubmission: $(job_state "$MERGE")"; }
check_same "$T/fault.csv"
after="$(cd "$T/fault/points" && sha256sum point-*.json | grep -v "point-00000$SLOW.json")"
[ "$before" = "$after" ] || fail "the resubmission recomputed points finished before the kill"
grep -q "(1 already done)" "$T"/fault/logs/sweep-"$ARRAY"_0.log ||
  fail "the resubmitted task 0 did not skip its finished point: $(cat "$T"/fault/logs/sweep-"$ARRAY"_0.log)"
log "2. fault test OK in $((SECONDS - t0)) s: killed task lost only its point; after resubmission with --resume the CSV is identical to the local run, 12 distinct rows"
echo "slurm-test: 2 passed, 0 failed"
