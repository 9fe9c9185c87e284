#!/usr/bin/env bash
# Runs every example scenario and sweep shipped with the workloads (the README's commands).
set -euo pipefail
nafsim=$(readlink -f "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for s in "$root"/workloads/*/example.json; do
  "$nafsim" run "$s" --out "run-$(basename "$(dirname "$s")")" > /dev/null
  echo "ok $s"
done
# The transport examples (TCP on XRT, MPICH over TCP) and the FC layer's MPI baseline.
for s in "$root"/workloads/collective/gather-xrt-tcp.json "$root"/workloads/mpi/mpich-tcp.json "$root"/workloads/fc/mpi.json; do
  "$nafsim" run "$s" --out "run-$(basename "$s" .json)" > /dev/null
  echo "ok $s"
done
for s in "$root"/workloads/*/sweep-example.json; do
  "$nafsim" sweep "$s" --jobs 2 --out "sweep-$(basename "$(dirname "$s")")" > /dev/null
  echo "ok $s"
done
"$nafsim" params > /dev/null
echo "ok params"
