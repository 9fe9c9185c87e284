#!/usr/bin/env bash
# Runs every example scenario shipped with the workloads (the README's commands) and checks each one's summary
# on stdout against the expected output beside it (workloads/<kind>/<name>.expected, as SimGrid's tesh files do),
# then every example sweep. Usage: run_examples.sh NAFSIM [--update] (--update rewrites the expected files).
set -euo pipefail
nafsim=$(readlink -f "$1")
update=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
status=0
for s in "$root"/workloads/*/*.json; do
  case "$(basename "$s")" in sweep*) continue ;; esac
  expected="${s%.json}.expected"
  rm -rf out
  if ! "$nafsim" run "$s" --out out > stdout.txt 2> stderr.txt; then
    echo "FAIL $s: nafsim exited with an error"; cat stderr.txt; status=1; continue
  fi
  if [ "$update" = "--update" ]; then
    cp stdout.txt "$expected"
    echo "updated $expected"
  elif [ ! -f "$expected" ]; then
    echo "FAIL $s: no expected output beside it ($expected; run tests/run_examples.sh build/nafsim --update)"
    status=1
  elif ! cmp -s "$expected" stdout.txt; then
    echo "FAIL $s: its summary differs from $expected"
    diff -u "$expected" stdout.txt | head -30 || true
    status=1
  else
    echo "ok $s"
  fi
done
for s in "$root"/workloads/*/sweep-example.json; do
  "$nafsim" sweep "$s" --jobs 2 --out "sweep-$(basename "$(dirname "$s")")" > /dev/null
  echo "ok $s"
done
"$nafsim" params > /dev/null
echo "ok params"
exit $status
