#!/bin/sh
# Structural rules of nodes/ (issue 29): no friend declaration in nodes/cclo, no function longer than 80 lines
# in nodes/, no co_await in a condition, no header of nodes/ that includes (directly or not) a header including it.
# Usage: python-free-tools/check-structure.sh [SOURCE_DIR]   (exit 1 and a list of offenders when a rule breaks)
set -eu
src=${1:-$(dirname "$0")/..}
cd "$src"
status=0

friends=$(grep -rn '^[[:space:]]*friend[[:space:]]' nodes/cclo || true)
if [ -n "$friends" ]; then
  echo "friend declarations in nodes/cclo (give the block a named interface instead):"
  echo "$friends"
  status=1
fi

# Function bodies: this tree's style opens a function body with '{' alone in column 0 and closes it with '}'
# in column 0 (class members defined in a class body are short by convention and indented).
long=$(find nodes -name '*.cpp' -o -name '*.hpp' | sort | xargs awk '
  FNR == 1 { start = 0 }
  /^\{/ { start = FNR; head = prev }
  /^\}/ && start { n = FNR - start - 1; if (n > 80) printf "%s:%d: %d lines: %s\n", FILENAME, start, n, head; start = 0 }
  { if ($0 !~ /^[[:space:]]*$/) prev = $0 }')
if [ -n "$long" ]; then
  echo "functions over 80 lines in nodes/ (split them into named steps):"
  echo "$long"
  status=1
fi

# A co_await in a condition (if / while / switch) or in a conditional operator's operand: GCC 12 miscompiled
# `if (co_await fw_.lookup(completion_from(...)))` in the firmware (the condition's temporary std::function was
# destroyed twice: a crash, or a return to the kernel without waiting); every co_await of nodes/ stands in its own
# statement or declaration (simcore/engine/Task.hpp).
conds=$(grep -rnE '(if|while|switch) \(.*co_await|\?[^;]*co_await' nodes || true)
if [ -n "$conds" ]; then
  echo "co_await in a condition or a conditional operator (await into a variable first: GCC 12 miscompiles these):"
  echo "$conds"
  status=1
fi

# Include cycles among the project headers reachable from nodes/: a depth-first walk of the include graph.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
find nodes simcore protocols workloads -name '*.hpp' -o -name '*.cpp' | sort | while read -r f; do
  grep -o '^#include "[^"]*"' "$f" | sed 's/#include "\(.*\)"/\1/' | while read -r inc; do
    if [ -f "$inc" ]; then echo "$f $inc"; fi # a generated header (chakra.pb.h) is not a source edge
  done
done > "$tmp/edges"
cycles=$(awk '
  { adj[$1] = adj[$1] " " $2; nodes[$1] = 1 }
  function visit(n,   i, k, parts, m) {
    state[n] = 1; stack[++depth] = n
    k = split(adj[n], parts, " ")
    for (i = 1; i <= k; i++) {
      m = parts[i]
      if (state[m] == 1) { path = m; for (j = depth; j >= 1 && stack[j] != m; j--) path = stack[j] " -> " path; print m " -> " path }
      else if (state[m] == 0) visit(m)
    }
    depth--; state[n] = 2
  }
  END { for (n in nodes) if (n ~ /^nodes\// && state[n] == 0) visit(n) }' "$tmp/edges")
if [ -n "$cycles" ]; then
  echo "include cycles (a file including a file that includes it):"
  echo "$cycles"
  status=1
fi
[ $status -eq 0 ] && echo "structure of nodes/: no friend in nodes/cclo, no function over 80 lines, no co_await in a condition, no include cycle"
exit $status
