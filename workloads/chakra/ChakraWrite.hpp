#pragma once
// Writing Chakra traces (the reader is ChakraTrace / ChakraStream): the nodes as the schema's own classes, a rank's
// file as Chakra writes it (a GlobalMetadata, then the nodes, each preceded by its length as a varint: protobuf's
// delimited framing). Shared by the trace writer (python-free-tools/chakra-write.cpp), the tests and the fuzzer.

#include "chakra.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nafsim::workloads::chakra {

/// A node with its id, type, name and data dependencies.
ChakraProtoMsg::Node make_node(std::uint64_t id, ChakraProtoMsg::NodeType type, const std::string& name,
                               const std::vector<std::uint64_t>& deps = {});
/// Add an int64 attribute.
void add_int(ChakraProtoMsg::Node& n, const std::string& name, std::int64_t v);
/// A rank file's bytes: the GlobalMetadata (version 0.0.4), then the nodes, delimited.
std::string rank_bytes(const std::vector<ChakraProtoMsg::Node>& nodes);
/// Write them to `file` (false: it cannot be written).
bool write_rank(const std::string& file, const std::vector<ChakraProtoMsg::Node>& nodes);

} // namespace nafsim::workloads::chakra
