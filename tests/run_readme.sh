#!/bin/sh
# The README's commands, run as written, and its numbers checked against what they print.
# - The ten-minute tour: each ```sh block of the section runs, in order.
# - The rest of the manual: each ```sh block that is followed by a ```text block (nothing but blank lines between)
#   runs; other ```sh blocks are illustrations and do not.
# Every line of a ```text block must appear in what the ```sh block before it printed (stdout and stderr), so the
# numbers shown are this build's. The commands run from the repository root; ./build/ is the folder of the binary
# given and /tmp/ a fresh scratch folder. Usage: tests/run_readme.sh path/to/nafsim
set -eu
bindir=$(cd "$(dirname "$1")" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tmp"
# Split the README into numbered command files (cmd.N), expected-output files (want.N) and what to do (how.N:
# "run", a block of the tour, or "check", a block with its expected output elsewhere).
awk -v dir="$work" '
  /^## / { tour = ($0 ~ /^## Ten-minute tour/) }
  /^```sh$/   { n++; mode = "cmd"; if (tour) print "run" > (dir "/how." n); pending = n; next }
  /^```text$/ { mode = "want"; if (pending) { print "check" > (dir "/how." pending) } ; next }
  /^```/      { mode = ""; next }
  mode == "cmd"  { print > (dir "/cmd." n); next }
  mode == "want" { if (pending) print > (dir "/want." pending); next }
  /^[[:space:]]*$/ { next }
  { pending = 0 }
' "$root/README.md"
steps=0
checked=0
for n in $(cd "$work" && ls how.* | sed 's/^how\.//' | sort -n); do
  [ -f "$work/cmd.$n" ] || continue
  steps=$((steps + 1))
  [ -f "$work/want.$n" ] && checked=$((checked + 1))
  # /tmp/ first: the binary's own folder may lie under /tmp (a clone there) and must stay as it is.
  sed -e "s#/tmp/#$work/tmp/#g" -e "s#\./build/#$bindir/#g" "$work/cmd.$n" > "$work/run.$n"
  (cd "$root" && sh -e "$work/run.$n") > "$work/out.$n" 2>&1 || {
    echo "FAIL: README block $n exited non-zero:"; cat "$work/cmd.$n"; cat "$work/out.$n"; exit 1; }
  if [ -f "$work/want.$n" ]; then
    while IFS= read -r line; do
      [ -z "$line" ] && continue
      want=$(printf '%s' "$line" | sed "s#/tmp/#$work/tmp/#g")
      grep -qF -- "$want" "$work/out.$n" || {
        echo "FAIL: README block $n did not print: $line"; cat "$work/cmd.$n"; cat "$work/out.$n"; exit 1; }
    done < "$work/want.$n"
  fi
  echo "ok README block $n: $(head -1 "$work/cmd.$n" | cut -c1-100)"
done
[ "$steps" -ge 4 ] || { echo "FAIL: the README has $steps command blocks to run"; exit 1; }
echo "$steps README blocks ran, $checked with their output checked"
