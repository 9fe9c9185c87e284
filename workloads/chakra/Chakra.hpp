#pragma once
// The `chakra` workload: a Chakra execution trace run on the CCLO ranks (or on the MPI baseline): read whole and
// checked before the run as a `program` (ChakraTrace.hpp), or, with `stream`, replayed as it is read
// (ChakraStream.hpp).

#include "workloads/chakra/ChakraStream.hpp"
#include "workloads/chakra/ChakraTrace.hpp"
#include "workloads/program/Program.hpp"

#include <memory>

namespace nafsim::workloads {

class Chakra final : public Workload {
public:
  explicit Chakra(const ChakraConfig& cfg);
  void start(nodes::Cluster& c) override;
  void report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const override;
  std::string deadlock_advice() const override;
  config::Json metadata() const override;
  std::optional<unsigned> rank_count() const override;
  std::string unread_reason(std::string_view key) const override;
  /// What the loader repaired (workload.strict false).
  const ChakraRepairs& repairs() const;

private:
  ChakraConfig cfg_;
  std::unique_ptr<Program> program_;
  std::unique_ptr<ChakraStream> stream_;
  ChakraRepairs repairs_;
};

} // namespace nafsim::workloads
