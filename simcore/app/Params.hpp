#pragma once
#include "workloads/WorkloadRegistry.hpp"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace nafsim::app {

/// Print every parameter whose path starts with `prefix`: path, type, default and meaning, from the
/// same tables the parser uses. With `preset`, defaults are that preset's values and sources. `width`: each
/// parameter's meaning wrapped below it to this many columns; 0: one line per parameter (a table).
void print_params(std::ostream& out, const std::string& prefix, const std::optional<std::string>& preset,
                  const workloads::WorkloadRegistry& reg, std::size_t width = 0);
/// `text` in lines of at most `width` characters, broken at spaces (a longer word stands alone).
std::vector<std::string> wrap(const std::string& text, std::size_t width);

} // namespace nafsim::app
