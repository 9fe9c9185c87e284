#pragma once
// Portals 4 matching at a target, as the PAC paper's list manager keeps it (section 2.2, 3.2.4): one pool
// of equally sized entries (512 x 32 B in the paper) holds three lists,
//   - priority (PR): the receives the application has posted (PtlMEAppend),
//   - overflow (OF): buffers for the payloads of unexpected messages (each with a local offset that
//     advances as messages land in it),
//   - unexpected (UM): the headers of messages that matched no PR entry and were put in an OF buffer.
// An arriving message searches PR, then OF (its payload lands in the first OF entry it matches, its
// header is appended to UM); PtlMEAppend first searches UM (the message came before the receive). A
// match follows Portals: the source (or any), the match bits outside the entry's ignore bits, and the
// first matching entry in list order. With hashing on the source (Mattheakis and Papaefstathiou
// 2013), each list is kept per source bucket, plus the entries that accept any source; a search visits
// one bucket and the wildcards, and takes whichever matching entry is first in list order, so the
// result is the linear search's. Every walk counts the entries it visits: that is what the timing
// models (software, PAC) charge.
//
// Engine-free: no clock, no payload bytes. The caller moves the data the results describe.

#include <cstdint>
#include <deque>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace nafsim::portals {

using ProcessId = std::int32_t;
inline constexpr ProcessId kAnySource = -1;
using MatchBits = std::uint64_t;

/// What a message header carries for matching and placement.
struct Header {
  ProcessId source        = 0;
  MatchBits match_bits    = 0;
  std::uint64_t length    = 0; ///< bytes of the message this header belongs to
  std::uint64_t carried   = 0; ///< bytes that came with it (the rest is fetched later: rendezvous)
  std::uint64_t remote_offset = 0;
  std::uint64_t hdr_data  = 0;
  std::uint64_t msg       = 0; ///< the sender's identity for the message (not matched on)
};

/// A match-list entry (PtlMEAppend's ptl_me_t, the fields the lists use).
struct MatchEntry {
  ProcessId source      = kAnySource;
  MatchBits match_bits  = 0;
  MatchBits ignore_bits = 0;
  std::uint64_t start   = 0; ///< where its buffer is
  std::uint64_t length  = 0;
  bool use_once         = true;  ///< unlinked after its first match
  bool manage_local     = false; ///< successive messages land one after the other (local offset)
  std::int32_t ct       = -1;    ///< counting event to count its deliveries (-1: none)
  std::uint64_t user    = 0;     ///< the caller's identity for it

  bool matches(const Header& h) const
  {
    return (source == kAnySource || source == h.source) && ((match_bits ^ h.match_bits) & ~ignore_bits) == 0;
  }
};

struct MatchingConfig {
  unsigned entries       = 512;   ///< the list pool (PAC: 512 x 32 B)
  bool hashing           = false; ///< per-source buckets
  unsigned buckets       = 128;   ///< hash buckets (source mod buckets)
};

enum class List { Priority, Overflow, Unexpected };

/// An arriving message, matched.
struct Arrival {
  enum class Kind { Expected, Unexpected, Dropped };
  Kind kind = Kind::Dropped;
  std::uint64_t user   = 0; ///< Expected: the PR entry; Unexpected: the OF entry (none for a header alone)
  std::uint64_t addr   = 0; ///< where the carried bytes land (entry start + offset)
  std::uint64_t bytes  = 0; ///< carried bytes that fit (the rest is truncated)
  std::int32_t ct      = -1;
  bool unlinked        = false; ///< the entry was used up
  unsigned visited     = 0;     ///< entries visited (PR, then OF unless the message carries nothing)
  std::string why;              ///< Dropped: why
};

/// A receive appended.
struct Append {
  bool found_unexpected = false; ///< it matched a message that had already come
  Header header;                 ///< that message's header
  std::uint64_t stored_at = 0;   ///< where its carried bytes wait (in the OF buffer)
  std::uint64_t of_user   = 0;   ///< the OF entry holding them
  unsigned visited        = 0;   ///< UM entries visited
  bool appended           = false; ///< it went on PR (not consumed at once)
  std::string why;               ///< not appended and not found: why (the pool is full)
};

class MatchingUnit {
public:
  explicit MatchingUnit(MatchingConfig cfg = {});

  /// PtlMEAppend on the priority list (searches UM first).
  Append append_priority(const MatchEntry& me);
  /// PtlMEAppend on the overflow list.
  bool append_overflow(const MatchEntry& me);
  /// A message header arrives.
  Arrival arrive(const Header& h);
  /// PtlMEUnlink of a PR entry by its user id (false: none).
  bool unlink_priority(std::uint64_t user);

  std::size_t size(List l) const;
  std::size_t free_entries() const { return cfg_.entries - used(); }
  const MatchingConfig& config() const { return cfg_; }
  /// Entries visited by every search so far.
  std::uint64_t visited_total() const { return visited_; }

private:
  struct Node {
    std::uint64_t seq = 0; ///< order of the list (appended later: larger)
    MatchEntry me;
    std::uint64_t offset = 0; ///< manage_local: bytes used
    Header header;            ///< UM: the message
    std::uint64_t stored_at = 0;
    std::uint64_t of_user   = 0;
  };
  /// One list: its entries in order, per bucket (hashing) and those accepting any source.
  struct Lists {
    std::vector<std::list<Node>> bucket; ///< one per bucket, or one in all without hashing
    std::list<Node> any;                 ///< hashing: the entries accepting any source
  };
  struct Found {
    std::list<Node>* in = nullptr;
    std::list<Node>::iterator it;
  };
  std::list<Node>& home(Lists& l, ProcessId source);
  /// The first node (in list order) `accepts`, among those a message or receive from `source` can meet.
  template <class Accept> Found search(Lists& l, ProcessId source, Accept accepts, unsigned& visited);
  Lists& lists(List k);
  void insert(List k, Node n);
  void erase(List k, const Found& f);
  /// Pool entries in use: the three lists together.
  std::size_t used() const;

  MatchingConfig cfg_;
  Lists pr_, of_, um_;
  std::uint64_t next_seq_ = 0;
  std::uint64_t visited_  = 0;
  std::size_t sizes_[3]   = {0, 0, 0};
};

} // namespace nafsim::portals
