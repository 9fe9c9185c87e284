#!/bin/sh
# Flow fidelity against packet fidelity on the same scenarios (issue 32's accuracy table): every collective on the
# CCLO ranks of the ACCL+ testbed's FPGAs in a fat-tree (the benchmark's platform), and random-permutation and
# incast traffic (every node to node 0) on a 4:1 oversubscribed leaf-spine with lossless and drop-tail switches.
# Each case runs at both fidelities; the table gives both times, flow's error against packet, both wall times, the
# packets the packet fabric's queues dropped and the switch ports the flow fabric flagged as overflowing (drop-tail
# switches only: simcore/net/DropTailWatch.hpp).
#   sh python-free-tools/flow-accuracy.sh NAFSIM OUTDIR [RANKS [SIZE]]   (defaults: 64 ranks, 64KiB)
# SKIP_FLOW="alltoall ..." runs those cases at packet fidelity only (their flow columns empty): the all-to-all at
# flow fidelity takes minutes on 256 ranks (389 s exact at 16 KiB per peer). FLOW_SHARING=input-ports runs the flow
# cases with that sharing (platform.network.flow_sharing; default per-flow), FLOW_RESOLVE=0.05 with that resolve
# fraction (platform.network.flow_resolve_fraction; default 0, exact), SHARED_BUFFER=40MB with every switch's output
# queues sharing that buffer by dynamic thresholds (platform.network.switch.shared_buffer; default 0, the preset's
# port_buffer each). FAST_FORWARD=16 measures the fast-forward instead of the flow fidelity: the second run of each
# case is at packet fidelity with trains of up to that many packets (platform.network.fast_forward.train), its columns
# and files named ff (the drop-tail cases, which the fast-forward refuses, left empty). Writes OUTDIR/flow-accuracy.csv and
# prints it.
set -eu
nafsim=$1
out=$2
ranks=${3:-64}
size=${4:-64KiB}
skip_flow=${SKIP_FLOW:-}
sharing=${FLOW_SHARING:-per-flow}
resolve=${FLOW_RESOLVE:-0}
shared=${SHARED_BUFFER:-0}
ff=${FAST_FORWARD:-0}
second=flow
[ "$ff" != 0 ] && second=ff
# The network section of a case's second run (flow fidelity, or packets fast-forwarded).
second_net() { # FLOW_CONTROL
  if [ "$ff" != 0 ]; then
    echo "\"fidelity\": \"packet\", \"fast_forward\": {\"train\": $ff},"
  else
    echo "\"fidelity\": \"flow\", \"flow_sharing\": \"$sharing\", \"flow_resolve_fraction\": $resolve,"
  fi
}
mkdir -p "$out"
k=4
while [ $((k * k * k / 4)) -lt "$ranks" ]; do k=$((k + 2)); done
csv="$out/flow-accuracy.csv"
echo "case,ranks,size,packet_us,${second}_us,${second}_error_pct,packet_wall_s,${second}_wall_s,packet_drops,${second}_ports_over_buffer" \
  > "$csv"
