#pragma once
// The firmware's rendezvous notification queues (ccl_offload_control.c): every address notice
// (RNDZV_INIT, also used by the barrier) and completion notice (WR_DONE) the Rx system parses is
// appended to STS_RNDZV in arrival order. A lookup (rendezvous_get_addr, _get_any_addr,
// _get_completion, _get_any_completion) first walks the entries set aside in STS_RNDZV_PENDING,
// putting back the ones that do not match, then pops STS_RNDZV, setting aside each non-matching
// entry, until it finds a match or STS_RNDZV is empty. Every entry it touches costs the
// micro-controller a few stream reads and writes: `take` counts them.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>

namespace nafsim::nodes {

struct RndzvNotice {
  enum class Type : std::uint8_t { Address = 2, Done = 3 }; ///< the firmware's notification types
  Type type          = Type::Address;
  std::uint32_t src  = 0; ///< sender host
  std::uint32_t tag  = 0; ///< 0: any (TAG_ANY, what collectives use)
  std::uint64_t addr = 0; ///< Address: where to write; Done: where the write landed
  std::uint64_t bytes = 0;
  unsigned transfers  = 1; ///< Address: sends it covers (schedules that announce a whole buffer once)
};

class RndzvQueue {
public:
  void push(const RndzvNotice& n) { arrived_.push_back(n); }

  /// The firmware's lookup for the first notice `match` accepts (removed from the queues); `examined`
  /// is increased by the entries touched (walked in the pending queue, or popped from the arrivals), `put_back` by
  /// the pending ones walked past and put back.
  template <class Match> std::optional<RndzvNotice> take(Match match, unsigned& examined, unsigned& put_back)
  {
    for (std::size_t i = 0, n = pending_.size(); i < n; ++i) {
      RndzvNotice e = pending_.front();
      pending_.pop_front();
      ++examined;
      if (match(e))
        return e;
      pending_.push_back(e);
      ++put_back;
    }
    while (!arrived_.empty()) {
      RndzvNotice e = arrived_.front();
      arrived_.pop_front();
      ++examined;
      if (match(e))
        return e;
      pending_.push_back(e);
    }
    return std::nullopt;
  }
  template <class Match> std::optional<RndzvNotice> take(Match match, unsigned& examined)
  {
    unsigned put_back = 0;
    return take(match, examined, put_back);
  }

  /// Whether some queued notice matches (no reordering, no cost: for diagnoses and the schedule
  /// executor, which models no queue walk).
  template <class Match> bool any(Match match) const
  {
    for (auto const& e : pending_)
      if (match(e))
        return true;
    for (auto const& e : arrived_)
      if (match(e))
        return true;
    return false;
  }

  /// Entries a lookup that finds nothing walks: the pending ones and the arrivals.
  std::size_t size() const { return pending_.size() + arrived_.size(); }
  bool empty() const { return size() == 0; }
  /// A short account of what is queued (diagnoses).
  std::string describe() const;

private:
  std::deque<RndzvNotice> arrived_; ///< STS_RNDZV
  std::deque<RndzvNotice> pending_; ///< STS_RNDZV_PENDING
};

} // namespace nafsim::nodes
