#include "simcore/units/Units.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <numeric>
#include <cmath>
#include <fmt/format.h>
#include <utility>

namespace nafsim {

SimTime transmit_time_divided(Bytes b, BitsPerSecond r)
{
  // Exact integer arithmetic when the rate is a whole number of bits per second (every preset),
  // so that n packets of equal size take exactly n times one packet.
  double bits = static_cast<double>(b.count) * 8.0;
  if (r.bps == std::floor(r.bps) && r.bps > 0 && b.count < (1ULL << 40)) {
    __extension__ using I128 = __int128;
    I128 num = static_cast<I128>(b.count) * 8 * 1000000000000LL;
    auto den = static_cast<I128>(r.bps);
    I128 ps  = (num + den / 2) / den;
    if (ps > static_cast<I128>(INT64_MAX))
      return SimTime::from_seconds(bits / r.bps); // beyond the clock: raises TimeRangeError
    return SimTime::ps(static_cast<std::int64_t>(ps));
  }
  return SimTime::from_seconds(bits / r.bps);
}

LineRate::LineRate(BitsPerSecond r) : rate_(r)
{
  if (r.bps > 0 && r.bps == std::floor(r.bps) && r.bps < 9.0e18) {
    std::uint64_t num = 8000000000000ULL; // ps per second x bits per byte
    auto den          = static_cast<std::uint64_t>(r.bps);
    std::uint64_t g   = std::gcd(num, den);
    num_              = num / g;
    den_              = den / g;
    limit_            = static_cast<std::uint32_t>(std::min<std::uint64_t>(((1ULL << 63) - 1 - den_) / num_, UINT32_MAX));
    unsigned l        = den_ == 1 ? 0u : 64u - static_cast<unsigned>(__builtin_clzll(den_ - 1)); // ceil(log2 den)
    shift_            = 63 + l;
    __extension__ using U128 = unsigned __int128;
    mul_ = static_cast<std::uint64_t>(((U128{1} << shift_) + den_ - 1) / den_); // < 2^64 (see Units.hpp)
  }
}

SimTime transmit_time(Bytes b, BitsPerSecond r)
{
  // The few rates a run serializes at (its links, memories, engines), each prepared once as a LineRate: a 128-bit
  // division costs about 130 instructions, time_for a multiplication (equal to the division: Units.hpp). Four
  // entries, replaced in turn; a rate that is not a whole number of bits per second is divided every time.
  struct Prepared {
    std::array<double, 4> bps{-1.0, -1.0, -1.0, -1.0};
    std::array<LineRate, 4> line{};
    unsigned next = 0;
  };
  thread_local Prepared cache;
  for (unsigned i = 0; i < 4; ++i)
    if (cache.bps[i] == r.bps)
      return cache.line[i].exact(b) ? cache.line[i].time_for(b) : transmit_time_divided(b, r);
  const unsigned i = cache.next++ & 3u;
  cache.bps[i]     = r.bps;
  cache.line[i]    = LineRate{r};
  return cache.line[i].exact(b) ? cache.line[i].time_for(b) : transmit_time_divided(b, r);
}

SimTime cycles_time(Cycles c, Hertz f)
{
  return SimTime::from_seconds(static_cast<double>(c.count) / f.hz);
}

namespace {

struct Split {
  double value;
  std::string_view unit;
};

std::string_view trim(std::string_view s)
{
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

Split split_number(std::string_view text, std::string_view what, std::string_view example)
{
  std::string_view s = trim(text);
  double v           = 0;
  auto [ptr, ec]     = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || s.empty())
    throw UnitError{fmt::format("'{}' is not a {} (expected a number followed by a unit, e.g. '{}')", text, what,
                                example)};
  if (!std::isfinite(v) || v < 0)
    throw UnitError{fmt::format("'{}' is not a {}: it must be a finite, non-negative number (e.g. '{}')", text, what,
                                example)};
  return {v, trim(std::string_view(ptr, s.data() + s.size() - ptr))};
}

template <std::size_t N>
double scale_for(Split sp, std::string_view text, std::string_view what, std::string_view example,
                 const std::array<std::pair<std::string_view, double>, N>& units)
{
  for (auto const& [name, mult] : units)
    if (sp.unit == name)
      return sp.value * mult;
  std::string allowed;
  for (auto const& [name, mult] : units)
    allowed += (allowed.empty() ? "" : ", ") + std::string(name);
  throw UnitError{fmt::format("'{}' has unknown unit '{}' for a {} (allowed units: {}; e.g. '{}')", text, sp.unit,
                              what, allowed, example)};
}

std::string trim_number(double v)
{
  std::string s = fmt::format("{:.6f}", v);
  while (!s.empty() && s.back() == '0')
    s.pop_back();
  if (!s.empty() && s.back() == '.')
    s.pop_back();
  return s;
}

} // namespace

Bytes parse_bytes(std::string_view text)
{
  static constexpr std::array<std::pair<std::string_view, double>, 11> units{
      {{"", 1.0},
       {"B", 1.0},
       {"KB", 1e3},
       {"KiB", 1024.0},
       {"MB", 1e6},
       {"MiB", 1024.0 * 1024},
       {"GB", 1e9},
       {"GiB", 1024.0 * 1024 * 1024},
       {"TB", 1e12},
       {"TiB", 1024.0 * 1024 * 1024 * 1024},
       {"kB", 1e3}}};
  auto sp  = split_number(text, "size", "4KiB");
  double v = scale_for(sp, text, "size", "4KiB", units);
  if (v != std::floor(v))
    throw UnitError{fmt::format("'{}' is not a whole number of bytes", text)};
  if (v > static_cast<double>(kMaxBytes))
    throw UnitError{fmt::format("'{}' is too large a size (at most 1 PiB)", text)};
  return Bytes{static_cast<std::uint64_t>(v)};
}

SimTime parse_time(std::string_view text)
{
  static constexpr std::array<std::pair<std::string_view, double>, 6> units{
      {{"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"µs", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12}}};
  auto sp = split_number(text, "duration", "500ns");
  if (sp.unit.empty()) {
    if (sp.value == 0)
      return SimTime::zero();
    throw UnitError{fmt::format("'{}' needs a time unit (s, ms, us, ns, ps), e.g. '500ns'", text)};
  }
  double s = scale_for(sp, text, "duration", "500ns", units);
  if (s > 9.0e6)
    throw UnitError{fmt::format("'{}' is too long a duration (at most 9e6 s)", text)};
  return SimTime::from_seconds(s);
}

BitsPerSecond parse_rate(std::string_view text)
{
  static constexpr std::array<std::pair<std::string_view, double>, 18> units{{{"bps", 1.0},
                                                                              {"Kbps", 1e3},
                                                                              {"kbps", 1e3},
                                                                              {"Mbps", 1e6},
                                                                              {"Gbps", 1e9},
                                                                              {"Tbps", 1e12},
                                                                              {"b/s", 1.0},
                                                                              {"Kb/s", 1e3},
                                                                              {"Mb/s", 1e6},
                                                                              {"Gb/s", 1e9},
                                                                              {"Tb/s", 1e12},
                                                                              {"B/s", 8.0},
                                                                              {"KB/s", 8e3},
                                                                              {"MB/s", 8e6},
                                                                              {"GB/s", 8e9},
                                                                              {"KiB/s", 8.0 * 1024},
                                                                              {"MiB/s", 8.0 * 1024 * 1024},
                                                                              {"GiB/s", 8.0 * 1024 * 1024 * 1024}}};
  auto sp = split_number(text, "rate", "100Gbps");
  if (sp.unit.empty())
    throw UnitError{fmt::format("'{}' needs a rate unit (bps, Mbps, Gbps, GB/s, ...), e.g. '100Gbps'", text)};
  double v = scale_for(sp, text, "rate", "100Gbps", units);
  if (!(v >= 1e3 && v <= 1e15)) // also catches an overflow to infinity
    throw UnitError{fmt::format("'{}' is out of range: rates run from 1 kb/s to 1 Pb/s (e.g. '100Gbps')", text)};
  return BitsPerSecond{v};
}

Hertz parse_frequency(std::string_view text)
{
  static constexpr std::array<std::pair<std::string_view, double>, 5> units{
      {{"Hz", 1.0}, {"kHz", 1e3}, {"KHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}}};
  auto sp = split_number(text, "frequency", "250MHz");
  if (sp.unit.empty())
    throw UnitError{fmt::format("'{}' needs a frequency unit (Hz, kHz, MHz, GHz), e.g. '250MHz'", text)};
  double v = scale_for(sp, text, "frequency", "250MHz", units);
  if (!(v >= 1e3 && v <= 1e12))
    throw UnitError{fmt::format("'{}' is out of range: clocks run from 1 kHz to 1 THz (e.g. '250MHz')", text)};
  return Hertz{v};
}

std::string format_bytes(Bytes b)
{
  static constexpr std::array<std::pair<std::string_view, std::uint64_t>, 4> units{
      {{"TiB", 1ULL << 40}, {"GiB", 1ULL << 30}, {"MiB", 1ULL << 20}, {"KiB", 1ULL << 10}}};
  for (auto const& [name, mult] : units)
    if (b.count >= mult && b.count % mult == 0)
      return fmt::format("{}{}", b.count / mult, name);
  return fmt::format("{}B", b.count);
}

std::string format_time(SimTime t)
{
  std::int64_t p = t.ps();
  if (p == 0)
    return "0s";
  double a = std::abs(static_cast<double>(p));
  if (a >= 1e12)
    return trim_number(static_cast<double>(p) * 1e-12) + "s";
  if (a >= 1e9)
    return trim_number(static_cast<double>(p) * 1e-9) + "ms";
  if (a >= 1e6)
    return trim_number(static_cast<double>(p) * 1e-6) + "us";
  if (a >= 1e3)
    return trim_number(static_cast<double>(p) * 1e-3) + "ns";
  return fmt::format("{}ps", p);
}

std::string format_rate(BitsPerSecond r)
{
  if (r.bps >= 1e12)
    return trim_number(r.bps * 1e-12) + "Tbps";
  if (r.bps >= 1e9)
    return trim_number(r.bps * 1e-9) + "Gbps";
  if (r.bps >= 1e6)
    return trim_number(r.bps * 1e-6) + "Mbps";
  if (r.bps >= 1e3)
    return trim_number(r.bps * 1e-3) + "Kbps";
  return trim_number(r.bps) + "bps";
}

std::string format_frequency(Hertz f)
{
  if (f.hz >= 1e9)
    return trim_number(f.hz * 1e-9) + "GHz";
  if (f.hz >= 1e6)
    return trim_number(f.hz * 1e-6) + "MHz";
  if (f.hz >= 1e3)
    return trim_number(f.hz * 1e-3) + "kHz";
  return trim_number(f.hz) + "Hz";
}

} // namespace nafsim
