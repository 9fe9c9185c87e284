#!/usr/bin/env bash
# `nafsim figures`: every figure's CSV, SVG and PNG and the gallery page are written (with or without
# the measured reference data), and an unknown figure name is a clear error.
set -euo pipefail
nafsim=$(readlink -f "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# expect_exit2 WHAT ERRFILE CMD...: CMD must exit with code 2 (bad input), its stderr in ERRFILE.
expect_exit2() {
  local what=$1 err=$2 code=0
  shift 2
  "$@" 2> "$err" || code=$?
  test "$code" -eq 2 || { echo "exit code $code for $what"; exit 1; }
}
# The figure `scale` draws what `nafsim bench` wrote beside the figures (results/bench): a tiny one here.
"$nafsim" bench --suite all --nodes 16 --total 16MiB --ranks 8 --collectives bcast --fidelity packet flow --repeat 1 \
  --out "$work/results/bench" > bench.log
"$nafsim" figures --source "$root" --out "$work/results/figures" --jobs 2 > figures.log
for f in $("$nafsim" figures --list | awk '{print $1}'); do
  for ext in csv svg png; do
    test -s "results/figures/$f.$ext" || { echo "missing results/figures/$f.$ext"; cat figures.log; exit 1; }
  done
  grep -q "<!-- figure $f -->" results/figures/gallery.md || { echo "gallery lacks $f"; exit 1; }
  grep -q "($f.svg)" results/figures/gallery.md || { echo "gallery's link to $f.svg is not relative to it"; exit 1; }
  echo "ok $f"
done
test ! -e results/gallery.md || { echo "figures wrote a gallery outside its output directory"; exit 1; }
# --gallery writes the page where asked, its links relative to it.
"$nafsim" figures accl-fig8 --source "$root" --out "$work/results/figures" --gallery "$work/results/gallery.md" > g.log
grep -q "(figures/accl-fig8.svg)" results/gallery.md || { echo "--gallery: links not relative to the page"; exit 1; }
echo "ok gallery"
# Without reference data the figures are still drawn (no measured points).
"$nafsim" figures accl-fig8 --source "$root" --reference "$work/none" --out "$work/noref/figures" > noref.log 2> noref.err
grep -q "no reference data" noref.err
test -s noref/figures/accl-fig8.svg
echo "ok without reference"
grep -q "^bcast-flow,8," results/figures/scale.csv
# `scale` asked for without benchmark output: exit code 2, saying what to run.
expect_exit2 "scale without bench output" nobench.err "$nafsim" figures scale --source "$root" --out "$work/nobench/figures"
grep -q "nafsim bench" nobench.err
# Only the packet network's bench (plain `nafsim bench`): exit code 2 naming the missing one (it failed in gnuplot).
mkdir -p "$work/hopsonly" && cp "$work/results/bench/bench.csv" "$work/hopsonly/"
expect_exit2 "scale with one bench" onebench.err "$nafsim" figures scale --source "$root" --bench "$work/hopsonly" \
  --out "$work/onebench/figures"
grep -q "bench_collectives.csv is missing" onebench.err
test ! -e "$work/onebench"
echo "ok scale needs bench output"
# An unknown figure: exit code 2 and the list of figures.
expect_exit2 "an unknown figure" bad.err "$nafsim" figures nosuch --source "$root" --out "$work/x"
grep -q "no figure named 'nosuch'" bad.err
grep -q "accl-fig7" bad.err
echo "ok unknown figure"
# A figure directory whose name holds a line break: its files' names reach gnuplot, so it is refused (exit 2) and
# nothing runs.
expect_exit2 "a line break in --out" nl.err "$nafsim" figures lant-fig7 --source "$root" \
  --out "$work/$(printf 'f\nsystem "touch injected"\n')"
grep -q -- "--out: the figure directory's name holds a control character" nl.err
test ! -e injected && test ! -e "$work/injected"
echo "ok control character in --out"
# A folder figures did not make is left alone: a user's gallery.md survives (exit 2).
mkdir mine && echo mine > mine/gallery.md
expect_exit2 "a user's folder as --out" mine.err "$nafsim" figures accl-fig8 --source "$root" --out "$work/mine"
grep -q "mine holds gallery.md, and nafsim figures did not make this folder" mine.err
test "$(cat mine/gallery.md)" = mine
echo "ok a user's folder is left alone"
# --gallery naming a folder, or a file nafsim did not write: exit 2 before any figure runs, the file left as it was.
expect_exit2 "a folder as --gallery" gdir.err "$nafsim" figures lant-fig7 --source "$root" --out "$work/gd/figures" \
  --gallery "$work/mine"
grep -q -- "--gallery.*is a folder" gdir.err
test ! -e gd
echo notes > notes.md
expect_exit2 "a user's file as --gallery" gfile.err "$nafsim" figures lant-fig7 --source "$root" --out "$work/gf/figures" \
  --gallery "$work/notes.md"
grep -q "is not a gallery page nafsim wrote" gfile.err
test "$(cat notes.md)" = notes && test ! -e gf
echo "ok --gallery refuses what is not its page"
# Every plot titled, every legend entry a series name (tests/check_figures.sh).
reference=absent
[ -d "$root/../shared/reference/accl" ] && reference=present
sh "$root/tests/check_figures.sh" "$root" "$work/results/figures" "$reference"
