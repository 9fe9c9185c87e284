#pragma once
// Portals 4 counting events, triggered operations and memory descriptors (PAC paper sections 2.3, 2.4,
// 3.3.1), and the buddy allocator PAC keeps unexpected payloads in (3.2.5). Engine-free: operations
// that fire are handed back to the caller, which performs them.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace nafsim::portals {

/// An operation waiting on a counting event (PtlTriggeredPut / PtlTriggeredGet / PtlTriggeredCTInc).
struct TriggeredOp {
  enum class Kind { Put, Get, CtInc };
  Kind kind              = Kind::Get;
  std::int32_t ct        = -1;  ///< the counting event it waits on
  std::uint64_t threshold = 0; ///< fires when the event's success count reaches this
  std::uint64_t user     = 0;   ///< the caller's description of the operation
  std::int32_t target_ct = -1;  ///< CtInc: the event it increments
  std::uint64_t increment = 1;  ///< CtInc: by how much
};

/// The counting-event table (PAC: 512) with the triggered operations hanging on it.
class CountingEvents {
public:
  explicit CountingEvents(unsigned capacity = 512) : capacity_(capacity) {}
  /// PtlCTAlloc: a free event (nullopt: the table is full).
  std::optional<std::int32_t> alloc();
  void free(std::int32_t ct);
  /// Add to an event's success (or failure) count. Returns the triggered operations that fire, in the
  /// order they were registered (a CtInc that fires is applied at once, and may fire more).
  std::vector<TriggeredOp> inc(std::int32_t ct, std::uint64_t n = 1, bool failure = false);
  /// PtlCTSet.
  std::vector<TriggeredOp> set(std::int32_t ct, std::uint64_t success);
  /// Register a triggered operation; one whose threshold is already reached fires at once (returned).
  std::vector<TriggeredOp> trigger(const TriggeredOp& op);
  std::uint64_t success(std::int32_t ct) const;
  std::uint64_t failure(std::int32_t ct) const;
  std::size_t pending() const;
  std::size_t in_use() const { return events_.size(); }

private:
  struct Event {
    std::uint64_t success = 0, failure = 0;
    std::multimap<std::uint64_t, std::pair<std::uint64_t, TriggeredOp>> waiting; ///< threshold -> (order, op)
  };
  Event& at(std::int32_t ct);
  const Event& at(std::int32_t ct) const;
  std::vector<TriggeredOp> fire(std::int32_t ct);
  unsigned capacity_;
  std::map<std::int32_t, Event> events_;
  std::uint64_t order_ = 0;
};

/// A memory descriptor (PtlMDBind): an initiator's registered region.
struct MemoryDescriptor {
  std::uint64_t start  = 0;
  std::uint64_t length = 0;
  std::int32_t ct      = -1; ///< counts the operations it initiates (sends done, replies arrived)
};

/// The memory-descriptor table (PAC: 256).
class MdTable {
public:
  explicit MdTable(unsigned capacity = 256) : capacity_(capacity) {}
  std::optional<std::int32_t> bind(const MemoryDescriptor& md);
  void release(std::int32_t md);
  const MemoryDescriptor& at(std::int32_t md) const;
  std::size_t in_use() const { return mds_.size(); }

private:
  unsigned capacity_;
  std::map<std::int32_t, MemoryDescriptor> mds_;
};

/// Binary buddy allocator (Knuth, TAOCP 1, 2.5): blocks of 2^k * min_block bytes in a store of
/// 2^levels * min_block. Allocation rounds up to a power of two; freeing merges buddies.
class BuddyAllocator {
public:
  BuddyAllocator(std::uint64_t store_bytes, std::uint64_t min_block);
  /// An offset into the store, or nullopt when no block is large enough.
  std::optional<std::uint64_t> allocate(std::uint64_t bytes);
  void free(std::uint64_t offset);
  std::uint64_t free_bytes() const;
  std::uint64_t largest_free() const;
  /// Block splits and merges done (what a hardware allocator spends cycles on).
  std::uint64_t operations() const { return ops_; }

private:
  unsigned order_for(std::uint64_t bytes) const;
  std::uint64_t store_, min_;
  unsigned levels_;
  std::vector<std::set<std::uint64_t>> free_; ///< per order: offsets of free blocks
  std::map<std::uint64_t, unsigned> used_;     ///< offset -> order
  std::uint64_t ops_ = 0;
};

} // namespace nafsim::portals
