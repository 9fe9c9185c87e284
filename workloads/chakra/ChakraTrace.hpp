#pragma once
// Chakra execution traces (MLCommons; ASTRA-sim's input) read into a `program`: one file per rank,
// `<prefix>.<rank>.et`, each a GlobalMetadata then Nodes in protobuf's delimited framing (chakra.proto holds the part
// of the schema nafsim reads). Each rank's nodes form a dependency graph; the k-th collective of every member of a
// communicator is one call; compute nodes replay their duration; send / recv nodes are the CCLO's send / recv.

#include "workloads/chakra/ChakraConfig.hpp"
#include "workloads/program/ProgramPlan.hpp"

namespace nafsim::workloads {

/// Read the trace and build the program (a ConfigError naming the file, the node id and the field for anything
/// that cannot run: a missing or truncated file, an unknown node or collective type, a peer outside the ranks,
/// a dependency on a missing node or on itself, a cycle, collectives the ranks call in different numbers or orders).
/// `repairs`, when given, receives what was repaired (workload.strict false).
ProgramPlan load_chakra(const ChakraConfig& cfg, ChakraRepairs* repairs = nullptr);

} // namespace nafsim::workloads
