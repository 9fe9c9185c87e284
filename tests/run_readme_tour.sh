#!/bin/sh
# The README's ten-minute tour, run as written: each ```sh block of the section runs (./build/nafsim is the binary
# given, /tmp/nafsim-tour a fresh folder), and every line of the ```text block after it must appear in what the
# commands printed, so the tour's numbers are this build's. Usage: tests/run_readme_tour.sh path/to/nafsim
set -eu
nafsim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The tour: from its heading to the next level-2 heading.
sed -n '/^## Ten-minute tour/,/^## /p' "$root/README.md" > "$work/tour.md"
# Split into numbered command files (cmd.N) and expected-output files (want.N).
awk -v dir="$work" '
  /^```sh$/   { n++; mode = "cmd"; next }
  /^```text$/ { mode = "want"; next }
  /^```$/     { mode = ""; next }
  mode == "cmd"  { print > (dir "/cmd." n) }
  mode == "want" { print > (dir "/want." n) }
' "$work/tour.md"
steps=0
for cmd in "$work"/cmd.*; do
  n=${cmd##*.}
  steps=$((steps + 1))
  sed -e "s#\./build/nafsim#$nafsim#g" -e "s#/tmp/nafsim-tour#$work/tour#g" "$cmd" > "$work/run.$n"
  (cd "$root" && sh -e "$work/run.$n") > "$work/out.$n" 2>&1 || { echo "FAIL: tour step $n exited non-zero"; cat "$work/out.$n"; exit 1; }
  if [ -f "$work/want.$n" ]; then
    while IFS= read -r line; do
      [ -z "$line" ] && continue
      want=$(printf '%s' "$line" | sed "s#/tmp/nafsim-tour#$work/tour#g")
      grep -qF -- "$want" "$work/out.$n" || { echo "FAIL: tour step $n did not print: $line"; cat "$work/out.$n"; exit 1; }
    done < "$work/want.$n"
  fi
  echo "ok tour step $n"
done
[ "$steps" -ge 4 ] || { echo "FAIL: the README's tour has $steps command blocks"; exit 1; }
