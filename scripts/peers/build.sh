#!/usr/bin/env bash
# Builds the peers of lbsim (see README.md) from their sources, and lbsim's benchmark binary.
#
#   scripts/peers/build.sh SIMU_DIR RMF_DIR [OUT_DIR]
#
# SIMU_DIR: a checkout of Gast's simuTwoLocalChoice (holds twoChoices_openQueue.cc);
# RMF_DIR: a checkout of rmf_tool (holds misc/jsqD_simulate/JSQd_simulate.cc);
# OUT_DIR: where the binaries go (default artifacts/peers). Neither source is fetched here:
# README.md says where they come from. The peers are built with their own Makefiles' flags
# (g++ -O2 and g++ -O3); the tight C loop with gcc -O3 -march=native.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
if [ $# -lt 2 ]; then
  sed -n '4,11s/^# \{0,1\}//p' "${BASH_SOURCE[0]}" >&2
  exit 2
fi
simu="$(cd "$1" && pwd)"
rmf="$(cd "$2" && pwd)"
out="${3:-$root/artifacts/peers}"
mkdir -p "$out"
out="$(cd "$out" && pwd)" # absolute: the lbsim binary is built from $root
for f in "$simu/twoChoices_openQueue.cc" "$rmf/misc/jsqD_simulate/JSQd_simulate.cc"; do
  [ -f "$f" ] || { echo "build.sh: $f not found" >&2; exit 2; }
done
# The peers' sources warn (unused variables, signed comparisons); their warnings are theirs.
g++ -O2 -I"$simu" -o "$out/twolocal" "$here/twolocal_driver.cc" 2>/dev/null
g++ -O3 -I"$rmf/misc/jsqD_simulate" -o "$out/rmf_jsqd" "$here/rmf_driver.cc" 2>/dev/null
gcc -O3 -march=native -W -Wall -o "$out/jsq2" "$here/jsq2.c"
(cd "$root" && PATH="$PATH:/usr/local/go/bin" go test -c -o "$out/lbsim.test" ./lbsim)
echo "built in $out: twolocal rmf_jsqd jsq2 lbsim.test"
