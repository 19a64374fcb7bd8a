#!/usr/bin/env bash
# Runs lbsim and its peers side by side on the scenarios of the README table "lbsim vs peers":
# for each repetition and each scenario, the peer and then lbsim's benchmark, on one core
# each, over the same simulated time; prints the medians and the ratio as a Markdown table.
#
#   scripts/peers/run.sh [OUT_DIR] [REPS] [EVENTS]
#
# ONLY=REGEX in the environment keeps the scenarios whose benchmark name matches (and needs
# only their binaries: ONLY='^(Uniform)?JSQd2' runs the C-loop rows with jsq2 and lbsim.test).
# OUT_DIR holds the binaries of build.sh (default artifacts/peers); REPS repetitions
# (default 5); EVENTS lbsim events per run (default 2e7; the peer runs the same simulated
# time). The figure compared is server-time/s: simulated time times N per second of wall
# time (the peers are uniformized at rate N(1 + rho), and their null steps, departures from
# idle servers, are part of their cost; lbsim simulates the jump chain at rate N(lambda + q_1)),
# per second of CPU time of each process (on a shared machine wall time counts the time other
# processes held the core) and per second of wall time. Raw figures go to OUT_DIR/runs.txt
# (scenario|peer|command|benchmark|peer cpu|lbsim cpu|peer wall|lbsim wall).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$root/artifacts/peers}"
[ -d "$out" ] || { echo "run.sh: $out missing; run scripts/peers/build.sh first" >&2; exit 2; }
out="$(cd "$out" && pwd)" # absolute: the benchmark runs from $root/lbsim
reps="${2:-5}"
events="${3:-20000000}"
# Peer steps for the same simulated time: lbsim's benchmark runs events / (N (lambda + q_1))
# time units, q_1 = lambda = 0.9 at its start, and the peer makes N (1 + rho) steps per unit.
steps=$(awk -v e="$events" 'BEGIN { printf "%d", e * 1.9 / 1.8 }')
warm() { awk -v n="$1" 'BEGIN { printf "%d", 30 * n * 1.9 }'; } # 30 time units from empty

# name | N | peer name | peer command (without steps and warmup) | lbsim benchmark
scenarios=(
  "two local choices, ring, N = 10^4|10000|simuTwoLocalChoice|twolocal 1 10000 0.9|LocalJSQd2RingN1e4"
  "two local choices, ring, N = 10^5|100000|simuTwoLocalChoice|twolocal 1 100000 0.9|LocalJSQd2RingN1e5"
  "two local choices, ring, N = 10^6|1000000|simuTwoLocalChoice|twolocal 1 1000000 0.9|LocalJSQd2RingN1e6"
  "two local choices, torus, N = 10^4|10000|simuTwoLocalChoice|twolocal 3 10000 0.9|LocalJSQd2TorusN1e4"
  "two local choices, torus, N = 10^6|1000000|simuTwoLocalChoice|twolocal 3 1000000 0.9|LocalJSQd2TorusN1e6"
  "two local choices, random 3-regular, N = 10^4|10000|simuTwoLocalChoice|twolocal 5 10000 0.9 STEPS WARM 3|LocalJSQd2Regular3N1e4"
  "two local choices, random 3-regular, N = 10^5|100000|simuTwoLocalChoice|twolocal 5 100000 0.9 STEPS WARM 3|LocalJSQd2Regular3N1e5"
  "JSQ(2) with replacement, N = 10^3|1000|tight C loop|jsq2 1000 0.9 2 with|JSQd2WithN1e3"
  "JSQ(2) with replacement, N = 10^5|100000|tight C loop|jsq2 100000 0.9 2 with|JSQd2WithN1e5"
  "JSQ(2) without replacement, N = 10^3|1000|tight C loop|jsq2 1000 0.9 2 without|JSQd2N1e3"
  "JSQ(3) with replacement, N = 10^5|100000|rmf_tool JSQd_simulate|rmf_jsqd 100000 0.9 3 with|JSQd3WithN1e5"
  "JSQ(2) with replacement, N = 10^3, uniformized engine|1000|tight C loop|jsq2 1000 0.9 2 with|UniformJSQd2WithN1e3"
  "JSQ(2) with replacement, N = 10^5, uniformized engine|100000|tight C loop|jsq2 100000 0.9 2 with|UniformJSQd2WithN1e5"
  "JSQ(2) without replacement, N = 10^3, uniformized engine|1000|tight C loop|jsq2 1000 0.9 2 without|UniformJSQd2WithoutN1e3"
)
if [ -n "${ONLY:-}" ]; then
  kept=()
  for sc in "${scenarios[@]}"; do
    [[ "${sc##*|}" =~ $ONLY ]] && kept+=("$sc")
  done
  scenarios=("${kept[@]}")
