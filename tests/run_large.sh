#!/usr/bin/env bash
# A run above Simulation::kGuardedHosts (4,096 hosts), where actors get large-run stacks (no guard pages, 1 MiB):
# a 4,100-rank broadcast on the CCLOs starts, finishes and every rank's output is verified.
set -euo pipefail
nafsim=$(readlink -f "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$nafsim" run "$root/workloads/collective/example.json" --set workload.collective=bcast --set workload.ranks=4100 \
  --set platform.topology.hosts=4100 --set 'workload.sizes=["1KiB"]' --out "$work/big" > "$work/out.log"
grep -q "all correct" "$work/out.log" || { cat "$work/out.log"; exit 1; }
grep -q '"nodes": 4100' "$work/big/metadata.json"
test "$(grep -c '^bcast,1024,0,' "$work/big/collective_ranks.csv")" -eq 4100
echo "4,100 ranks: started with large-run stacks, every output verified"
