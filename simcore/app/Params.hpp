#pragma once
#include "workloads/WorkloadRegistry.hpp"

#include <optional>
#include <ostream>
#include <string>

namespace nafsim::app {

/// Print every parameter whose path starts with `prefix`: path, type, default and meaning, from the
/// same tables the parser uses. With `preset`, defaults are that preset's values and sources.
void print_params(std::ostream& out, const std::string& prefix, const std::optional<std::string>& preset,
                  const workloads::WorkloadRegistry& reg);

} // namespace nafsim::app
