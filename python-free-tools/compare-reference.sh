#!/bin/sh
# Model vs the measured ACCL+ numbers (shared/reference/accl) for a collective-workload result.
#   compare-reference.sh sendrecv RESULT_CSV LOCATION PROTOCOL [REFERENCE_DIR]
#       latency per size vs sendrecv_latency_us.csv (LOCATION device|host, PROTOCOL eager|rndzvs), and
#       throughput vs sendrecv_throughput_gbps.csv (cclo_<protocol>_rdma_<location>)
#   compare-reference.sh nop RESULT_CSV PATH [REFERENCE_DIR]
#       host-visible NOP latency vs invocation_latency_us.csv (PATH fpga_kernel|coyote_host_driver|xrt_host_driver)
# Prints one line per size with the relative error, then the mean absolute error.
set -eu
kind=$1
result=$2
if [ "$kind" = nop ]; then
  path=$3
  ref=${4:-$(dirname "$0")/../../shared/reference/accl}
  awk -F, -v path="$path" -v ref="$ref/invocation_latency_us.csv" '
    BEGIN { while ((getline l < ref) > 0) { split(l, c, ","); if (c[1] == path) m = c[2] } }
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { v = $col["host_latency_us"]; printf "nop %-20s model %8.3f us measured %8.3f us error %+6.1f%%\n", path, v, m, 100 * (v - m) / m }' "$result"
  exit 0
fi
loc=$3
proto=$4
ref=${5:-$(dirname "$0")/../../shared/reference/accl}
tcol="cclo_$( [ "$proto" = rndzvs ] && echo rndzvs || echo eager )_rdma_$loc"
awk -F, -v loc="$loc" -v proto="$proto" -v lat="$ref/sendrecv_latency_us.csv" -v thr="$ref/sendrecv_throughput_gbps.csv" -v tcol="$tcol" '
  BEGIN {
    while ((getline l < lat) > 0) { split(l, c, ","); if (c[1] == loc && c[2] == proto) L[c[3]] = c[4] }
    getline l < thr; n = split(l, h, ","); for (i = 1; i <= n; i++) if (h[i] == tcol) tc = i
    while ((getline l < thr) > 0) { split(l, c, ","); T[c[1]] = c[tc] }
    printf "%9s | %9s %9s %7s | %8s %8s %7s\n", "bytes", "model_us", "meas_us", "err%", "model_Gb", "meas_Gb", "err%"
  }
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  $col["iteration"] == 0 {
    b = $col["bytes"]; m = $col["latency_us"]; g = $col["throughput_gbps"]
    le = (b in L) ? sprintf("%9.3f", L[b]) : "        -"; te = (b in T) ? sprintf("%8.2f", T[b]) : "       -"
    el = (b in L) ? sprintf("%+7.1f", 100 * (m - L[b]) / L[b]) : "      -"
    et = (b in T) ? sprintf("%+7.1f", 100 * (g - T[b]) / T[b]) : "      -"
    if (b in L) { sl += (m > L[b] ? m - L[b] : L[b] - m) / L[b]; nl++ }
    if (b in T) { st += (g > T[b] ? g - T[b] : T[b] - g) / T[b]; nt++ }
    printf "%9d | %9.3f %s %s | %8.2f %s %s\n", b, m, le, el, g, te, et
  }
  END { printf "mean |error|: latency %.1f%% over %d sizes, throughput %.1f%% over %d sizes\n", nl ? 100 * sl / nl : 0, nl, nt ? 100 * st / nt : 0, nt }' "$result"
