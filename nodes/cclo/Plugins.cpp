#include "nodes/cclo/Plugins.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace nafsim::nodes {

const char* dtype_name(DataType t)
{
  switch (t) {
    case DataType::Float16: return "float16";
    case DataType::Float32: return "float32";
    case DataType::Float64: return "float64";
    case DataType::Int32: return "int32";
    case DataType::Int64: return "int64";
  }
  return "?";
}

float half_to_float(std::uint16_t h)
{
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  std::uint32_t exp        = (h >> 10) & 0x1F;
  std::uint32_t man        = h & 0x3FF;
  std::uint32_t bits;
  if (exp == 0x1F) { // inf / NaN
    bits = sign | 0x7F800000 | (man << 13);
  } else if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else { // subnormal: normalize
      int e = -1;
      do {
        ++e;
        man <<= 1;
      } while ((man & 0x400) == 0);
      bits = sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((man & 0x3FF) << 13);
    }
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  return std::bit_cast<float>(bits);
}

std::uint16_t float_to_half(float f)
{
  const std::uint32_t x    = std::bit_cast<std::uint32_t>(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000);
  const std::uint32_t exp  = (x >> 23) & 0xFF;
  std::uint32_t man        = x & 0x7FFFFF;
  if (exp == 0xFF) // inf / NaN (keep NaN quiet and non-zero)
    return static_cast<std::uint16_t>(sign | 0x7C00 | (man ? 0x200 | (man >> 13) : 0));
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 0x1F)
    return static_cast<std::uint16_t>(sign | 0x7C00);
  if (e <= 0) { // subnormal half (or zero)
    if (e < -10)
      return sign;
    man |= 0x800000;
    const unsigned shift = static_cast<unsigned>(14 - e);
    std::uint32_t h      = man >> shift;
    const std::uint32_t rem  = man & ((1u << shift) - 1);
    const std::uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1)))
      ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  std::uint32_t h         = (static_cast<std::uint32_t>(e) << 10) | (man >> 13);
  const std::uint32_t rem = man & 0x1FFF;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
    ++h; // may carry into the exponent, up to inf: correct rounding
  return static_cast<std::uint16_t>(sign | h);
}

namespace {

template <class T> T load(const std::byte* p)
{
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T> void store(std::byte* p, T v)
{
  std::memcpy(p, &v, sizeof v);
}

template <class T> T combine(coll::ReduceFunc f, T a, T b)
{
  if (f == coll::ReduceFunc::Max)
    return std::max(a, b);
  if constexpr (std::is_integral_v<T>) { // two's-complement wrap, as the hardware adder
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

template <class T>
void reduce_as(coll::ReduceFunc f, std::span<const std::byte> a, std::span<const std::byte> b, std::span<std::byte> out)
{
  for (std::size_t i = 0; i + sizeof(T) <= out.size(); i += sizeof(T))
    store<T>(out.data() + i, combine<T>(f, load<T>(a.data() + i), load<T>(b.data() + i)));
}

} // namespace

void reduce(coll::ReduceFunc func, DataType t, std::span<const std::byte> a, std::span<const std::byte> b,
            std::span<std::byte> out)
{
  if (a.size() < out.size() || b.size() < out.size() || out.size() % dtype_bytes(t) != 0)
    throw std::logic_error("reduction plugin: operand streams shorter than the result");
  switch (t) {
    case DataType::Float16:
      for (std::size_t i = 0; i + 2 <= out.size(); i += 2) {
        float x = half_to_float(load<std::uint16_t>(a.data() + i));
        float y = half_to_float(load<std::uint16_t>(b.data() + i));
        store<std::uint16_t>(out.data() + i, float_to_half(combine(func, x, y)));
      }
      break;
    case DataType::Float32: reduce_as<float>(func, a, b, out); break;
    case DataType::Float64: reduce_as<double>(func, a, b, out); break;
    case DataType::Int32: reduce_as<std::int32_t>(func, a, b, out); break;
    case DataType::Int64: reduce_as<std::int64_t>(func, a, b, out); break;
  }
}

void compress_fp32(std::span<const std::byte> in, std::span<std::byte> out)
{
  for (std::size_t i = 0; i * 2 + 2 <= out.size() && i * 4 + 4 <= in.size(); ++i)
    store<std::uint16_t>(out.data() + 2 * i, float_to_half(load<float>(in.data() + 4 * i)));
}

void decompress_fp16(std::span<const std::byte> in, std::span<std::byte> out)
{
  for (std::size_t i = 0; i * 4 + 4 <= out.size() && i * 2 + 2 <= in.size(); ++i)
    store<float>(out.data() + 4 * i, half_to_float(load<std::uint16_t>(in.data() + 2 * i)));
}

double element_value(DataType t, std::span<const std::byte> buf, std::uint64_t i)
{
  const std::byte* p = buf.data() + i * dtype_bytes(t);
  switch (t) {
    case DataType::Float16: return half_to_float(load<std::uint16_t>(p));
    case DataType::Float32: return load<float>(p);
    case DataType::Float64: return load<double>(p);
    case DataType::Int32: return load<std::int32_t>(p);
    case DataType::Int64: return static_cast<double>(load<std::int64_t>(p));
  }
  return 0;
}

void set_element(DataType t, std::span<std::byte> buf, std::uint64_t i, double v)
{
  std::byte* p = buf.data() + i * dtype_bytes(t);
  switch (t) {
    case DataType::Float16: store<std::uint16_t>(p, float_to_half(static_cast<float>(v))); break;
    case DataType::Float32: store<float>(p, static_cast<float>(v)); break;
    case DataType::Float64: store<double>(p, v); break;
    case DataType::Int32: store<std::int32_t>(p, static_cast<std::int32_t>(v)); break;
    case DataType::Int64: store<std::int64_t>(p, static_cast<std::int64_t>(v)); break;
  }
}

} // namespace nafsim::nodes
