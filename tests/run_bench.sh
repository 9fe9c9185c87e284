#!/usr/bin/env bash
# `nafsim bench`: both suites write their CSV with one row per point (speeds are benchmarks, not asserted here),
# report bytes per node, run the collectives at both network fidelities and the all-to-all study at both (and with a
# resolve fraction), and a bad
# option is a clear error; bench and explain write only into folders they made.
set -euo pipefail
nafsim=$(readlink -f "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$nafsim" bench --suite all --nodes 16 --total 64MiB --ranks 8 16 --collectives allreduce bcast --repeat 1 \
  --fidelity packet flow --alltoall-ranks 8 --alltoall-size 4KiB --eager-ring-ranks 8 --out "$work/b" > bench.log
test "$(wc -l < b/bench.csv)" -eq 2 || { cat bench.log; exit 1; }
head -1 b/bench.csv | grep -q "mpackethops_per_s,ns_per_hop"
test "$(wc -l < b/bench_collectives.csv)" -eq 13 || { cat bench.log; exit 1; }
# Events per CCLO message beside the events (issue 53), and the forced eager ring's row (its own folder, its own
# series in the scale figure): a 1 MiB ring of 8 ranks, one message per 32 KiB Rx-buffer segment.
head -1 b/bench_collectives.csv | grep -q "events,events_per_cclo_message,packet_hops"
grep -q "^allreduce,packet,8,1048576,[0-9]*,ring,eager,.*,eager/ring$" b/bench_collectives.csv || { cat b/bench_collectives.csv; exit 1; }
grep -q '"algorithm": "ring"' b/bench-allreduce-eager-ring-packet-8-1MiB/metadata.json
grep -q '"events_per_message"' b/bench-allreduce-eager-ring-packet-8-1MiB/metadata.json
head -1 b/bench_collectives.csv | grep -q "latency_us,wall_s_median"
head -1 b/bench_collectives.csv | grep -q "process_s_median"
grep -q "^allreduce,packet,16,1048576," b/bench_collectives.csv
grep -q "^allreduce,flow,16,1048576," b/bench_collectives.csv
grep -q "^bcast,flow,8,1048576," b/bench_collectives.csv
# The all-to-all study: its size per peer, at both fidelities whatever --fidelity says, and at flow fidelity with
# the default resolve fraction (0.05) too.
grep -q "^alltoall,packet,8,4096,.*,0.000,$" b/bench_collectives.csv
grep -q "^alltoall,flow,8,4096,.*,0.000,$" b/bench_collectives.csv
grep -q "^alltoall,flow,8,4096,.*,0.050,$" b/bench_collectives.csv
grep -q '"flow_resolve_fraction": 0.05' b/bench-alltoall-flow@0.05-8-4KiB/metadata.json
# Every point's metadata reports its memory per node, and the fidelity it ran at.
grep -q '"bytes_per_node"' b/bench-bcast-packet-16-1MiB/metadata.json
grep -q '"fidelity": "flow"' b/bench-bcast-flow-16-1MiB/metadata.json
if "$nafsim" bench --suite nosuch > /dev/null 2> bad.err; then exit 1; fi
grep -q "suite" bad.err
if "$nafsim" bench --suite collectives --fidelity fluid > /dev/null 2> bad.err; then exit 1; fi
grep -q "fidelity" bad.err
# A folder bench did not make is left alone (a user's bench.csv survives, exit 2); its own folder is reused.
mkdir mine && echo mine > mine/bench.csv
if "$nafsim" bench --suite hops --nodes 16 --total 16MiB --repeat 1 --out mine > /dev/null 2> mine.err; then exit 1; fi
grep -q "mine holds bench.csv, and nafsim bench did not make this folder" mine.err
test "$(cat mine/bench.csv)" = mine
"$nafsim" bench --suite hops --nodes 16 --total 16MiB --repeat 1 --out "$work/b" > /dev/null
# The same for explain: a user's baseline.log survives; explain's own folder is reused.
mkdir ex && echo mine > ex/baseline.log
scenario=$root/workloads/collective/example.json
if "$nafsim" explain "$scenario" --set 'workload.sizes=["4KiB"]' --out ex > /dev/null 2> ex.err; then exit 1; fi
grep -q "ex holds baseline.log, and nafsim explain did not make this folder" ex.err
test "$(cat ex/baseline.log)" = mine
"$nafsim" explain "$scenario" --set 'workload.sizes=["4KiB"]' --out ex2 > /dev/null
"$nafsim" explain "$scenario" --set 'workload.sizes=["4KiB"]' --out ex2 > /dev/null
echo "bench: both suites written"
