#!/bin/sh
# nafsim plot: a table drawn as PNG and SVG (series, facets, filters, log axes), and its input errors (exit 2, the
# option named). Usage: tests/run_plot.sh path/to/nafsim
set -eu
nafsim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # absolute: the injection checks run inside $dir
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/t.csv" <<'CSV'
bytes,latency_us,protocol,ranks,note
512,10.5,eager,2,a
1024,11,eager,2,
512,12,eager,10,
1024,13.5,eager,10,
65536,40,rendezvous,2,
131072,70,rendezvous,2,
65536,45,rendezvous,10,
131072,,rendezvous,10,failed point
CSV
fail() { echo "FAIL: $*"; exit 1; }

out=$("$nafsim" plot "$dir/t.csv" --x bytes --y latency_us --series ranks --facet protocol --logx --out "$dir/f.svg")
echo "$out"
echo "$out" | grep -q "plotted 7 point(s) in 4 series and 2 panels" || fail "summary: $out"
echo "$out" | grep -q "1 row(s) without a value left out" || fail "empty cell not reported"
grep -q "protocol = eager" "$dir/f.svg" || fail "no panel title 'protocol = eager'"
grep -q "protocol = rendezvous" "$dir/f.svg" || fail "no panel title 'protocol = rendezvous'"
grep -q ">10<" "$dir/f.svg" || fail "no legend entry for ranks 10"
grep -q "latency \[us\]" "$dir/f.svg" || fail "no y label with its unit (latency_us -> latency [us])"
grep -q "size \[bytes\]" "$dir/f.svg" || fail "no x label for bytes"
grep -q ">64 KiB<" "$dir/f.svg" || fail "the byte axis is not in KiB / MiB"
grep -q ">512 B<" "$dir/f.svg" || fail "the byte axis is not in bytes below 1 KiB"
grep -q "1e+" "$dir/f.svg" && fail "a number drawn as 1e+NN"
# Publishing options: labels, a shared y range over the facets, the legend's place.
"$nafsim" plot "$dir/t.csv" --x bytes --y latency_us --series ranks --facet protocol --shared-y --legend right \
  --xlabel "message size" --ylabel "time (us)" --title "CCLO latency" --out "$dir/g.svg" > /dev/null
grep -q "message size" "$dir/g.svg" || fail "--xlabel"
grep -q "time (us)" "$dir/g.svg" || fail "--ylabel"
grep -q "CCLO latency" "$dir/g.svg" || fail "--title"
"$nafsim" plot "$dir/t.csv" --x bytes --y latency_us --legend none --out "$dir/n.png" > /dev/null || fail "--legend none"
# A CSV saved by a spreadsheet starts with a UTF-8 byte-order mark: the first column is still 'bytes'.
printf '\357\273\277bytes,latency_us\n1,2\n2,3\n' > "$dir/bom.csv"
"$nafsim" plot "$dir/bom.csv" --x bytes --y latency_us --out "$dir/bom.svg" > /dev/null || fail "byte-order mark kept"

"$nafsim" plot "$dir/t.csv" --x bytes --y latency_us --where protocol=eager --where ranks=2 --out "$dir/p.png" | grep -q "plotted 2 point(s) in 1 series" || fail "filters"
[ "$(head -c 4 "$dir/p.png" | tail -c 3)" = "PNG" ] || fail "not a PNG"
"$nafsim" plot "$dir/t.csv" --x bytes --y latency_us > /dev/null
[ -s "$dir/t-latency_us-vs-bytes.png" ] || fail "default output name beside the CSV"

# User text never runs as a gnuplot command: a line break in the title, in the CSV's file name (the default title)
# or in a series name would otherwise end gnuplot's string and run the next line (`system "..."` included).
cd "$dir"
"$nafsim" plot t.csv --x bytes --y latency_us --title "$(printf 't\nsystem "touch injected-title"\nset title %sx' "'")" \
  --out inj.png > /dev/null || fail "a title with a line break is drawn (as spaces)"
