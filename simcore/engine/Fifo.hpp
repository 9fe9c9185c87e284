#pragma once
// A first-in first-out queue on a ring buffer: no memory until the first element (std::deque allocates
// a 512-byte block and its map on construction, and a cluster holds several queues per port and per
// engine), grows by doubling, reuses its slots. For the simulator's per-port and per-engine queues.

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <memory>
#include <stdexcept>
#include <utility>

namespace nafsim {

template <class T> class Fifo {
public:
  Fifo() = default;
  Fifo(const Fifo& o) { *this = o; }
  Fifo(Fifo&& o) noexcept { swap(o); }
  Fifo& operator=(const Fifo& o)
  {
    if (this != &o) {
      clear();
      for (std::size_t i = 0; i < o.size_; ++i)
        push_back(o[i]);
    }
    return *this;
  }
  Fifo& operator=(Fifo&& o) noexcept
  {
    Fifo tmp(std::move(o));
    swap(tmp);
    return *this;
  }
  ~Fifo()
  {
    clear();
    if (buf_)
      std::allocator<T>().deallocate(buf_, cap_);
  }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  T& front() { return at_slot(head_); }
  const T& front() const { return at_slot(head_); }
  T& back() { return at_slot(head_ + size_ - 1); }
  const T& back() const { return at_slot(head_ + size_ - 1); }
  T& operator[](std::size_t i) { return at_slot(head_ + i); }
  const T& operator[](std::size_t i) const { return at_slot(head_ + i); }

  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  template <class... A> T& emplace_back(A&&... a)
  {
    if (size_ == cap_)
      grow();
    T* p = slot(head_ + size_);
    new (p) T(std::forward<A>(a)...);
    ++size_;
    return *p;
  }
  void pop_front()
  {
    assert(size_ > 0);
    slot(head_)->~T();
    head_ = (head_ + 1) & (cap_ - 1);
    --size_;
  }
  /// Take out the element at `i`, the ones behind it moving up one place (their order kept).
  void erase(std::size_t i)
  {
    assert(i < size_);
    for (std::size_t j = i; j + 1 < size_; ++j)
      (*this)[j] = std::move((*this)[j + 1]);
    slot(head_ + size_ - 1)->~T();
    --size_;
  }
  void clear()
  {
    while (size_ > 0)
      pop_front();
    head_ = 0;
  }
  void swap(Fifo& o) noexcept
  {
    std::swap(buf_, o.buf_);
    std::swap(cap_, o.cap_);
    std::swap(head_, o.head_);
    std::swap(size_, o.size_);
  }

  template <class Q, class V> class Iter {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type        = std::remove_const_t<V>;
    using difference_type   = std::ptrdiff_t;
    using pointer           = V*;
    using reference         = V&;
    Iter() = default;
    Iter(Q* q, std::size_t i) : q_(q), i_(i) {}
    V& operator*() const { return (*q_)[i_]; }
    V* operator->() const { return &(*q_)[i_]; }
    Iter& operator++()
    {
      ++i_;
      return *this;
    }
    Iter operator++(int)
    {
      Iter was = *this;
      ++i_;
      return was;
    }
    bool operator==(const Iter& o) const { return i_ == o.i_; }
    bool operator!=(const Iter& o) const { return i_ != o.i_; }

  private:
    Q* q_          = nullptr;
    std::size_t i_ = 0;
  };
  using iterator       = Iter<Fifo, T>;
  using const_iterator = Iter<const Fifo, const T>;
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

private:
  T* slot(std::size_t i) const { return buf_ + (i & (cap_ - 1)); }
  T& at_slot(std::size_t i) const
  {
    assert(size_ > 0);
    return *slot(i);
  }
  void grow()
  {
    if (cap_ >= (1u << 31))
      throw std::length_error("Fifo: more than 2^31 elements");
    const std::uint32_t cap = cap_ == 0 ? kFirst : cap_ * 2;
    T* to = std::allocator<T>().allocate(cap);
    for (std::size_t i = 0; i < size_; ++i) {
      T* from = slot(head_ + i);
      new (to + i) T(std::move(*from));
      from->~T();
    }
    if (buf_)
      std::allocator<T>().deallocate(buf_, cap_);
    buf_  = to;
    cap_  = cap;
    head_ = 0;
  }

  // The first block: one cache line's worth, at least one element (a power of two). A cluster holds a few queues per
  // queue pair, most of them never longer than one or two work requests (a 1,024-rank all-to-all: a million queue
  // pairs, where four elements each cost 14 % of the run's memory).
  static constexpr std::uint32_t kFirst = sizeof(T) >= 64 ? 1 : sizeof(T) >= 32 ? 2 : sizeof(T) >= 16 ? 4 : 16;
  // (32-bit: a queue of the simulator holds far fewer than 4 G elements, and a switch port's queue, in the port's hot
  // cache lines, is 8 bytes smaller)
  T* buf_ = nullptr;
  std::uint32_t cap_  = 0;
  std::uint32_t head_ = 0;
  std::uint32_t size_ = 0;
};

} // namespace nafsim
