#!/bin/sh
# The structure check's rules of issue 54 on a little tree of its own: the 80-line ratchet outside nodes/ (a long
# function that python-free-tools/long-functions.txt does not list fails the check, a listed one passes, a listed one
# that became short fails until it is taken off the list), the protocols' layer (the SimGrid-free base only) and the
# cluster hub's includes (nodes/platform: no kind's folder) and the header/source knots.
# Usage: tests/run_structure_rules.sh SOURCE_DIR
set -eu
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/nodes/cclo" "$tmp/simcore" "$tmp/protocols" "$tmp/workloads" "$tmp/python-free-tools"
cp "$src/python-free-tools/check-structure.sh" "$tmp/python-free-tools/"
body() { # a function of $1 body lines
  echo "int f()"; echo "{"; i=0; while [ $i -lt "$1" ]; do echo "  g();"; i=$((i + 1)); done; echo "}"
}
check() { sh "$tmp/python-free-tools/check-structure.sh" "$tmp" > "$tmp/out" 2>&1 && echo pass || echo fail; }
fail() { echo "FAIL: $*"; cat "$tmp/out"; exit 1; }

body 81 > "$tmp/simcore/long.cpp"
: > "$tmp/python-free-tools/long-functions.txt"
[ "$(check)" = fail ] || fail "an unlisted 81-line function passed"
grep -q "simcore/long.cpp: int f()" "$tmp/out" || fail "the report does not name the function"
echo "simcore/long.cpp: int f()" > "$tmp/python-free-tools/long-functions.txt"
[ "$(check)" = pass ] || fail "a listed 81-line function failed"
body 80 > "$tmp/simcore/long.cpp"
[ "$(check)" = fail ] || fail "a listed function of 80 lines was not asked off the list"
grep -q "no longer over 80 lines" "$tmp/out" || fail "the report does not say the listed function became short"
: > "$tmp/python-free-tools/long-functions.txt"
[ "$(check)" = pass ] || fail "an 80-line function failed"
body 81 > "$tmp/nodes/long.cpp"
echo "nodes/long.cpp: int f()" > "$tmp/python-free-tools/long-functions.txt"
[ "$(check)" = fail ] || fail "the list let a long function of nodes/ pass"
rm "$tmp/nodes/long.cpp"
: > "$tmp/python-free-tools/long-functions.txt"
[ "$(check)" = pass ] || fail "an empty tree failed"
echo '#include "simcore/engine/Fifo.hpp"' > "$tmp/protocols/base.cpp"
echo '#include "simcore/units/Units.hpp"' >> "$tmp/protocols/base.cpp"
[ "$(check)" = pass ] || fail "protocols including the SimGrid-free base failed"
echo '#include "simcore/engine/Scheduler.hpp"' > "$tmp/protocols/engine.cpp"
[ "$(check)" = fail ] || fail "protocols including the engine passed"
echo '#include <simgrid/s4u.hpp>' > "$tmp/protocols/engine.cpp"
[ "$(check)" = fail ] || fail "protocols including SimGrid passed"
grep -q "protocols/engine.cpp" "$tmp/out" || fail "the report does not name the file"
rm "$tmp/protocols/engine.cpp"
mkdir -p "$tmp/nodes/platform"
printf '#include "nodes/rdma/RdmaPoe.hpp"\n#include "nodes/transport/Poe.hpp"\n#include "nodes/memory/DataPlane.hpp"\n' \
  > "$tmp/nodes/platform/Hub.cpp"
[ "$(check)" = pass ] || fail "the cluster hub including the engines failed"
echo '#include "nodes/fpga/FpgaNode.hpp"' >> "$tmp/nodes/platform/Hub.cpp"
[ "$(check)" = fail ] || fail "the cluster hub including a kind's folder passed"
grep -q "nodes/platform/Hub.cpp.*nodes/fpga/FpgaNode.hpp" "$tmp/out" || fail "the report does not name the include"
rm "$tmp/nodes/platform/Hub.cpp"
mkdir -p "$tmp/workloads/knot"
echo '#include "workloads/knot/B.hpp"' > "$tmp/workloads/knot/A.cpp"
: > "$tmp/workloads/knot/A.hpp"
: > "$tmp/workloads/knot/B.hpp"
[ "$(check)" = pass ] || fail "a source including another unit's header failed"
echo '#include "workloads/knot/A.hpp"' > "$tmp/workloads/knot/B.hpp"
[ "$(check)" = fail ] || fail "two units using each other (A.cpp -> B.hpp -> A.hpp) passed"
grep -q "knots" "$tmp/out" || fail "the report does not name the knot"
grep -q "workloads/knot/A" "$tmp/out" || fail "the report does not name the units"
echo "structure rules: the ratchet, the protocols' layer, the hub's kind-free includes and the knot rule hold"
