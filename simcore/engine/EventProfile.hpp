#pragma once
// Which components the kernel's events go to (`nafsim run --event-profile`, metadata.json `event_profile`): a count
// per handler type and event kind, a call_at's function counted by its own type. Opt-in: off, the kernel pays one
// branch per event. Used to find the events a message costs and which of them another block can observe
// (simcore/engine/README.md, "Events per CCLO message").

#include <cstdint>
#include <map>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

namespace nafsim {

class EventProfile {
public:
  void count(const std::type_info& handler, std::uint32_t kind) { ++counts_[{&handler, kind}]; }
  struct Row {
    std::string handler; ///< the handler's (or the callback's) type, demangled, without nafsim::
    std::uint32_t kind;  ///< the handler's event kind (0 for callbacks)
    std::uint64_t events;
  };
  /// Most events first (ties by name).
  std::vector<Row> rows() const;
  /// A demangled type name made short: namespaces nafsim:: dropped, argument lists as "()".
  static std::string readable(const std::type_info& t);

private:
  std::map<std::pair<const std::type_info*, std::uint32_t>, std::uint64_t> counts_;
};

} // namespace nafsim
