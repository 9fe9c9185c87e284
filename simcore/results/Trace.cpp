#include "simcore/results/Trace.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace nafsim::results {

bool Trace::room()
{
  if (events_.size() < max_)
    return true;
  truncated_ = true;
  return false;
}

void Trace::name_process(std::uint32_t pid, std::string name)
{
  events_.push_back(Event{'p', pid, 0, {}, {}, std::move(name), {}});
}

void Trace::name_thread(std::uint32_t pid, std::uint32_t tid, std::string name)
{
  events_.push_back(Event{'t', pid, tid, {}, {}, std::move(name), {}});
}

void Trace::span(std::uint32_t pid, std::uint32_t tid, std::string name, SimTime begin, SimTime end, std::string args)
{
  if (room())
    events_.push_back(Event{'X', pid, tid, begin, end - begin, std::move(name), std::move(args)});
}

void Trace::counter(std::uint32_t pid, std::string name, double value, SimTime at)
{
  if (room())
    events_.push_back(Event{'C', pid, 0, at, {}, std::move(name), fmt::format(R"({{"value":{}}})", value)});
}

void Trace::instant(std::uint32_t pid, std::uint32_t tid, std::string name, SimTime at, std::string args)
{
  if (room())
    events_.push_back(Event{'i', pid, tid, at, {}, std::move(name), std::move(args)});
}

std::string Trace::json() const
{
  auto us = [](SimTime t) { return fmt::format("{:.6f}", static_cast<double>(t.ps()) * 1e-6); };
  std::string out = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  bool first      = true;
  for (auto const& e : events_) {
    out += first ? "" : ",\n";
    first         = false;
    std::string n = nlohmann::json(e.name).dump();
    switch (e.ph) {
      case 'p':
        out += fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"args":{{"name":{}}}}})", e.pid, n);
        break;
      case 't':
        out += fmt::format(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":{}}}}})", e.pid, e.tid, n);
        break;
      case 'X':
        out += fmt::format(R"({{"ph":"X","name":{},"pid":{},"tid":{},"ts":{},"dur":{}{}}})", n, e.pid, e.tid, us(e.ts),
                           us(e.dur), e.args.empty() ? "" : ",\"args\":" + e.args);
        break;
      case 'C':
        out += fmt::format(R"({{"ph":"C","name":{},"pid":{},"ts":{},"args":{}}})", n, e.pid, us(e.ts), e.args);
        break;
      default:
        out += fmt::format(R"({{"ph":"i","s":"t","name":{},"pid":{},"tid":{},"ts":{}{}}})", n, e.pid, e.tid, us(e.ts),
                           e.args.empty() ? "" : ",\"args\":" + e.args);
    }
  }
  return out + "\n]}\n";
}

} // namespace nafsim::results
