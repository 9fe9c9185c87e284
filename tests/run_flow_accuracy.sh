#!/usr/bin/env bash
# python-free-tools/flow-accuracy.sh on a small case: every row written with both fidelities' times and the error
# computed from them (accuracy itself is asserted in tests/validation/FidelityTest.cpp, not here).
set -euo pipefail
nafsim=$(readlink -f "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sh "$root/python-free-tools/flow-accuracy.sh" "$nafsim" "$work/fa" 16 4KiB > "$work/out.txt"
csv="$work/fa/flow-accuracy.csv"
test "$(wc -l < "$csv")" -eq 13 || { cat "$work/out.txt"; exit 1; }
head -1 "$csv" | grep -q \
  "^case,ranks,size,packet_us,flow_us,flow_error_pct,packet_wall_s,flow_wall_s,packet_drops,flow_ports_over_buffer$"
# Each row: error = 100 (flow - packet) / packet, to the printed precision (the times are printed to 1 ns, which
# moves a 15 us row's error by up to 0.007 points, and the error to 0.01: 0.02 covers both).
awk -F, 'NR > 1 { e = 100 * ($5 - $4) / $4; if ($4 <= 0 || $5 <= 0 || (e - $6) > 0.02 || ($6 - e) > 0.02) bad = 1 }
         END { exit bad }' "$csv"
grep -q "^alltoall,16,4KiB," "$csv"
grep -q "^permutation-4to1-drop,16,4KiB," "$csv"
grep -q "^incast-4to1-lossless,16,4KiB," "$csv"
# Drops and flagged ports: counted on every row's packet run, on the drop-tail rows' flow runs only (at 4 KiB the
# packet fabric drops nothing and the flow fabric flags nothing).
grep -q "^incast-4to1-drop,16,4KiB,.*,0,0$" "$csv"
grep -q "^incast-4to1-lossless,16,4KiB,.*,0,$" "$csv"
# The incast: every node sends to node 0, node 0 to node 1; node 0 receives 15 x 16 messages of 4 KiB, node 1 16.
awk -F, 'NR > 1 { want = ($1 == 0) ? 1 : 0; if ($2 != want) bad = 1 }
         NR > 1 && $1 == 0 && $5 != 15 * 16 * 4096 { bad = 1 } NR > 1 && $1 == 1 && $5 != 16 * 4096 { bad = 1 }
         END { exit bad }' "$work/fa/incast-lossless-packet/traffic.csv"
# FLOW_RESOLVE sets the flow runs' resolve fraction (and only theirs): the 16-rank all-to-all then solves fewer rates.
FLOW_RESOLVE=0.05 sh "$root/python-free-tools/flow-accuracy.sh" "$nafsim" "$work/fr" 16 4KiB > "$work/out-fr.txt"
test "$(wc -l < "$work/fr/flow-accuracy.csv")" -eq 13 || { cat "$work/out-fr.txt"; exit 1; }
grep -q '"flow_resolve_fraction": 0.05' "$work/fr/alltoall-flow/metadata.json"
solved() { grep -o '"rates_solved": [0-9]*' "$1/metadata.json" | awk '{print $2}'; }
test "$(solved "$work/fr/alltoall-flow")" -lt "$(solved "$work/fa/alltoall-flow")"
# FAST_FORWARD runs the second column at packet fidelity with trains: its columns named ff_, the drop-tail rows (which
# the fast-forward refuses) without them, and the 64 KiB messages of the traffic cases riding in trains.
FAST_FORWARD=16 sh "$root/python-free-tools/flow-accuracy.sh" "$nafsim" "$work/ff" 16 64KiB > "$work/out-ff.txt"
csv="$work/ff/flow-accuracy.csv"
test "$(wc -l < "$csv")" -eq 13 || { cat "$work/out-ff.txt"; exit 1; }
head -1 "$csv" | grep -q "^case,ranks,size,packet_us,ff_us,ff_error_pct,packet_wall_s,ff_wall_s,"
grep -q "^incast-4to1-drop,16,64KiB,[0-9.]*,,," "$csv"
grep -q '"fidelity": "packet"' "$work/ff/permutation-lossless-ff/metadata.json"
grep -o '"trains": [1-9][0-9]*' "$work/ff/permutation-lossless-ff/metadata.json" > /dev/null
awk -F, 'NR > 1 && $5 != "" { e = 100 * ($5 - $4) / $4; if ((e - $6) > 0.02 || ($6 - e) > 0.02) bad = 1 }
         END { exit bad }' "$csv"
echo "flow accuracy: 12 cases at both fidelities, with a resolve fraction, and fast-forwarded"
