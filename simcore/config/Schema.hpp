#pragma once
// One table per configuration struct, used by the parser, by `nafsim params` and by the metadata
// writer (DESIGN.md section 7, rule 4). A config struct holds its defaults in member initializers
// and lists its fields once:
//
//   struct PortConfig {
//     BitsPerSecond rate{100e9};
//     template <class V> void describe(V& v) { v.field("rate", rate, "line rate of the port"); }
//   };
//
// Three visitors walk that table: Reader (JSON -> struct, with errors naming the file, the JSON
// path and what is allowed), Writer (struct -> JSON) and Lister (rows for `nafsim params`).

#include "simcore/config/ConfigError.hpp"
#include "simcore/config/Origins.hpp"
#include "simcore/units/Units.hpp"

#include <array>
#include <cmath>
#include <concepts>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace nafsim::config {

using Json = nlohmann::ordered_json;

/// Allowed range, in base units: bytes, seconds, bits/s, Hz, or the plain number.
struct Limits {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  static Limits at_least(double m) { return Limits{m, std::numeric_limits<double>::infinity()}; }
  static Limits between(double lo, double hi) { return Limits{lo, hi}; }
};

/// Specialize for each configurable enum:
///   template <> struct EnumNames<Mode> { static constexpr std::array list{std::pair{Mode::A, "a"}, ...}; };
template <class E> struct EnumNames;

template <class E>
concept NamedEnum = std::is_enum_v<E> && requires { EnumNames<E>::list; };

template <class E> const char* enum_name(E e)
{
  for (auto const& [v, n] : EnumNames<E>::list)
    if (v == e)
      return n;
  return "?";
}

template <class E> std::string enum_choices()
{
  std::string s;
  for (auto const& [v, n] : EnumNames<E>::list)
    s += (s.empty() ? "" : "|") + std::string(n);
  return s;
}

struct DescribeProbe {
  template <class T, class... R> void field(const char*, T&, R&&...) {}
};
template <class T>
concept Described = requires(T& t, DescribeProbe& p) { t.describe(p); };

/// A struct whose fields constrain each other (rto_max >= rto_initial, say) has `FieldProblem check() const`:
/// the Reader calls it after reading the struct and reports a non-empty message at that field's JSON path.
struct FieldProblem {
  std::string field;   ///< the key to blame, relative to the struct
  std::string message; ///< empty: no problem
};
template <class T>
concept SelfChecked = requires(const T& t) {
  { t.check() } -> std::same_as<FieldProblem>;
};

template <class T> struct IsVector : std::false_type {};
template <class T> struct IsVector<std::vector<T>> : std::true_type {
  using Elem = T;
};

/// Error raised by a codec; the Reader adds file and path.
struct ValueError {
  std::string message;
};

// ---- Codecs: how one value type is read, written, listed and range-checked. ----
template <class T> struct Codec;

template <> struct Codec<bool> {
  static bool read(const Json& j)
  {
    if (!j.is_boolean())
      throw ValueError{"expected true or false, got " + j.dump()};
    return j.get<bool>();
  }
  static Json write(bool v) { return v; }
  static std::string type() { return "bool"; }
  static double base(bool v) { return v ? 1 : 0; }
  static std::string format_base(double v) { return v != 0 ? "true" : "false"; }
};

template <std::integral T>
  requires(!std::same_as<T, bool>)
struct Codec<T> {
  static T read(const Json& j)
  {
    if (!j.is_number_integer())
      throw ValueError{"expected a whole number, got " + j.dump()};
    if constexpr (std::is_unsigned_v<T>) {
      if (j.is_number_unsigned()) {
        auto v = j.get<std::uint64_t>();
        if (v > std::numeric_limits<T>::max())
          throw ValueError{"value " + j.dump() + " is too large"};
        return static_cast<T>(v);
      }
      auto v = j.get<std::int64_t>();
      if (v < 0)
        throw ValueError{"expected a non-negative whole number, got " + j.dump()};
      if (static_cast<std::uint64_t>(v) > std::numeric_limits<T>::max())
        throw ValueError{"value " + j.dump() + " is too large"};
      return static_cast<T>(v);
    } else {
      auto v = j.get<std::int64_t>();
      if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())
        throw ValueError{"value " + j.dump() + " is out of range"};
      return static_cast<T>(v);
    }
  }
  static Json write(T v) { return v; }
  static std::string type() { return "integer"; }
  static double base(T v) { return static_cast<double>(v); }
  static std::string format_base(double v) { return Json(static_cast<std::int64_t>(v)).dump(); }
};

template <> struct Codec<double> {
  static double read(const Json& j)
  {
    if (!j.is_number())
      throw ValueError{"expected a number, got " + j.dump()};
    return j.get<double>();
  }
  static Json write(double v) { return v; }
  static std::string type() { return "number"; }
  static double base(double v) { return v; }
  static std::string format_base(double v) { return Json(v).dump(); }
};

template <> struct Codec<std::string> {
  static std::string read(const Json& j)
  {
    if (!j.is_string())
      throw ValueError{"expected a string, got " + j.dump()};
    return j.get<std::string>();
  }
  static Json write(const std::string& v) { return v; }
  static std::string type() { return "string"; }
};