fi
# The binaries of the scenarios kept (ONLY may leave out the peers that are not built).
for sc in "${scenarios[@]}"; do
  IFS='|' read -r _ _ _ cmd _ <<< "$sc"
  for b in "${cmd%% *}" lbsim.test; do
    [ -x "$out/$b" ] || { echo "run.sh: $out/$b missing; run scripts/peers/build.sh first" >&2; exit 2; }
  done
done
raw="$out/runs.txt"
: > "$raw"
for rep in $(seq 1 "$reps"); do
  for sc in "${scenarios[@]}"; do
    IFS='|' read -r name n peer cmd bench <<< "$sc"
    w=$(warm "$n")
    if [[ "$cmd" == *STEPS* ]]; then
      argv="${cmd/STEPS/$steps}"; argv="${argv/WARM/$w}"
    elif [[ "$cmd" == jsq2* ]]; then
      argv="$cmd $steps $w $rep"
    else
      argv="$cmd $steps $w"
    fi
    # Each prints server-time/s (wall) and server-time/cpu-s (CPU time of the process).
    # shellcheck disable=SC2086
    p=$("$out/"$argv | awk '{ for (i = 1; i < NF; i++) if ($i == "server-time/s" || $i == "server-time/cpu-s") printf "%s ", $(i+1) }')
    l=$(cd "$root/lbsim" && "$out/lbsim.test" -test.run '^$' -test.bench "^Benchmark$bench\$" \
      -test.benchtime "${events}x" -test.cpu 1 |
      awk '/^Benchmark/ { for (i = 3; i < NF; i++) if ($(i+1) == "server-time/s") w = $i; else if ($(i+1) == "server-time/cpu-s") c = $i; printf "%s %s", w, c }')
    read -r pw pc <<< "$p"
    read -r lw lc <<< "$l"
    printf '%s|%s|%s|%s|%s|%s|%s|%s\n' "$name" "$peer" "$argv" "$bench" "$pc" "$lc" "$pw" "$lw" | tee -a "$raw" >&2
  done
done
echo "| scenario (lambda = rho = 0.9, one core) | peer (command) | peer server-time/cpu-s | lbsim server-time/cpu-s (benchmark) | lbsim / peer, CPU time: median (min-max) | lbsim / peer, wall time: median |"
echo "| --- | --- | --- | --- | --- | --- |"
for sc in "${scenarios[@]}"; do
  IFS='|' read -r name n peer cmd bench <<< "$sc"
  awk -F'|' -v name="$name" -v peer="$peer" '
    function sort(a, k,   i, j, t) {
      for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    }
    function median(a, k) { sort(a, k); return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
    $1 == name { k++; p[k] = $5; l[k] = $6; r[k] = $6 / $5; w[k] = $8 / $7; cmd = $3; bench = $4 }
    END {
      printf "| %s | %s (`%s`) | %.3g | %.3g (`Benchmark%s`) | %.2f (%.2f-%.2f) | %.2f |\n", name, peer, cmd, median(p, k), median(l, k), bench, median(r, k), r[1], r[k], median(w, k)
    }
  ' "$raw"
done
