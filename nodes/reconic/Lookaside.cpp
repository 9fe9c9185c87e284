#include "nodes/reconic/Lookaside.hpp"

#include <cstring>
#include <fmt/format.h>

namespace nafsim::nodes {

std::string LookasideMatmul::check(unsigned rows, unsigned inner, unsigned cols) const
{
  for (unsigned d : {rows, inner, cols})
    if (d == 0 || d > cfg_.array)
      return fmt::format("matrix dimensions {} x {} times {} x {} do not fit the {} x {} systolic array (each from 1 "
                         "to {})",
                         rows, inner, inner, cols, cfg_.array, cfg_.array, cfg_.array);
  return {};
}

MatmulRun LookasideMatmul::run(MemorySystem& mem, MemoryImage* image, SimTime start, std::uint64_t a, std::uint64_t b,
                               std::uint64_t c, unsigned rows, unsigned inner, unsigned cols) const
{
  // The kernel moves whole array x array tiles (mmult.cpp copies MAX_SIZE x MAX_SIZE ints each way), on one AXI
  // port: A, then B, then (after the systolic loop) C.
  const Bytes tile{std::uint64_t{cfg_.array} * cfg_.array * 4};
  MatmulRun r;
  r.started     = start;
  SimTime a_in  = mem.read(Engine::Op0Read, start, a, tile, MemorySystem::kNoCap).last;
  r.inputs_read = mem.read(Engine::Op0Read, a_in, b, tile, MemorySystem::kNoCap).last;
  r.computed    = r.inputs_read + SimTime::from_seconds((inner + cfg_.pipeline_cycles) / clock_.hz);
  r.finished    = mem.write(Engine::ResWrite, r.computed, c, tile, MemorySystem::kNoCap).last;
  if (image) { // values: row stride `array` (the kernel copies whole tiles); C's unused cells are 0, as localC's
    const std::uint64_t n = cfg_.array;
    auto A = image->read(a, n * n * 4), B = image->read(b, n * n * 4);
    std::vector<std::byte> C(n * n * 4);
    auto at = [](const std::vector<std::byte>& m, std::uint64_t i) {
      std::int32_t v;
      std::memcpy(&v, m.data() + 4 * i, 4);
      return v;
    };
    for (unsigned i = 0; i < rows; ++i)
      for (unsigned j = 0; j < cols; ++j) {
        std::uint32_t sum = 0; // the int32 datapath wraps (two's complement)
        for (unsigned k = 0; k < inner; ++k)
          sum += static_cast<std::uint32_t>(at(A, i * n + k)) * static_cast<std::uint32_t>(at(B, k * n + j));
        std::memcpy(C.data() + 4 * (i * n + j), &sum, 4);
      }
    image->write(c, C);
  }
  return r;
}

} // namespace nafsim::nodes
