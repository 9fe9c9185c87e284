#pragma once
// Strong unit types used at every interface (DESIGN.md section 7, rule 3).
// Simulated time is an integer count of picoseconds (SimTime): packet trains, pipelines and
// closed-form checks then add up exactly, and results are bit-reproducible.

#include <cstdint>
#include <compare>
#include <stdexcept>
#include <limits>
#include <string>
#include <string_view>

namespace nafsim {

/// A time beyond the simulator's clock (int64 picoseconds: about 106 days), e.g. a huge transfer at a tiny
/// rate: the run cannot represent it and fails (exit 3).
class TimeRangeError : public std::range_error {
public:
  using std::range_error::range_error;
};

/// A duration or a date in simulated time, in integer picoseconds.
class SimTime {
public:
  constexpr SimTime() = default;
  static constexpr SimTime ps(std::int64_t v) { return SimTime{v}; }
  static constexpr SimTime ns(double v) { return from_seconds(v * 1e-9); }
  static constexpr SimTime us(double v) { return from_seconds(v * 1e-6); }
  static constexpr SimTime from_seconds(double s)
  {
    double p = s * 1e12;
    if (!(p > -9.2e18 && p < 9.2e18))
      throw TimeRangeError("a duration of " + std::to_string(s) +
                           " s is beyond the simulator's clock (about 106 days in picoseconds): a size or a count "
                           "too large for the rates and clocks it goes through");
    return SimTime{static_cast<std::int64_t>(p < 0 ? p - 0.5 : p + 0.5)};
  }
  static constexpr SimTime max() { return SimTime{std::numeric_limits<std::int64_t>::max()}; }
  static constexpr SimTime zero() { return SimTime{0}; }

  constexpr std::int64_t ps() const { return ps_; }
  constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
  constexpr double us() const { return static_cast<double>(ps_) * 1e-6; }
  constexpr double ns() const { return static_cast<double>(ps_) * 1e-3; }

  constexpr SimTime operator+(SimTime o) const { return SimTime{ps_ + o.ps_}; }
  constexpr SimTime operator-(SimTime o) const { return SimTime{ps_ - o.ps_}; }
  constexpr SimTime& operator+=(SimTime o) { ps_ += o.ps_; return *this; }
  constexpr SimTime& operator-=(SimTime o) { ps_ -= o.ps_; return *this; }
  constexpr SimTime operator*(std::int64_t k) const { return SimTime{ps_ * k}; }
  constexpr auto operator<=>(const SimTime&) const = default;

private:
  constexpr explicit SimTime(std::int64_t v) : ps_(v) {}
  std::int64_t ps_ = 0;
};

/// The largest size a parameter may have (1 PiB): beyond any memory nafsim models, and far from overflow.
inline constexpr std::uint64_t kMaxBytes = 1ULL << 50;

/// An amount of data in bytes.
struct Bytes {
  std::uint64_t count = 0;
  constexpr Bytes() = default;
  constexpr explicit Bytes(std::uint64_t c) : count(c) {}
  constexpr Bytes operator+(Bytes o) const { return Bytes{count + o.count}; }
  constexpr Bytes operator-(Bytes o) const { return Bytes{count - o.count}; }
  constexpr Bytes& operator+=(Bytes o) { count += o.count; return *this; }
  constexpr Bytes& operator-=(Bytes o) { count -= o.count; return *this; }
  constexpr auto operator<=>(const Bytes&) const = default;
};

/// A data rate in bits per second.
struct BitsPerSecond {
  double bps = 0;
  constexpr BitsPerSecond() = default;
  constexpr explicit BitsPerSecond(double v) : bps(v) {}
  constexpr auto operator<=>(const BitsPerSecond&) const = default;
};

/// A clock frequency.
struct Hertz {
  double hz = 0;
  constexpr Hertz() = default;
  constexpr explicit Hertz(double v) : hz(v) {}
  constexpr auto operator<=>(const Hertz&) const = default;
};

/// A number of clock cycles of some clock.
struct Cycles {
  std::uint64_t count = 0;
  constexpr Cycles() = default;
  constexpr explicit Cycles(std::uint64_t c) : count(c) {}
  constexpr auto operator<=>(const Cycles&) const = default;
};

/// Time to serialize `b` bytes at rate `r`, rounded to the nearest picosecond.
SimTime transmit_time(Bytes b, BitsPerSecond r);
/// The same by a 128-bit division every time (transmit_time prepares recent rates as LineRates, equal to it).
SimTime transmit_time_divided(Bytes b, BitsPerSecond r);
/// Duration of `c` cycles of a clock at `f`, rounded to the nearest picosecond.
SimTime cycles_time(Cycles c, Hertz f);
/// A rate prepared for repeated serialization times: picoseconds per byte as an exact fraction
/// num/den when the rate is a whole number of bits per second (every preset), so that
/// time_for() is 64-bit integer arithmetic and equals transmit_time() exactly.
class LineRate {
public:
  LineRate() = default;
  explicit LineRate(BitsPerSecond r);
  /// Whether time_for(b) is the multiplication (else it divides).
  bool exact(Bytes b) const { return den_ != 0 && b.count < limit_; }
  SimTime time_for(Bytes b) const
  {
    if (den_ != 0 && b.count < limit_) { // (b * num + den / 2) / den, the division as a multiplication (below)
      __extension__ using U128 = unsigned __int128;
      return SimTime::ps(static_cast<std::int64_t>((U128{b.count * num_ + den_ / 2} * mul_) >> shift_));
    }
    return transmit_time_divided(b, rate_);
  }
  BitsPerSecond rate() const { return rate_; }

private:
  std::uint64_t num_   = 0;
  std::uint64_t den_   = 0; ///< 0: no exact fraction, use transmit_time()
  // Division by the invariant den_ as a multiplication and a shift, exact for numerators below 2^63 (Granlund and
  // Montgomery, "Division by invariant integers using multiplication", PLDI 1994, theorem 4.2, with N = 63):
  // mul_ = ceil(2^shift_ / den_), shift_ = 63 + ceil(log2 den_) (a 64-bit division takes tens of cycles, and a
  // packet's hop computes two or three serialization times).
  std::uint64_t mul_   = 0;
  std::uint32_t limit_ = 0; ///< byte counts below it keep the numerator under 2^63 (at most 2^32 - 1: a packet's)
  std::uint32_t shift_ = 0;
  BitsPerSecond rate_; // (last: the fields above are what time_for reads)
};
/// Bytes per second as a rate.
constexpr BitsPerSecond bytes_per_second(double bytes_per_s) { return BitsPerSecond{bytes_per_s * 8.0}; }

// ---- The one place where unit strings are parsed (DESIGN.md section 7, rule 3). ----
// Each parser throws UnitError with a message saying what was expected.
struct UnitError {
  std::string message;
};
Bytes parse_bytes(std::string_view text);            // "4096", "4KiB", "1.5MB", "4 MiB"
SimTime parse_time(std::string_view text);           // "500ns", "1.5us", "2ms", "0s"
BitsPerSecond parse_rate(std::string_view text);     // "100Gbps", "25 Gb/s", "12.5GB/s"
Hertz parse_frequency(std::string_view text);        // "250MHz", "1.2GHz"

// Human-readable forms, stable across runs (used in stdout summaries and `nafsim params`).
std::string format_bytes(Bytes b);
std::string format_time(SimTime t);
std::string format_rate(BitsPerSecond r);
std::string format_frequency(Hertz f);

} // namespace nafsim
