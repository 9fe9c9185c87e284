#!/bin/sh
# Structural rules (issues 29 and 54): no function longer than 80 lines outside tests; no friend declaration in
# nodes/cclo, no co_await in a condition, no header of nodes/ that includes (directly or not) a header including it,
# nodes/platform including no other nodes/ folder; no header/source knot in any folder (units, a header and its source,
# that use each other); protocols/ on the SimGrid-free base only.
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
# in column 0 (class members defined in a class body are short by convention and indented). No function over 80
# lines in nodes/ (issue 29) nor anywhere else outside tests (issue 54: the longer ones of simcore, protocols and
# workloads were split into named steps under a ratchet list, now empty and gone).
long=$(find nodes simcore protocols workloads python-free-tools -name '*.cpp' -o -name '*.hpp' | sort | xargs awk '
  FNR == 1 { start = 0 }
  /^\{/ { start = FNR; head = prev }
  /^\}/ && start { n = FNR - start - 1; if (n > 80) printf "%s:%d: %d lines: %s\n", FILENAME, start, n, head; start = 0 }
  { if ($0 !~ /^[[:space:]]*$/) prev = $0 }')
if [ -n "$long" ]; then
  echo "functions over 80 lines (split them into named steps):"
  echo "$long"
  status=1
fi

# The layers (issue 54): the protocols link only the SimGrid-free base (simcore/CMakeLists.txt, nafsim_base), so they
# include from simcore only its headers (units, config, the engine's plain Fifo and PairHash) and nothing of SimGrid.
layer=$( (grep -rn '#include "simcore/' protocols | grep -vE '#include "simcore/(units/|config/|engine/Fifo\.hpp|engine/PairHash\.hpp)' || true
         grep -rnE '#include [<"](simgrid|xbt)' protocols || true) )
if [ -n "$layer" ]; then
  echo "protocols/ includes beyond the SimGrid-free base (units, config, engine/Fifo.hpp, engine/PairHash.hpp):"
  echo "$layer"
  status=1
fi

# The cluster hub knows only nodes (issue 54): nodes/platform includes no other nodes/ folder. What a kind offers beyond
# Node is in its own folder (nodes/fpga/FpgaCluster.hpp, nodes/host/HostCluster.hpp); what needs an engine's or the
# memory model's definitions is defined in that folder (nodes/transport/ClusterConnections.cpp, EngineTables.cpp,
# nodes/memory/ClusterData.cpp); nodes/README.md.
hub=$(grep -rn '#include "nodes/' nodes/platform 2>/dev/null | grep -v '#include "nodes/platform/' || true)
if [ -n "$hub" ]; then
  echo "nodes/platform includes another nodes/ folder (keep a kind's accessors and wiring, and what needs an engine, in that folder):"
  echo "$hub"
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
# Loops in a graph of "from to" lines, walked from the nodes matching the pattern $2: each printed as a path.
loops() {
  awk -v from="$2" '
  { adj[$1] = adj[$1] " " $2; nodes[$1] = 1 }
  function visit(n,   i, k, parts, m, j, path) {
    state[n] = 1; stack[++depth] = n
    k = split(adj[n], parts, " ")
    for (i = 1; i <= k; i++) {
      m = parts[i]
      if (state[m] == 1) { path = m; for (j = depth; j >= 1 && stack[j] != m; j--) path = stack[j] " -> " path; print m " -> " path }
      else if (state[m] == 0) visit(m)
    }
    depth--; state[n] = 2
  }
  END { for (n in nodes) if (n ~ from && state[n] == 0) visit(n) }' "$1"
}
cycles=$(loops "$tmp/edges" '^nodes/')
if [ -n "$cycles" ]; then
  echo "include cycles (a file including a file that includes it):"
  echo "$cycles"
  status=1
fi
# Header/source knots (issue 54): a unit is a header and its source (X.hpp, X.cpp); unit A uses unit B when either
# of A's files includes B.hpp. Two units that use each other, or any longer loop of units, are one unit in all but
# name (Cclo's source including Firmware.hpp while Firmware.hpp included Cclo.hpp): give the shared part a file of its
# own or a named interface (nodes/cclo/FirmwarePorts.hpp).
awk '$2 ~ /\.hpp$/ { a = $1; b = $2; sub(/\.[ch]pp$/, "", a); sub(/\.hpp$/, "", b); if (a != b) print a, b }' \
  "$tmp/edges" | sort -u > "$tmp/units"
knots=$(loops "$tmp/units" '')
if [ -n "$knots" ]; then
  echo "header/source knots (units, a header and its source, that use each other round a loop):"
  echo "$knots"
  status=1
fi

[ $status -eq 0 ] && echo "structure: no function over 80 lines outside tests; in nodes/ no friend in nodes/cclo, no co_await in a condition, no include cycle, nodes/platform including no other nodes/ folder; no header/source knot anywhere; protocols/ on the SimGrid-free base only"
exit $status
