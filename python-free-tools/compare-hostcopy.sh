#!/bin/sh
# Compare a hostcopy result (results/<run>/hostcopy.csv) with the measured FPGA <-> host copies of
# ACCL+ Fig. 9 (shared/reference/accl/mpi_bcast_8ranks_fpga_data_breakdown_us.csv): per size, model
# and measured FPGA -> host and host -> FPGA copy times with the relative errors, then the mean
# absolute error per direction.
# Usage: compare-hostcopy.sh RESULT_CSV [REFERENCE_DIR]
set -eu
result=$1
ref=${2:-$(dirname "$0")/../../shared/reference/accl}
awk -F, -v file="$ref/mpi_bcast_8ranks_fpga_data_breakdown_us.csv" '
  BEGIN {
    while ((getline line < file) > 0) { split(line, c, ","); H[c[1]] = c[3]; D[c[1]] = c[5] }
    printf "%9s | %9s %9s %7s | %9s %9s %7s\n", "bytes", "f2h_us", "meas_us", "err%", "h2f_us", "meas_us", "err%"
  }
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  $col["iteration"] == 0 && ($col["bytes"] in H) {
    b = $col["bytes"]; h = $col["to_host_us"]; d = $col["to_device_us"]
    eh = 100 * (h - H[b]) / H[b]; ed = 100 * (d - D[b]) / D[b]
    printf "%9d | %9.3f %9.3f %+7.1f | %9.3f %9.3f %+7.1f\n", b, h, H[b], eh, d, D[b], ed
    sh += (eh < 0 ? -eh : eh); sd += (ed < 0 ? -ed : ed); n++
  }
  END { if (n) printf "mean |error| over %d sizes: FPGA -> host %.1f %%, host -> FPGA %.1f %%\n", n, sh / n, sd / n }
' "$result"