wall() { grep -o '"wall_seconds": [0-9.e-]*' "$1/metadata.json" | awk '{print $2}'; }
drops() { grep -o '"queue_drops": [0-9]*' "$1/metadata.json" | awk '{print $2}'; }
flagged() { grep -o '"drop_tail_ports_over_buffer": [0-9]*' "$1/metadata.json" | awk '{print $2}'; }
row() { # case packet_us flow_us packet_dir flow_dir (flow_us empty: not run)
  if [ -z "$3" ]; then
    awk -v c="$1" -v r="$ranks" -v s="$size" -v p="$2" -v pw="$(wall "$4")" -v d="$(drops "$4")" \
      'BEGIN { printf "%s,%s,%s,%.3f,,,%.3f,,%s,\n", c, r, s, p, pw, d }' >> "$csv"
    return
  fi
  awk -v c="$1" -v r="$ranks" -v s="$size" -v p="$2" -v f="$3" -v pw="$(wall "$4")" -v fw="$(wall "$5")" \
    -v d="$(drops "$4")" -v o="$(flagged "$5")" \
    'BEGIN { printf "%s,%s,%s,%.3f,%.3f,%.2f,%.3f,%.3f,%s,%s\n", c, r, s, p, f, 100 * (f - p) / p, pw, fw, d, o }' \
    >> "$csv"
}
skipped() { case " $skip_flow " in *" $1 "*) return 0 ;; esac; return 1; }
run() { # NAME: run OUTDIR/NAME.json into OUTDIR/NAME (its log beside it, shown if it fails)
  "$nafsim" run "$out/$1.json" --out "$out/$1" > "$out/$1.log" 2>&1 || { cat "$out/$1.log"; exit 1; }
}
latency() { # CSV: the first row's latency_us
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "latency_us") c = i } NR == 2 { print $c }' "$1"
}
slowest() { # TRAFFIC_CSV: the last node's completion (time_us)
  awk -F, 'NR > 1 && $6 > m { m = $6 } END { print m }' "$1"
}
for coll in bcast scatter gather allgather reduce allreduce reduce-scatter alltoall; do
  for fid in packet $second; do
    if [ "$fid" != packet ] && skipped "$coll"; then continue; fi
    net="\"fidelity\": \"packet\","
    [ "$fid" != packet ] && net=$(second_net)
    cat > "$out/$coll-$fid.json" <<JSON
{"name": "accuracy-$coll-$fid", "platform": {"preset": "accl-coyote-u55c",
 "topology": {"kind": "fat-tree", "hosts": $ranks, "fat_tree": {"k": $k}},
 "network": {$net
   "switch": {"shared_buffer": "$shared"}}},
 "workload": {"kind": "collective", "collective": "$coll", "ranks": $ranks, "sizes": ["$size"], "verify": false}}
JSON
    run "$coll-$fid"
  done
  if skipped "$coll"; then
    row "$coll" "$(latency "$out/$coll-packet/collective.csv")" "" "$out/$coll-packet" ""
    continue
  fi
  row "$coll" "$(latency "$out/$coll-packet/collective.csv")" "$(latency "$out/$coll-$second/collective.csv")" \
    "$out/$coll-packet" "$out/$coll-$second"
done
leaves=$(( (ranks + 15) / 16 ))
for pattern in random-permutation incast; do
  name=permutation
  [ "$pattern" = incast ] && name=incast
  for fc in lossless drop; do
    for fid in packet $second; do
      if [ "$fid" != packet ] && [ "$ff" != 0 ] && [ "$fc" = drop ]; then continue; fi
      net="\"fidelity\": \"packet\","
      [ "$fid" != packet ] && net=$(second_net)
      cat > "$out/$name-$fc-$fid.json" <<JSON
{"name": "accuracy-$name-$fc-$fid", "platform": {"preset": "accl-coyote-u55c",
 "topology": {"kind": "leaf-spine", "hosts": $((leaves * 16)), "leaf_spine": {"hosts_per_leaf": 16, "spines": 2,
   "oversubscription": 4}},
 "network": {$net
   "switch": {"flow_control": "$fc", "shared_buffer": "$shared"}}},
 "workload": {"kind": "traffic", "pattern": "$pattern", "message": "$size", "messages": 16, "window": 4}}
JSON
      run "$name-$fc-$fid"
    done
    if [ "$ff" != 0 ] && [ "$fc" = drop ]; then
      row "$name-4to1-$fc" "$(slowest "$out/$name-$fc-packet/traffic.csv")" "" "$out/$name-$fc-packet" ""
      continue
    fi
    row "$name-4to1-$fc" "$(slowest "$out/$name-$fc-packet/traffic.csv")" \
      "$(slowest "$out/$name-$fc-$second/traffic.csv")" "$out/$name-$fc-packet" "$out/$name-$fc-$second"
  done
done
cat "$csv"
