#!/bin/sh
# The figures' readability (issue 30): every plot of every template has a title of its own (a panel title; gnuplot
# prints nothing for `set title c` inside `do for`, so titles are set with sprintf), and every legend entry of every
# drawn SVG is a series name, not a number (a `columnheader` read from a data row).
# No panel or series is empty: gnuplot warns "Skipping data file with no valid points" for a series without data (and
# fails on a panel with none at all); when the figures were drawn without the measured ACCL+ data (REFERENCE "absent"),
# the ACCL+ figures' measured series are empty by design and only the others are checked.
# Usage: tests/check_figures.sh SOURCE_DIR FIGURE_DIR [present|absent]
set -eu
src=$1
figs=$2
reference=${3:-present}
status=0
for gp in "$src"/python-free-tools/figures/*.gp; do
  bad=$(awk '
    /^[[:space:]]*set title/ { titled = 1; if ($0 ~ /set title [a-z_]+[[:space:]]*$/) print FILENAME ":" FNR ": title from a bare variable (use sprintf)" }
    /^[[:space:]]*unset title/ { titled = 0 }
    /^[[:space:]]*plot / { if (!titled) print FILENAME ":" FNR ": a plot without a title of its own"; titled = 0 }
    /^[[:space:]]*set multiplot/ { titled = 0 }' "$gp")
  if [ -n "$bad" ]; then
    echo "$bad"
    status=1
  fi
done
for svg in "$figs"/*.svg; do
  # The first text of each plot group is its legend entry.
  bad=$(awk -v f="$svg" '
    /<g id="gnuplot_plot_/ { inplot = 1; seen = 0; next }
    inplot && !seen && /<text>/ {
      t = $0; sub(/.*<text>/, "", t); sub(/<\/text>.*/, "", t); seen = 1
      if (t ~ /^[-+]?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/) print f ": legend entry \"" t "\" is a number, not a series name"
    }' "$svg")
  if [ -n "$bad" ]; then
    echo "$bad"
    status=1
  fi
done
for log in "$figs"/runs/*.gnuplot.log; do
  [ -e "$log" ] || continue
  name=$(basename "$log" .gnuplot.log)
  case "$reference:$name" in absent:accl-*) continue ;; esac
  if grep -q "Skipping data file with no valid points" "$log"; then
    echo "$name: a series (or a panel) without data:"
    grep "Skipping data file" "$log" | sort | uniq -c
    status=1
  fi
done
# No two series merged into one line: a figure table with a series column has one row per (series, x) (the scale
# figure drew the exact and the spaced flow all-to-alls as one line, going back and forth).
for csv in "$figs"/*.csv; do
  [ -e "$csv" ] || continue
  head -n 1 "$csv" | grep -q '^series,x,' || continue
  dups=$(awk -F, 'NR > 1 { k = $1 "," $2; if (seen[k]++) print k }' "$csv" | sort -u)
  if [ -n "$dups" ]; then
    echo "$(basename "$csv"): series merged, two points at the same x: $dups"
    status=1
  fi
done
[ $status -eq 0 ] && echo "figures: every plot titled, every legend entry a name, no empty series or panel, none merged"
exit $status
