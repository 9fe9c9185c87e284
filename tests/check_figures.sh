#!/bin/sh
# The figures' readability (issue 30): every plot of every template has a title of its own (a panel title; gnuplot
# prints nothing for `set title c` inside `do for`, so titles are set with sprintf), and every legend entry of every
# drawn SVG is a series name, not a number (a `columnheader` read from a data row).
# Usage: tests/check_figures.sh SOURCE_DIR FIGURE_DIR
set -eu
src=$1
figs=$2
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
[ $status -eq 0 ] && echo "figures: every plot titled, every legend entry a name"
exit $status