[ ! -e injected-title ] || fail "the title ran a gnuplot command"
[ -s inj.png ] || fail "no figure for the title with a line break"
evil=$(printf 'e\nsystem "touch injected-name"\nx.csv')
cp t.csv "$evil"
"$nafsim" plot "$evil" --x bytes --y latency_us --out name.png > /dev/null || fail "a CSV named with a line break"
[ ! -e injected-name ] || fail "the CSV's file name ran a gnuplot command"
printf 'bytes,latency_us,s\n1,2,"a\rsystem ""touch injected-cell""\r"\n2,3,b\n' > cell.csv
"$nafsim" plot cell.csv --x bytes --y latency_us --series s --out cell.png > /dev/null || fail "a series name with CR"
[ ! -e injected-cell ] || fail "a series name ran a gnuplot command"
if "$nafsim" plot t.csv --x bytes --y latency_us --out "$(printf 'o\nsystem "touch injected-out"\n.png')" \
  > /dev/null 2> err; then fail "an output name with a line break was accepted"; fi
grep -q -- "--out: the output name holds a control character" err || fail "message for --out: $(cat err)"
[ ! -e injected-out ] || fail "the output name ran a gnuplot command"
cd - > /dev/null

expect_error() { # expected text, then the arguments
  want=$1; shift
  if "$nafsim" plot "$@" > "$dir/out" 2> "$dir/err"; then fail "accepted: $*"; fi
  code=$?
  grep -q -- "$want" "$dir/err" || fail "message for '$*': $(cat "$dir/err")"
}
expect_error "--y: .* has no column 'nope'; its columns are: bytes, latency_us" "$dir/t.csv" --x bytes --y nope
expect_error "column 'protocol' holds 'eager', not a number" "$dir/t.csv" --x protocol --y latency_us
expect_error "--where: 'protocol' is not COLUMN=VALUE" "$dir/t.csv" --x bytes --y latency_us --where protocol
expect_error "nothing to draw" "$dir/t.csv" --x bytes --y latency_us --where protocol=none
expect_error "end the name in .png or .svg" "$dir/t.csv" --x bytes --y latency_us --out "$dir/f.pdf"
expect_error "cannot read the file" "$dir/missing.csv" --x bytes --y latency_us
printf 'a,b\n1,2,3\n' > "$dir/bad.csv"
expect_error "3 cells, but the header has 2 columns" "$dir/bad.csv" --x a --y b
# Panels beyond one image's height (Cairo's 32,767 pixels): said before gnuplot runs, with advice that fits (it had
# failed inside gnuplot, advising to check the values).
awk 'BEGIN { print "f,x,y"; for (i = 1; i <= 240; i++) { print i ",1,2"; print i ",2,3" } }' > "$dir/many.csv"
expect_error "'f' has 240 values to draw, one panel each: at most 234 panels" "$dir/many.csv" --x x --y y --facet f \
  --out "$dir/many.png"
"$nafsim" plot "$dir/many.csv" --x x --y y --facet f --out "$dir/many.svg" > /dev/null || fail "240 panels as SVG"
"$nafsim" plot "$dir/many.csv" --x x --y y --facet f --where f=7 --out "$dir/one.png" > /dev/null ||
  fail "one panel kept by --where"
for csv in t.csv missing.csv bad.csv; do
  set +e
  "$nafsim" plot "$dir/$csv" --x protocol --y nope > /dev/null 2>&1
  code=$?
  set -e
  [ $code -eq 2 ] || fail "exit code $code on bad input ($csv), not 2"
