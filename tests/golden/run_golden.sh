#!/usr/bin/env bash
# Golden tests: each tests/golden/<name>.json is run with every seed that has an expected directory
# expected/<name>.seed<N>/; stdout and every CSV must be byte-identical to the expected files, and
# two runs of the same seed must agree. Usage: run_golden.sh NAFSIM [--update]
set -euo pipefail
nafsim=$(readlink -f "$1")
update=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for scenario in "$here"/*.json; do
  name=$(basename "$scenario" .json)
  for expected in "$here"/expected/"$name".seed*; do
    [ -d "$expected" ] || continue
    seed=${expected##*.seed}
    for attempt in 1 2; do
      out="$work/$name.seed$seed.$attempt"
      mkdir -p "$out"
      (cd "$out" && "$nafsim" run "$scenario" --seed "$seed" --out golden-out > stdout.txt 2> stderr.txt) || {
        echo "FAIL $name seed $seed: nafsim exited with $?"; cat "$out/stderr.txt"; status=1; continue; }
      if [ "$update" = "--update" ] && [ $attempt = 1 ]; then
        rm -f "$expected"/*
        cp "$out/stdout.txt" "$expected/stdout.txt"
        cp "$out"/golden-out/*.csv "$expected/"
        echo "updated $expected"
      fi
      for f in "$expected"/*; do
        base=$(basename "$f")
        got="$out/golden-out/$base"
        [ "$base" = stdout.txt ] && got="$out/stdout.txt"
        if ! cmp -s "$f" "$got"; then
          echo "FAIL $name seed $seed run $attempt: $base differs from the golden copy"
          diff -u "$f" "$got" | head -20 || true
          status=1
        fi
      done
    done
  done
done
[ $status = 0 ] && echo "golden outputs identical"
exit $status
