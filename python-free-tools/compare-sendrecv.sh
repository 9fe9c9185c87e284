#!/bin/sh
# Compare a sendrecv result (results/<run>/sendrecv.csv) with the measured ACCL+ send/recv latency and
# throughput (shared/reference/accl). Prints, per size: model latency and throughput next to the
# measured eager and rendezvous device-memory columns, with the relative error of each.
# Usage: compare-sendrecv.sh RESULT_CSV [REFERENCE_DIR]
set -eu
result=$1
ref=${2:-$(dirname "$0")/../../shared/reference/accl}
awk -F, -v lat="$ref/sendrecv_latency_us.csv" -v thr="$ref/sendrecv_throughput_gbps.csv" '
  BEGIN {
    while ((getline line < lat) > 0) { split(line, c, ","); if (c[1] == "device") L[c[2] "," c[3]] = c[4] }
    while ((getline line < thr) > 0) { split(line, c, ","); E[c[1]] = c[2]; R[c[1]] = c[3] }
    printf "%9s | %9s %9s %9s %7s %7s | %8s %8s %8s %7s %7s\n", "bytes", "model_us", "eager_us", "rndzv_us",
           "err_e%", "err_r%", "model_Gb", "eager_Gb", "rndzv_Gb", "err_e%", "err_r%"
  }
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  $col["iteration"] == 0 {
    b = $col["bytes"]; m = $col["latency_us"]; g = $col["throughput_gbps"]
    le = L["eager," b]; lr = L["rndzvs," b]; te = E[b]; tr = R[b]
    printf "%9d | %9.3f %9s %9s %7s %7s | %8.2f %8s %8s %7s %7s\n", b, m, le == "" ? "-" : le, lr == "" ? "-" : lr,
           le == "" ? "-" : sprintf("%+.0f", 100 * (m - le) / le), lr == "" ? "-" : sprintf("%+.0f", 100 * (m - lr) / lr),
           g, te == "" ? "-" : te, tr == "" ? "-" : tr,
           te == "" ? "-" : sprintf("%+.0f", 100 * (g - te) / te), tr == "" ? "-" : sprintf("%+.0f", 100 * (g - tr) / tr)
  }' "$result"
