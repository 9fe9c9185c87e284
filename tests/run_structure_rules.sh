#!/bin/sh
# The structure check's rules of issue 54 on a little tree of its own: no function over 80 lines outside tests (an
# 81-line one fails in every folder but tests/, an 80-line one passes), the protocols' layer (the SimGrid-free base
# only), the cluster hub's includes (nodes/platform: no other nodes/ folder) and the header/source knots.
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
[ "$(check)" = fail ] || fail "an 81-line function of simcore/ passed"
grep -q "simcore/long.cpp:2: 81 lines: int f()" "$tmp/out" || fail "the report does not name the function and its length"
body 80 > "$tmp/simcore/long.cpp"
[ "$(check)" = pass ] || fail "an 80-line function failed"
for d in nodes protocols workloads python-free-tools; do
  body 81 > "$tmp/$d/long.cpp"
  [ "$(check)" = fail ] || fail "an 81-line function of $d/ passed"
  rm "$tmp/$d/long.cpp"
done
mkdir -p "$tmp/tests"
body 81 > "$tmp/tests/long.cpp"
[ "$(check)" = pass ] || fail "a long test failed (tests are outside the rule)"
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
printf '#include "nodes/platform/Node.hpp"\n#include "simcore/net/Fabric.hpp"\n' > "$tmp/nodes/platform/Hub.cpp"
[ "$(check)" = pass ] || fail "the cluster hub including itself and simcore failed"
echo '#include "nodes/transport/Poe.hpp"' >> "$tmp/nodes/platform/Hub.cpp"
[ "$(check)" = fail ] || fail "the cluster hub including an engine's folder passed"
grep -q "nodes/platform/Hub.cpp.*nodes/transport/Poe.hpp" "$tmp/out" || fail "the report does not name the include"
printf '#include "nodes/platform/Node.hpp"\n#include "nodes/fpga/FpgaNode.hpp"\n' > "$tmp/nodes/platform/Hub.cpp"
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
echo "structure rules: the 80-line rule, the protocols' layer, the hub's includes and the knot rule hold"