done
# Data gnuplot cannot draw: the CSV is named (not --out), an existing --out stays whole, no partial file and no
# scratch folder are left behind.
printf 'bytes,latency_us\n1,1e308\n2,-1e308\n' > "$dir/huge.csv"
echo mine > "$dir/mine.png"
# (its scratch folder goes in a TMPDIR of its own: other tests running beside this one make theirs in the shared one)
mkdir "$dir/tmp"
shared_tmp=${TMPDIR:-}
export TMPDIR="$dir/tmp"
expect_error "huge.csv: gnuplot could not draw this data" "$dir/huge.csv" --x bytes --y latency_us --out "$dir/mine.png"
if [ -n "$shared_tmp" ]; then TMPDIR=$shared_tmp; else unset TMPDIR; fi
[ "$(cat "$dir/mine.png")" = mine ] || fail "a failing plot changed the existing --out file"
[ "$(ls -A "$dir" | grep -c '\.nafsim-[0-9]')" -eq 0 ] || fail "a failing plot left a partial drawing beside --out: $(ls -A "$dir")"
[ -z "$(ls -A "$dir/tmp")" ] || fail "a failing plot left its scratch folder behind: $(ls -A "$dir/tmp")"
# A plot drawn beside a run's CSV (the default) is listed in the run's folder, which a rerun with the same --out still
# replaces whole, plots and all (the README's example made it a user's folder, refused on rerun).
root=$(cd "$(dirname "$0")/.." && pwd)
"$nafsim" run "$root/workloads/sendrecv/example.json" --quiet --out "$dir/run" > /dev/null
"$nafsim" plot "$dir/run/sendrecv.csv" --x bytes --y latency_us > /dev/null
"$nafsim" plot "$dir/run/sendrecv.csv" --x bytes --y latency_us --logx --out "$dir/run/log.svg" > /dev/null
[ -f "$dir/run/sendrecv-latency_us-vs-bytes.png" ] || fail "no default plot beside the CSV"
grep -qx "log.svg" "$dir/run/.nafsim-plots" || fail "the second plot is not listed: $(cat "$dir/run/.nafsim-plots")"
"$nafsim" run "$root/workloads/sendrecv/example.json" --quiet --out "$dir/run" > /dev/null ||
  fail "a rerun into a run folder holding its plots was refused"
[ ! -e "$dir/run/log.svg" ] && [ ! -e "$dir/run/.nafsim-plots" ] || fail "the rerun kept the old plots"
echo mine > "$dir/run/notes.txt"
if "$nafsim" run "$root/workloads/sendrecv/example.json" --quiet --out "$dir/run" > /dev/null 2>&1; then
  fail "a rerun replaced a folder holding a user's file"
fi
# Found by the audit of 2026-12-07: --out naming a folder is refused (it was an internal error leaving its drawing
# and scratch folder behind); a file of the default name that plot did not draw is not replaced unless --out names
# it; rows a log axis cannot show are counted; --out in a folder not made yet is drawn there.
mkdir "$dir/afolder.png"
expect_error "afolder.png is a folder: name the plot's file" "$dir/t.csv" --x bytes --y latency_us --out "$dir/afolder.png"
[ "$(ls -A "$dir" | grep -c '\.nafsim-[0-9]')" -eq 0 ] || fail "a refused plot left a partial drawing: $(ls -A "$dir")"
mkdir "$dir/mine"
cp "$dir/t.csv" "$dir/mine/t.csv"
echo mine > "$dir/mine/t-latency_us-vs-bytes.png"
expect_error "t-latency_us-vs-bytes.png exists and plot did not draw it: give --out" "$dir/mine/t.csv" --x bytes --y latency_us
[ "$(cat "$dir/mine/t-latency_us-vs-bytes.png")" = mine ] || fail "a plot without --out replaced a user's file"
"$nafsim" plot "$dir/mine/t.csv" --x bytes --y latency_us --out "$dir/mine/t-latency_us-vs-bytes.png" > /dev/null ||
  fail "--out naming the file did not replace it"
"$nafsim" plot "$dir/mine/t.csv" --x bytes --y latency_us > /dev/null || fail "plot's own default file not replaced"
printf 'bytes,latency_us\n0,1\n4096,2\n65536,3\n' > "$dir/zero.csv"
"$nafsim" plot "$dir/zero.csv" --x bytes --y latency_us --logx --out "$dir/zero.svg" |
  grep -q "plotted 2 point(s) in 1 series into .*zero.svg (1 row(s) with a value <= 0 left off the log axis)" ||
  fail "a row the log axis cannot show was not counted"
"$nafsim" plot "$dir/zero.csv" --x bytes --y latency_us --out "$dir/new/sub/z.png" > /dev/null || fail "--out in a new folder"
[ -s "$dir/new/sub/z.png" ] || fail "no plot in the new folder"
: > "$dir/empty.csv"
expect_error "empty.csv is empty: give a CSV table with a header line" "$dir/empty.csv" --x bytes --y latency_us
expect_error "is a folder, not a CSV file" "$dir/mine" --x bytes --y latency_us
printf 'bytes,latency_us\n' > "$dir/header.csv"
expect_error "csv: no row of .*header.csv has numbers in 'bytes' and 'latency_us': nothing to draw" "$dir/header.csv" --x bytes --y latency_us
echo "plot ok"
