#include "simcore/engine/EventProfile.hpp"

#include <algorithm>
#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace nafsim {

std::string EventProfile::readable(const std::type_info& t)
{
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(t.name(), nullptr, nullptr, &status), std::free);
  std::string s = status == 0 && d ? d.get() : t.name();
  // "(anonymous namespace)" is a name, not an argument list: kept through the shortening below as '\x01'.
  static const std::string anon = "(anonymous namespace)";
  for (std::string::size_type at; (at = s.find(anon)) != std::string::npos;)
    s.replace(at, anon.size(), "\x01");
  // Argument lists of the functions a lambda is defined in read as "()": the name says enough.
  std::string out;
  int depth = 0;
  for (char c : s) {
    if (c == '(') {
      if (depth++ == 0)
        out += '(';
      continue;
    }
    if (c == ')') {
      if (--depth == 0)
        out += ')';
      continue;
    }
    if (depth == 0)
      out += c;
  }
  for (std::string::size_type at; (at = out.find("nafsim::")) != std::string::npos;)
    out.erase(at, 8);
  for (std::string::size_type at; (at = out.find('\x01')) != std::string::npos;)
    out.replace(at, 1, anon);
  return out;
}

std::vector<EventProfile::Row> EventProfile::rows() const
{
  std::vector<Row> v;
  v.reserve(counts_.size());
  for (auto const& [k, n] : counts_)
    v.push_back(Row{readable(*k.first), k.second, n});
  std::sort(v.begin(), v.end(), [](const Row& a, const Row& b) {
    return a.events != b.events ? a.events > b.events : (a.handler != b.handler ? a.handler < b.handler : a.kind < b.kind);
  });
  return v;
}

} // namespace nafsim
