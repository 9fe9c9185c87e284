#!/bin/sh
# Writes a `program` scenario whose allreduce is a ring built from send / recv / combine on each rank (the
# textbook reduce-scatter then allgather, one chunk per step), for comparison with the CCLO's own ring allreduce.
# Usage: program-ring-allreduce.sh RANKS ELEMENTS [PRESET] > ring.json   (ELEMENTS a multiple of RANKS)
set -eu
p=${1:?ranks}
n=${2:?elements}
preset=${3:-accl-coyote-u55c}
if [ "$p" -lt 2 ] || [ $((n % p)) -ne 0 ]; then
  echo "program-ring-allreduce.sh: need at least 2 ranks and elements a multiple of ranks" >&2
  exit 2
fi
c=$((n / p))
mod() { echo $(( (($1) % p + p) % p )); }
sep=""
op() { printf '%s\n      %s' "$sep" "$1"; sep=","; }
printf '{\n  "name": "ring-allreduce-program-%s",\n' "$p"
printf '  "description": "allreduce of %s float32 elements on %s ranks as a ring of eager send / recv / combine (written by python-free-tools/program-ring-allreduce.sh)",\n' "$n" "$p"
printf '  "platform": { "preset": "%s", "topology": { "kind": "star", "hosts": %s } },\n' "$preset" "$p"
printf '  "workload": {\n    "kind": "program",\n    "ranks": %s,\n' "$p"
printf '    "buffers": [ { "name": "data", "elements": %s }, { "name": "tmp", "elements": %s, "init": "zero" } ],\n' "$n" "$c"
printf '    "ops": ['
k=0
while [ $k -lt $((p - 1)) ]; do # reduce-scatter: rank r ends with chunk r+1 summed over every rank
  r=0; while [ $r -lt $p ]; do
    op "{ \"op\": \"send\", \"ranks\": [$r], \"shift\": 1, \"src\": \"data\", \"src_offset\": $(( $(mod $((r - k))) * c )), \"count\": $c, \"tag\": $k, \"protocol\": \"eager\" }"
    r=$((r + 1)); done
  r=0; while [ $r -lt $p ]; do
    op "{ \"op\": \"recv\", \"ranks\": [$r], \"shift\": -1, \"dst\": \"tmp\", \"count\": $c, \"tag\": $k, \"protocol\": \"eager\" }"
    op "{ \"op\": \"combine\", \"ranks\": [$r], \"src\": \"tmp\", \"dst\": \"data\", \"dst_offset\": $(( $(mod $((r - k - 1))) * c )), \"count\": $c }"
    r=$((r + 1)); done
  k=$((k + 1))
done
k=0
while [ $k -lt $((p - 1)) ]; do # allgather: pass the reduced chunks on around the ring
  r=0; while [ $r -lt $p ]; do
    op "{ \"op\": \"send\", \"ranks\": [$r], \"shift\": 1, \"src\": \"data\", \"src_offset\": $(( $(mod $((r + 1 - k))) * c )), \"count\": $c, \"tag\": $((p + k)), \"protocol\": \"eager\" }"
    r=$((r + 1)); done
  r=0; while [ $r -lt $p ]; do
    op "{ \"op\": \"recv\", \"ranks\": [$r], \"shift\": -1, \"dst\": \"data\", \"dst_offset\": $(( $(mod $((r - k))) * c )), \"count\": $c, \"tag\": $((p + k)), \"protocol\": \"eager\" }"
    r=$((r + 1)); done
  k=$((k + 1))
done
printf '\n    ]\n  }\n}\n'
