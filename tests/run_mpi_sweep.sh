#!/usr/bin/env bash
# Sweeps across machines. A Slurm job array: each array task (SLURM_ARRAY_TASK_ID from SLURM_ARRAY_TASK_MIN, of
# SLURM_ARRAY_TASK_COUNT) takes its share of the points; a task id outside the array is an input error. OpenMPI's
# mpirun: 2 ranks share one sweep directory (each takes the points whose index modulo 2 is its rank). After either,
# --merge-only merges the points, and the merged table must equal a one-process sweep's. The mpirun part is
# skipped (exit 77) where mpirun is not installed.
set -euo pipefail
nafsim=$(readlink -f "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
sweep="$root/workloads/sendrecv/sweep-example.json"
"$nafsim" sweep "$sweep" --out one --jobs 2 > one.log

# Task 6 (rank 1) first, then task 5, then task 6 again (a task is resumed by running it again): any rank may finish
# first (when only rank 0 wrote sweep.json, rank 1's merged tables made the directory no sweep's for the others).
for task in 6 5 6; do
  SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_MIN=5 SLURM_ARRAY_TASK_COUNT=2 \
    "$nafsim" sweep "$sweep" --out array --jobs 1 > "array-$task.log"
done
grep -q "(rank 0 of 2)" array-5.log
grep -q "(rank 1 of 2)" array-6.log
"$nafsim" sweep "$sweep" --out array --merge-only > merge-array.log
diff one/sendrecv.csv array/sendrecv.csv
if SLURM_ARRAY_TASK_ID=9 SLURM_ARRAY_TASK_COUNT=2 "$nafsim" sweep "$sweep" --out bad > /dev/null 2> bad.err; then
  exit 1
fi
grep -q "SLURM_ARRAY_TASK_ID" bad.err
test ! -e bad

command -v mpirun > /dev/null || { echo "job array checked; mpirun not installed: skipped"; exit 77; }
# The sandbox runs as root, which OpenMPI refuses unless told; no MPI traffic flows (each rank runs processes).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp OMPI_MCA_plm=isolated \
  OMPI_MCA_btl_vader_single_copy_mechanism=none
mpirun -np 2 --oversubscribe "$nafsim" sweep "$sweep" --out two --jobs 1 > two.log 2>&1 || { cat two.log; exit 1; }
grep -q "(rank 0 of 2)" two.log
grep -q "(rank 1 of 2)" two.log
"$nafsim" sweep "$sweep" --out two --merge-only > merge.log
diff one/sendrecv.csv two/sendrecv.csv
test "$(ls two/points | wc -l)" -eq 4
echo "job array and mpirun sweeps: merged tables identical to one process"
