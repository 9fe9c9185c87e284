#pragma once
// The CCLO's streaming plugins as functions on real bytes (ACCL+ section 4.1): the reduction plugin
// (sum / max of two operand streams, element-wise, over fp16/fp32/fp64/int32/int64) and the
// compression plugins (fp32 <-> fp16). The timed model charges their throughput in the data mover;
// these compute what they output when a run carries real data (DataPlane).

#include "protocols/collectives/Schedule.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace nafsim::nodes {

enum class DataType : std::uint8_t { Float16, Float32, Float64, Int32, Int64 };

/// (inline: the data mover asks it several times per move)
constexpr unsigned dtype_bytes(DataType t)
{
  switch (t) {
    case DataType::Float16: return 2;
    case DataType::Float32:
    case DataType::Int32: return 4;
    case DataType::Float64:
    case DataType::Int64: return 8;
  }
  return 4;
}
const char* dtype_name(DataType t);

/// IEEE 754 binary16 <-> binary32; float_to_half rounds to nearest, ties to even (overflow -> inf).
float half_to_float(std::uint16_t h);
std::uint16_t float_to_half(float f);

/// out[i] = func(a[i], b[i]) over `t` elements; spans hold whole elements, out may alias a or b.
/// fp16 elements are combined in fp32 and rounded back to fp16, as the plugin's fp16 datapath.
void reduce(coll::ReduceFunc func, DataType t, std::span<const std::byte> a, std::span<const std::byte> b,
            std::span<std::byte> out);

/// fp32 -> fp16 (out holds half as many bytes) and back.
void compress_fp32(std::span<const std::byte> in, std::span<std::byte> out);
void decompress_fp16(std::span<const std::byte> in, std::span<std::byte> out);

/// Element `i` of a buffer of type `t` as a double (for messages and checks).
double element_value(DataType t, std::span<const std::byte> buf, std::uint64_t i);
/// Store `v` (exactly representable in `t`) as element `i`.
void set_element(DataType t, std::span<std::byte> buf, std::uint64_t i, double v);

} // namespace nafsim::nodes
