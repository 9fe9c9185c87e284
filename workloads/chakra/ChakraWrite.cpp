#include "workloads/chakra/ChakraWrite.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <fstream>

namespace nafsim::workloads::chakra {

namespace pb = ChakraProtoMsg;

pb::Node make_node(std::uint64_t id, pb::NodeType type, const std::string& name, const std::vector<std::uint64_t>& deps)
{
  pb::Node n;
  n.set_id(id);
  n.set_type(type);
  n.set_name(name);
  for (auto d : deps)
    n.add_data_deps(d);
  return n;
}

void add_int(pb::Node& n, const std::string& name, std::int64_t v)
{
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_int64_val(v);
}

std::string rank_bytes(const std::vector<pb::Node>& nodes)
{
  std::string out;
  {
    google::protobuf::io::StringOutputStream zout(&out);
    pb::GlobalMetadata meta;
    meta.set_version("0.0.4");
    google::protobuf::util::SerializeDelimitedToZeroCopyStream(meta, &zout);
    for (auto const& n : nodes)
      google::protobuf::util::SerializeDelimitedToZeroCopyStream(n, &zout);
  }
  return out;
}

bool write_rank(const std::string& file, const std::vector<pb::Node>& nodes)
{
  std::ofstream out(file, std::ios::binary);
  const std::string bytes = rank_bytes(nodes);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

} // namespace nafsim::workloads::chakra
