#pragma once
// The `chakra` workload: a Chakra execution trace (ChakraTrace.hpp) run as a `program` on the CCLO ranks.

#include "workloads/chakra/ChakraTrace.hpp"
#include "workloads/program/Program.hpp"

namespace nafsim::workloads {

class Chakra final : public Workload {
public:
  explicit Chakra(const ChakraConfig& cfg) : cfg_(cfg), program_(load_chakra(cfg)) {}
  void start(nodes::Cluster& c) override { program_.start(c); }
  void report(const nodes::Cluster& c, results::ResultSink& sink, std::vector<std::string>& summary) const override;

private:
  ChakraConfig cfg_;
  Program program_;
};

} // namespace nafsim::workloads