/// Shared by the unit types: a JSON string parsed by the one unit parser.
template <class T, T (*Parse)(std::string_view), std::string (*Format)(T)> struct UnitCodec {
  static T read(const Json& j, const char* example)
  {
    if (!j.is_string())
      throw ValueError{"expected a string with a unit, e.g. \"" + std::string(example) + "\", got " + j.dump()};
    try {
      return Parse(j.get<std::string>());
    } catch (const UnitError& e) {
      throw ValueError{e.message};
    }
  }
  static Json write(T v) { return Format(v); }
};

template <> struct Codec<Bytes> {
  static Bytes read(const Json& j)
  {
    if (j.is_number_unsigned() || (j.is_number_integer() && j.get<std::int64_t>() >= 0)) {
      if (j.get<std::uint64_t>() > kMaxBytes)
        throw ValueError{j.dump() + " is too large a size (at most 1 PiB)"};
      return Bytes{j.get<std::uint64_t>()};
    }
    return UnitCodec<Bytes, parse_bytes, format_bytes>::read(j, "4KiB");
  }
  static Json write(Bytes v) { return format_bytes(v); }
  static std::string type() { return "size (e.g. 4KiB, 1500B, 2MB)"; }
  static double base(Bytes v) { return static_cast<double>(v.count); }
  static std::string format_base(double v) { return format_bytes(Bytes{static_cast<std::uint64_t>(v)}); }
};

template <> struct Codec<SimTime> {
  static SimTime read(const Json& j) { return UnitCodec<SimTime, parse_time, format_time>::read(j, "500ns"); }
  static Json write(SimTime v) { return format_time(v); }
  static std::string type() { return "duration (e.g. 500ns, 1.5us)"; }
  static double base(SimTime v) { return v.seconds(); }
  static std::string format_base(double v) { return format_time(SimTime::from_seconds(v)); }
};

template <> struct Codec<BitsPerSecond> {
  static BitsPerSecond read(const Json& j)
  {
    return UnitCodec<BitsPerSecond, parse_rate, format_rate>::read(j, "100Gbps");
  }
  static Json write(BitsPerSecond v) { return format_rate(v); }
  static std::string type() { return "rate (e.g. 100Gbps, 12GB/s)"; }
  static double base(BitsPerSecond v) { return v.bps; }
  static std::string format_base(double v) { return format_rate(BitsPerSecond{v}); }
};

template <> struct Codec<Hertz> {
  static Hertz read(const Json& j) { return UnitCodec<Hertz, parse_frequency, format_frequency>::read(j, "250MHz"); }
  static Json write(Hertz v) { return format_frequency(v); }
  static std::string type() { return "frequency (e.g. 250MHz)"; }
  static double base(Hertz v) { return v.hz; }
  static std::string format_base(double v) { return format_frequency(Hertz{v}); }
};

template <NamedEnum E> struct Codec<E> {
  static E read(const Json& j)
  {
    if (j.is_string())
      for (auto const& [v, n] : EnumNames<E>::list)
        if (j.get<std::string>() == n)
          return v;
    throw ValueError{"unknown value " + j.dump() + "; allowed: " + enum_choices<E>()};
  }
  static Json write(E v) { return enum_name(v); }
  static std::string type() { return "one of " + enum_choices<E>(); }
};

template <class T>
concept RangeChecked = requires(T v) { Codec<T>::base(v); };

std::string suggest_key(const std::string& key, const std::vector<std::string>& known);

// ---- Reader: JSON -> struct ----
class Reader {
public:
  Reader(const Json& obj, std::string pointer, const Origins& origins)
      : obj_(obj), ptr_(std::move(pointer)), origins_(origins)
  {
  }

  /// Parse `j` (which must be an object) into `out`, keeping defaults for absent keys.
  template <Described T> static void read(const Json& j, T& out, const std::string& pointer, const Origins& origins)
  {
    if (!j.is_object())
      throw ConfigError(origins.of(pointer), pointer.empty() ? "/" : pointer,
                        "expected an object ({...}), got " + j.dump());
    Reader r(j, pointer, origins);
    out.describe(r);
    r.finish();
    if constexpr (SelfChecked<T>)
      if (FieldProblem pr = std::as_const(out).check(); !pr.message.empty()) {
        const std::string p = pointer + "/" + pr.field;
        throw ConfigError(origins.of(p), p, pr.message);
      }
  }

  template <class T> void field(const char* name, T& member, const char* /*doc*/, Limits lim = {})
  {
    known_.emplace_back(name);
    auto it = obj_.find(name);
    if (it == obj_.end())
      return;
    std::string p = ptr_ + "/" + name;
    read_value(*it, member, p, lim);
  }

