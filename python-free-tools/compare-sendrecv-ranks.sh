#!/bin/sh
# Model vs the measured ACCL+ send/recv latencies per rank (shared/reference/accl/sendrecv_latency_by_rank_us.csv:
# rank 0 = sender, rank 1 = receiver, each its own CCLO counter) for a collective-workload result.
#   compare-sendrecv-ranks.sh RESULT_DIR LOCATION PROTOCOL [REFERENCE_DIR]
# RESULT_DIR holds collective_ranks.csv of a 2-rank sendrecv run; LOCATION device|host; PROTOCOL eager|rndzvs.
# Prints, per size, the model (the mean over the run's iterations, as the measured value is the mean over its runs) and
# the measured mean of each rank with the relative errors, then the mean absolute error of each rank over the sizes
# both have.
set -eu
result=$1/collective_ranks.csv
loc=$2
proto=$3
ref=${4:-$(dirname "$0")/../../shared/reference/accl}/sendrecv_latency_by_rank_us.csv
[ -f "$result" ] || { echo "no $result (run the scenario first)" >&2; exit 2; }
[ -f "$ref" ] || { echo "no reference file $ref" >&2; exit 2; }
awk -F, -v loc="$loc" -v proto="$proto" -v ref="$ref" '
  BEGIN {
    getline l < ref; n = split(l, h, ","); for (i = 1; i <= n; i++) rc[h[i]] = i
    while ((getline l < ref) > 0) {
      split(l, c, ",")
      if (c[rc["data_location"]] == loc && c[rc["protocol"]] == proto) M[c[rc["size_B"]], c[rc["rank"]]] = c[rc["mean_us"]]
    }
    printf "%9s | %9s %9s %7s | %9s %9s %7s\n", "bytes", "send_us", "meas", "err%", "recv_us", "meas", "err%"
  }
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  { v[$col["bytes"], $col["rank"]] += $col["latency_us"]; its[$col["bytes"], $col["rank"]]++; if (!($col["bytes"] in seen)) { seen[$col["bytes"]] = 1; order[++k] = $col["bytes"] } }
  END {
    for (j = 1; j <= k; j++) {
      b = order[j]; line = sprintf("%9d |", b)
      for (r = 0; r <= 1; r++) {
        m = v[b, r] / its[b, r]; if ((b, r) in M) { e = 100 * (m - M[b, r]) / M[b, r]; s[r] += (e < 0 ? -e : e); cnt[r]++
          line = line sprintf(" %9.3f %9.3f %+7.1f |", m, M[b, r], e) } else line = line sprintf(" %9.3f %9s %7s |", m, "-", "-")
      }
      print line
    }
    printf "mean |error|: sender %.1f%% (%d sizes), receiver %.1f%% (%d sizes)\n", cnt[0] ? s[0] / cnt[0] : 0, cnt[0], cnt[1] ? s[1] / cnt[1] : 0, cnt[1]
  }' "$result"
