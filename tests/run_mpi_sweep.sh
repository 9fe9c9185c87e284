#!/usr/bin/env bash
# `nafsim sweep` under OpenMPI's mpirun: 2 ranks share the points of one sweep directory (each takes the points
# whose index modulo 2 is its rank), then --merge-only merges them; the merged table must equal a one-process
# sweep's. Skipped (77) where mpirun is not installed.
set -euo pipefail
nafsim=$(readlink -f "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
command -v mpirun > /dev/null || { echo "mpirun not installed: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
sweep="$root/workloads/sendrecv/sweep-example.json"
"$nafsim" sweep "$sweep" --out one --jobs 2 > one.log
# The sandbox runs as root; OpenMPI refuses that unless told; no MPI traffic flows (each rank runs processes).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp OMPI_MCA_plm=isolated \
  OMPI_MCA_btl_vader_single_copy_mechanism=none
mpirun -np 2 --oversubscribe "$nafsim" sweep "$sweep" --out two --jobs 1 > two.log 2>&1 || { cat two.log; exit 1; }
grep -q "(rank 0 of 2)" two.log
grep -q "(rank 1 of 2)" two.log
"$nafsim" sweep "$sweep" --out two --merge-only > merge.log
diff one/sendrecv.csv two/sendrecv.csv
test "$(ls two/points | wc -l)" -eq 4
echo "mpirun sweep: 2 ranks, merged table identical to one process"
