#pragma once
// The transport's header carried in a packet: a value of any copyable type of up to kCapacity bytes,
// stored inside the packet. Packets are made at millions per second; std::any keeps anything larger
// than a pointer on the heap, one allocation and one free per packet (about a tenth of a run's time
// in a 64-rank eager allreduce). A type that does not fit is a compile-time error, never a silent
// allocation.

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace nafsim::net {

class PacketBody {
public:
  static constexpr std::size_t kCapacity = 112; // the largest today: a RoCE request packet (104 B with its variant index)

  PacketBody() = default;
  PacketBody(const PacketBody& o)
  {
    if (o.ops_) {
      o.ops_->copy(buf_, o.buf_);
      ops_ = o.ops_; // only once the copy exists: a copy that throws leaves this body empty
    }
  }
  PacketBody(PacketBody&& o) noexcept
  {
    if (o.ops_) {
      take(o);
    }
  }
  PacketBody& operator=(const PacketBody& o)
  {
    if (this != &o) {
      reset();
      if (o.ops_)
        o.ops_->copy(buf_, o.buf_);
      ops_ = o.ops_;
    }
    return *this;
  }
  PacketBody& operator=(PacketBody&& o) noexcept
  {
    if (this != &o) {
      reset();
      if (o.ops_)
        take(o);
    }
    return *this;
  }
  ~PacketBody() { reset(); }

  template <class T, class D = std::decay_t<T>>
    requires(!std::is_same_v<D, PacketBody>)
  PacketBody& operator=(T&& value)
  {
    static_assert(sizeof(D) <= kCapacity, "packet body too large: raise PacketBody::kCapacity or shrink the header");
    static_assert(alignof(D) <= alignof(std::max_align_t), "packet body over-aligned");
    static_assert(std::is_copy_constructible_v<D>, "packet bodies are copied (duplication faults)");
    reset();
    ::new (static_cast<void*>(buf_)) D(std::forward<T>(value));
    ops_ = &kOps<D>;
    return *this;
  }

  bool has_value() const { return ops_ != nullptr; }
  template <class T> bool holds() const { return ops_ == &kOps<T>; }
  /// The body if it is a T, else nullptr.
  template <class T> T* get() { return holds<T>() ? std::launder(reinterpret_cast<T*>(buf_)) : nullptr; }
  template <class T> const T* get() const
  {
    return holds<T>() ? std::launder(reinterpret_cast<const T*>(buf_)) : nullptr;
  }
  void reset() noexcept
  {
    if (ops_) {
      if (!ops_->trivial)
        ops_->destroy(buf_);
      ops_ = nullptr;
    }
  }

private:
  struct Ops {
    void (*copy)(void* to, const void* from);
    void (*move)(void* to, void* from) noexcept;
    void (*destroy)(void* p) noexcept;
    bool trivial; ///< trivially copyable (every wire format today): moved as bytes, nothing to destroy
  };
  template <class T>
  static constexpr Ops kOps = {
      [](void* to, const void* from) { ::new (to) T(*static_cast<const T*>(from)); },
      [](void* to, void* from) noexcept { ::new (to) T(std::move(*static_cast<T*>(from))); },
      [](void* p) noexcept { static_cast<T*>(p)->~T(); },
      std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
  };
  /// Move `o`'s body here (this one is empty) and empty `o`. A packet's body moves four or five times on its way
  /// (pulled, pooled, released, queued at the receiver): bytes for a trivially copyable one, not two indirect calls.
  void take(PacketBody& o) noexcept
  {
    if (o.ops_->trivial)
      std::memcpy(buf_, o.buf_, kCapacity);
    else {
      o.ops_->move(buf_, o.buf_);
      o.ops_->destroy(o.buf_);
    }
    ops_   = o.ops_;
    o.ops_ = nullptr;
  }

  alignas(std::max_align_t) unsigned char buf_[kCapacity];
  const Ops* ops_ = nullptr;
};

} // namespace nafsim::net