  void finish() const
  {
    for (auto it = obj_.begin(); it != obj_.end(); ++it) {
      bool ok = false;
      for (auto const& k : known_)
        ok = ok || (k == it.key());
      if (!ok) {
        std::string allowed;
        for (auto const& k : known_)
          allowed += (allowed.empty() ? "" : ", ") + k;
        std::string p = ptr_ + "/" + it.key();
        throw ConfigError(origins_.of(p), p,
                          "unknown key '" + it.key() + "'" + suggest_key(it.key(), known_) +
                              "; allowed keys here: " + allowed + " (see `nafsim params`)");
      }
    }
  }

private:
  template <class T> void read_value(const Json& j, T& member, const std::string& p, Limits lim)
  {
    if constexpr (Described<T>) {
      read(j, member, p, origins_);
    } else if constexpr (IsVector<T>::value) {
      if (!j.is_array()) {
        // (--set takes a value that is not JSON as a text: a list of unquoted texts, [4KiB], arrives as one)
        const bool unquoted = j.is_string() && !j.get_ref<const std::string&>().empty() &&
                              j.get_ref<const std::string&>().front() == '[';
        throw ConfigError(origins_.of(p), p,
                          "expected a list ([...]), got " + j.dump() +
                              (unquoted ? ": a list is JSON, so its texts are quoted, e.g. '[\"4KiB\", \"1MiB\"]' "
                                          "on the command line"
                                        : ""));
      }
      T out;
      for (std::size_t i = 0; i < j.size(); ++i) {
        typename IsVector<T>::Elem e{};
        read_value(j[i], e, p + "/" + std::to_string(i), lim);
        out.push_back(std::move(e));
      }
      member = std::move(out);
    } else {
      try {
        T v = Codec<T>::read(j);
        if constexpr (RangeChecked<T>) {
          double b = Codec<T>::base(v);
          if (b < lim.min || b > lim.max)
            throw ValueError{"value " + j.dump() + " is out of range; allowed: " + range_text<T>(lim)};
        }
        member = v;
      } catch (const ValueError& e) {
        throw ConfigError(origins_.of(p), p, e.message);
      }
    }
  }

  template <class T> static std::string range_text(Limits lim)
  {
    bool lo = std::isfinite(lim.min);
    bool hi = std::isfinite(lim.max);
    if (lo && hi)
      return Codec<T>::format_base(lim.min) + " to " + Codec<T>::format_base(lim.max);
    if (lo)
      return "at least " + Codec<T>::format_base(lim.min);
    return "at most " + Codec<T>::format_base(lim.max);
  }

  const Json& obj_;
  std::string ptr_;
  const Origins& origins_;
  std::vector<std::string> known_;
};

// ---- Writer: struct -> JSON (the resolved configuration written into metadata.json) ----
class Writer {
public:
  template <Described T> static Json write(T& in)
  {
    Writer w;
    in.describe(w);
    return std::move(w.out_);
  }
  template <class T> void field(const char* name, T& member, const char* /*doc*/, Limits /*lim*/ = {})
  {
    out_[name] = value(member);
  }

  /// JSON form of any configurable value.
  template <class T> static Json value(T& member)
  {
    if constexpr (Described<T>) {
      return write(member);
    } else if constexpr (IsVector<T>::value) {
      Json a = Json::array();
      for (auto& e : member)
        a.push_back(value(e));
      return a;
    } else {
      return Codec<T>::write(member);
    }
  }

private:
  Json out_ = Json::object();
};

// ---- Lister: rows for `nafsim params` ----
struct ParamRow {
  std::string path;
  std::string type;
  std::string default_value;
  std::string meaning;
};

class Lister {
public:
  Lister(std::vector<ParamRow>& rows, std::string prefix) : rows_(rows), prefix_(std::move(prefix)) {}
  template <Described T> static void list(T& defaults, const std::string& prefix, std::vector<ParamRow>& rows)
  {
    Lister l(rows, prefix);
    defaults.describe(l);
  }
  template <class T> void field(const char* name, T& member, const char* doc, Limits lim = {})
  {
    std::string path = prefix_.empty() ? std::string(name) : prefix_ + "." + name;
    if constexpr (Described<T>) {
      list(member, path, rows_);
    } else if constexpr (IsVector<T>::value) {
      using E = typename IsVector<T>::Elem;
      if constexpr (Described<E>) {
        rows_.push_back({path, "list of objects", Writer::value(member).dump(), doc});
        E proto{};
        list(proto, path + "[]", rows_);
      } else {
        rows_.push_back({path, "list of " + Codec<E>::type(), Writer::value(member).dump(), doc});
      }
    } else {
      std::string type = Codec<T>::type();
      if constexpr (RangeChecked<T>) {
        if (std::isfinite(lim.min) || std::isfinite(lim.max))
          type += range_suffix<T>(lim);
      }
      Json v = Codec<T>::write(member);
      rows_.push_back({path, type, v.is_string() ? v.get<std::string>() : v.dump(), doc});
    }
  }

private:
  template <class T> static std::string range_suffix(Limits lim)
  {
    std::string s = " [";
    s += std::isfinite(lim.min) ? Codec<T>::format_base(lim.min) : "";
    s += "..";
    s += std::isfinite(lim.max) ? Codec<T>::format_base(lim.max) : "";
    return s + "]";
  }
  std::vector<ParamRow>& rows_;
  std::string prefix_;
};

} // namespace nafsim::config
