#include "workloads/portals/PortalsMpiBench.hpp"

#include "nodes/pac/PortalsSection.hpp"
#include "nodes/host/HostCluster.hpp"
#include "nodes/platform/Cluster.hpp"
#include "protocols/collectives/Algorithms.hpp"
#include "protocols/mpi/MpiPlan.hpp"
#include "protocols/portals/Window.hpp"
#include "simcore/config/ConfigError.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace nafsim::workloads {

using coll::Collective;
using nodes::PortalsProtocol;

namespace {
// NAS class S parameters (NPB 3.x MPI: IS is.c, FT ft.f / npbparams, EP ep.f, DT dt.c).
constexpr std::uint64_t kIsTotalKeys  = 1 << 16; // IS: TOTAL_KEYS_LOG_2 16
constexpr std::uint64_t kIsBuckets    = 1 << 9;  // IS class S: NUM_BUCKETS_LOG_2 9
constexpr std::uint64_t kIsTestArray  = 5;       // IS: TEST_ARRAY_SIZE, summed with the buckets
constexpr unsigned kIsIterations      = 11;      // IS: one untimed rank() and MAX_ITERATIONS 10
constexpr std::uint64_t kFtPoints     = 64 * 64 * 64; // FT class S: 64 x 64 x 64
constexpr unsigned kFtIterations      = 6;            // FT class S: niter 6
constexpr std::uint64_t kFtPlanes     = 64;           // FT class S: nz; more ranks than that: the 2-D layout
constexpr std::uint64_t kDtSamples    = 1728;         // DT class S: NUM_SAMPLES
constexpr std::uint64_t kDtFieldDim   = 4;            // DT: fielddim, values per sample
constexpr int kDtSources              = 4;            // DT class S: NUM_SOURCES; BH has them and one sink

/// Rank `q`'s block of the MD positions (3 doubles per particle) as GA_Create divides `particles` over `p` ranks
/// (PAC Fig. 9b: blocks of ceil(n / p), the last ones short or empty).
std::uint64_t md_block_bytes(std::uint64_t particles, std::uint64_t p, std::uint64_t q)
{
  return portals::ga_distribution(particles, static_cast<unsigned>(p)).at(q).second * 24;
}

/// The global array's window over all `p` ranks.
portals::Window md_window(std::uint64_t p)
{
  std::vector<portals::ProcessId> all(p);
  for (std::uint64_t i = 0; i < p; ++i)
    all[i] = static_cast<portals::ProcessId>(i);
  return portals::win_create(1, all, static_cast<portals::ProcessId>(p));
}
} // namespace

std::string PortalsMpiBench::unread_reason(std::string_view key) const
{
  const std::string_view k = key_head(key);
  return (k == "md_particles" || k == "md_steps") && cfg_.pattern != PortalsPattern::GaMd
             ? "only the Global Arrays molecular dynamics reads it (pattern ga_md)"
             : std::string();
}

PortalsMpiBench::PortalsMpiBench(const PortalsMpiConfig& cfg) : cfg_(cfg)
{
  if (cfg_.protocols.empty())
    throw config::ConfigError("", "/workload/protocols", "give at least one protocol (e.g. [\"triggered:4KiB\"])");
  for (std::size_t i = 0; i < cfg_.protocols.size(); ++i) {
    const std::string& s = cfg_.protocols[i];
    const auto colon     = s.find(':');
    const std::string kind = s.substr(0, colon);
    Variant v;
    v.name = s;
    if (kind == "eager" && colon == std::string::npos)
      v.protocol = PortalsProtocol::Eager;
    else if ((kind == "rendezvous" || kind == "triggered") && colon != std::string::npos) {
      v.protocol = kind == "rendezvous" ? PortalsProtocol::Rendezvous : PortalsProtocol::Triggered;
      try {
        v.eager_limit = parse_bytes(s.substr(colon + 1));
      } catch (const UnitError& e) {
        throw config::ConfigError("", fmt::format("/workload/protocols/{}", i),
                                  fmt::format("'{}': the eager limit is not a size ({})", s, e.message));
      }
    } else
      throw config::ConfigError("", fmt::format("/workload/protocols/{}", i),
                                fmt::format("'{}' is not a protocol: write \"eager\", \"rendezvous:<eager_limit>\" or "
                                            "\"triggered:<eager_limit>\" (e.g. \"triggered:4KiB\")",
                                            s));
    variants_.push_back(v);
  }
}

void PortalsMpiBench::check_settings(const nodes::PortalsConfig& pc) const
{
  if (cfg_.pattern == PortalsPattern::NasDt && ranks_ < kDtSources + 1)
    throw config::ConfigError("", cfg_.ranks == 0 ? "/platform/topology/hosts" : "/workload/ranks",
                              fmt::format("nas_dt on {} ranks: DT's black-hole graph of class S has {} nodes, one per "
                                          "rank (dt.c refuses fewer processes): give {} ranks or more",
                                          ranks_, kDtSources + 1, kDtSources + 1));
  if (cfg_.pattern == PortalsPattern::NasFt && ranks_ > kFtPlanes && ranks_ % kFtPlanes != 0)
    throw config::ConfigError("", cfg_.ranks == 0 ? "/platform/topology/hosts" : "/workload/ranks",
                              fmt::format("nas_ft on {} ranks: FT class S runs on up to 64 ranks (1-D layout) or a "
                                          "multiple of 64 (2-D layout, 64 x ranks/64): choose such a number",
                                          ranks_));
  if (auto why = pc.engine_problem(); !why.empty())
    throw config::ConfigError("", "/platform/node/portals/engine", why);
  if (pc.max_msg_size.count < 1 || (pc.unexpected_store.count % pc.store_block.count) != 0)
    throw config::ConfigError("", "/platform/node/portals/unexpected_store",
                              "the unexpected store must be a power-of-two multiple of store_block");
  try {
    portals::BuddyAllocator probe(pc.unexpected_store.count, pc.store_block.count);
  } catch (const std::invalid_argument& e) {
    throw config::ConfigError("", "/platform/node/portals/unexpected_store", e.what());
  }
  if (pc.quantum > SimTime{} && pc.fabric != nodes::PortalsFabricKind::Untimed)
    throw config::ConfigError("", "/platform/node/portals/quantum",
                              fmt::format("time slices (quantum {}) model the paper's virtual platform, whose nodes "
                                          "talk through untimed memory writes: set node.portals.fabric to 'untimed', "
                                          "or the quantum to 0 for the {} fabric",
                                          format_time(pc.quantum), config::enum_name(pc.fabric)));
}

void PortalsMpiBench::make_slices(nodes::Cluster& c, const nodes::PortalsConfig& pc)
{
  try {
    slices_ = std::make_unique<nodes::TimeSlices>(ranks_, pc.quantum);
  } catch (const std::invalid_argument&) {
    throw config::ConfigError("", "/platform/node/portals/quantum",
                              fmt::format("a quantum of {} on {} nodes puts a round of slices beyond the "
                                          "simulator's clock (rounds of quantum x nodes): take a shorter quantum "
                                          "(the paper's platform: 1ms)",
                                          format_time(pc.quantum), ranks_));
  }
  c.scheduler().add_failure_note([n = ranks_, q = pc.quantum](const std::string& failure) -> std::string {
    if (failure.find("time limit") == std::string::npos)
      return {};
    return fmt::format("on the virtual platform the {} nodes run one after another in slices of {} "
                       "(node.portals.quantum): the simulated time is the slices' sequence, {} times the nodes' own "
                       "clocks",
                       n, format_time(q), n);
  });
}

void PortalsMpiBench::start(nodes::Cluster& c)
{
  auto const& pc = nodes::portals_config(c.config().node);
  const bool net = pc.fabric == nodes::PortalsFabricKind::Network;
  if (!net && c.config().network.faults.any()) // the ideal bus and the untimed fabric lose nothing
    throw config::ConfigError("", "/platform/network/faults",
                              fmt::format("the Portals nodes talk over the {} fabric (platform.node.portals.fabric), "
                                          "which loses, corrupts, duplicates and reorders nothing: these faults would "
                                          "change nothing; set platform.node.portals.fabric to \"network\" to study "
                                          "them, or remove the faults",
                                          config::enum_name(pc.fabric)));
  switch (cfg_.library) {
    case PortalsLibrary::Platform: library_ = nodes::host_config(c.config().node).mpi.library; break;
    case PortalsLibrary::OpenMpi: library_ = mpi::Library::OpenMpi; break;
    case PortalsLibrary::OpenMpi20: library_ = mpi::Library::OpenMpi20; break;
    case PortalsLibrary::Mpich: library_ = mpi::Library::Mpich; break;
  }
  std::vector<std::size_t> pos;
  if (net)
    pos = c.positions(nodes::HostNode::kKind);
  else
    for (std::size_t i = 0; i < c.size(); ++i)
      pos.push_back(i);
  ranks_ = cfg_.ranks == 0 ? static_cast<unsigned>(pos.size()) : cfg_.ranks;
  if (ranks_ < 2 || ranks_ > pos.size())
    throw config::ConfigError(
        "", cfg_.ranks == 0 ? "/platform/topology/hosts" : "/workload/ranks",
        fmt::format("portals_mpi needs 2 or more ranks, one per {}node, and the platform has {}{}", net ? "host " : "",
                    pos.size(),
                    net ? " host nodes (over the network, ranks run on host nodes: set platform.node.kind to 'host')"
                        : " nodes"));
  pos.resize(ranks_);
  check_settings(pc);
  if (net)
    fabric_ = std::make_unique<nodes::NetworkPortalsFabric>(c, pos, pc.header);
  else if (pc.fabric == nodes::PortalsFabricKind::Untimed)
    fabric_ = std::make_unique<nodes::UntimedPortalsFabric>(c.scheduler(), ranks_);
  else
    fabric_ = std::make_unique<nodes::IdealPortalsFabric>(c.scheduler(), ranks_, pc.ideal_latency, pc.ideal_rate,
                                                          pc.header);
  if (pc.quantum > SimTime{})
    make_slices(c, pc);
  clocks_.clear();
  for (unsigned r = 0; r < ranks_; ++r) {
    if (slices_)
      clocks_.push_back(std::make_unique<nodes::SlicedClock>(c.scheduler(), *slices_, r));
    else
      clocks_.push_back(std::make_unique<nodes::EngineClock>(c.scheduler()));
  }
  nis_.resize(variants_.size() * ranks_);
  mpis_.resize(variants_.size() * ranks_);
  end_.assign(ranks_, SimTime{});
  for (unsigned r = 0; r < ranks_; ++r)
    c.scheduler().spawn(fmt::format("portals-rank-{}", r),
                        net ? c.at<nodes::HostNode>(pos[r]).host() : c.kernel_host(),
                        [this, &c, r](ActorContext& ctx) { run_rank(ctx, c, r); });
}

void PortalsMpiBench::run_rank(ActorContext& ctx, nodes::Cluster& c, unsigned rank)
{
  auto const& pc  = nodes::portals_config(c.config().node);
  auto const& cpu = nodes::host_config(c.config().node).cpu;
  for (std::size_t v = 0; v < variants_.size(); ++v) {
    line_.arrive(ctx, ranks_); // everything of the previous variant is done
    if (rank == 0)
      for (unsigned r = 0; r < ranks_; ++r) { // fresh interfaces: empty lists, idle engines
        auto& ni  = nis_[v * ranks_ + r];
        ni        = std::make_unique<nodes::PortalsNi>(static_cast<int>(r), static_cast<int>(ranks_), pc,
                                                variants_[v].protocol, variants_[v].eager_limit, *clocks_[r],
                                                *fabric_);
        mpis_[v * ranks_ + r] = std::make_unique<nodes::PortalsMpi>(
            static_cast<int>(r), *ni, c.scheduler(), *clocks_[r], cpu.reduce_rate, cpu.memcpy_rate);
      }
    line_.arrive(ctx, ranks_, [&] { bus_start_ = fabric_->bus_time(); });
    nodes::PortalsMpi& mpi = *mpis_[v * ranks_ + rank];
    if (cfg_.pattern == PortalsPattern::GaMd) { // GA_Create: each rank's block under a window, announced
      if (slices_) // at a round's start, as the timed steps (its engine time then does not follow the variant before)
        ctx.sleep_until(slices_->round_start(ctx.now()));
      const auto w = md_window(ranks_);
      mpi.ni().window(w.match_bits.at(rank), md_block_bytes(cfg_.md_particles, ranks_, rank));
      collective(ctx, mpi, rank, Collective::AllGather, 1, 8);
    }
    SimTime total;
    nodes::NodeClock& clock = *clocks_[rank];
    for (unsigned it = 0; it < cfg_.iterations; ++it) {
      // The counters and the bus are the timed iterations' as time_us is: read once every rank is past the set-up
      // (GA_Create) and none has begun the pattern.
      if (it == 0)
        line_.arrive(ctx, ranks_, [&] {
          bus0_ = fabric_->bus_time();
          before_.resize(ranks_);
          for (unsigned r = 0; r < ranks_; ++r)
            before_[r] = nis_[v * ranks_ + r]->counters();
        });
      else
        line_.arrive(ctx, ranks_);
      if (slices_) // every node starts the pattern at the same date of its own clock: a round's start
        ctx.sleep_until(slices_->round_start(ctx.now()));
      const SimTime t0 = clock.now();
      pattern(ctx, mpi, rank);
      end_[rank] = clock.now() - t0;
      line_.arrive(ctx, ranks_);
      if (rank == 0) {
        SimTime span;
        for (auto e : end_)
          span = std::max(span, e);
        total = total + span;
      }
    }
    if (rank == 0) {
      Record rec;
      rec.time = SimTime::from_seconds(total.seconds() / cfg_.iterations);
      rec.bus       = fabric_->bus_time() - bus0_;
      rec.setup_bus = bus0_ - bus_start_;
      for (unsigned r = 0; r < ranks_; ++r) {
        auto const k = nis_[v * ranks_ + r]->counters().since(before_[r]);
        rec.sum.add(k);
        rec.setup.add(before_[r]);
        rec.busiest = std::max(rec.busiest, k.busy());
      }
      records_.push_back(rec);
    }
  }
}

void PortalsMpiBench::collective(ActorContext& ctx, nodes::PortalsMpi& mpi, unsigned rank, Collective k,
                                 std::uint64_t count, unsigned elem_bytes, coll::ReduceFunc f,
                                 const std::vector<int>& comm)
{
  coll::CollectiveCall call;
  call.collective = k;
  call.size       = comm.empty() ? static_cast<int>(ranks_) : static_cast<int>(comm.size());
  call.root       = 0;
  call.count      = count;
  call.elem_bytes = elem_bytes;
  call.func       = f;
  const auto plan = mpi::plan_collective(library_, call);
  if (comm.empty()) {
    mpi.run(ctx, coll::build_schedule(call, plan.algorithm, coll::Protocol::Eager, static_cast<int>(rank), plan.options));
    return;
  }
  const auto me = std::find(comm.begin(), comm.end(), static_cast<int>(rank)) - comm.begin();
  mpi.run(ctx, coll::build_schedule(call, plan.algorithm, coll::Protocol::Eager, static_cast<int>(me), plan.options),
          comm);
}

void PortalsMpiBench::nas_is(ActorContext& ctx, nodes::PortalsMpi& mpi, unsigned rank)
{
  const std::uint64_t p = ranks_;
  const int r           = static_cast<int>(rank);
  // Per ranking: the bucket sizes summed (MPI_Allreduce of NUM_BUCKETS + TEST_ARRAY_SIZE ints), the send
  // counts exchanged (MPI_Alltoall of one int), the keys redistributed (MPI_Alltoallv, here equal shares of the
  // rank's keys). Then, as main() runs them: the timer's MPI_Reduce, full_verify, the verification counts' one.
  const std::uint64_t share = std::max<std::uint64_t>(1, kIsTotalKeys / p / p);
  for (unsigned it = 0; it < kIsIterations; ++it) {
    collective(ctx, mpi, rank, Collective::AllReduce, kIsBuckets + kIsTestArray, 4);
    collective(ctx, mpi, rank, Collective::AllToAll, 1, 4);
    collective(ctx, mpi, rank, Collective::AllToAll, share, 4);
  }
  collective(ctx, mpi, rank, Collective::Reduce, 1, 8, coll::ReduceFunc::Max); // main: the timer's maximum
  // full_verify (is.c): each rank's largest key to the next rank (MPI_Irecv from my_rank - 1, then MPI_Send
  // to my_rank + 1, then MPI_Wait).
  coll::Schedule s;
  s.call.collective = Collective::Send;
  s.call.size       = static_cast<int>(p);
  s.call.count      = 1;
  s.call.elem_bytes = 4;
  s.rank            = r;
  if (r > 0) {
    coll::Op o;
    o.kind = coll::OpKind::Recv;
    o.peer = r - 1;
    o.dst  = coll::out(0, 1);
    s.ops.push_back(o);
  }
  if (r + 1 < static_cast<int>(p)) {
    coll::Op o;
    o.kind = coll::OpKind::Send;
    o.peer = r + 1;
    o.a    = coll::in(0, 1);
    s.ops.push_back(o);
  }
  mpi.run(ctx, s);
  collective(ctx, mpi, rank, Collective::Reduce, 1, 4); // main: the verification counts summed
}

void PortalsMpiBench::nas_ft(ActorContext& ctx, nodes::PortalsMpi& mpi, unsigned rank)
{
  const std::uint64_t p = ranks_;
  // Set-up broadcast of the run's parameters; the forward 3-D FFT, then per iteration the inverse FFT and
  // the checksum (MPI_Reduce of one double complex to rank 0). Each FFT transposes the rank's share of the
  // complex grid (ntdivnp = 64^3 / p points). 1-D layout (p <= 64): one MPI_Alltoall over all ranks,
  // ntdivnp / p points per pair. 2-D layout (np1 = 64 x np2 = p / 64): transpose_x_y, an MPI_Alltoall
  // among the np1 ranks of its commslice2 (ntdivnp / np1 per pair), and transpose_x_z among the np2 of its
  // commslice1 (ntdivnp / np2 per pair).
  collective(ctx, mpi, rank, Collective::Bcast, 3, 4);
  const std::uint64_t ntdivnp = kFtPoints / p;
  auto fft = [&] {
    if (p <= kFtPlanes) {
      collective(ctx, mpi, rank, Collective::AllToAll, std::max<std::uint64_t>(1, ntdivnp / p), 16);
      return;
    }
    const std::uint64_t np1 = kFtPlanes, np2 = p / kFtPlanes;
    const std::uint64_t me1 = rank % np1, me2 = rank / np1;
    std::vector<int> slice2, slice1; // same me2 (np1 ranks), same me1 (np2 ranks)
    for (std::uint64_t i = 0; i < np1; ++i)
      slice2.push_back(static_cast<int>(me2 * np1 + i));
    for (std::uint64_t j = 0; j < np2; ++j)
      slice1.push_back(static_cast<int>(me1 + j * np1));
    collective(ctx, mpi, rank, Collective::AllToAll, ntdivnp / np1, 16, coll::ReduceFunc::Sum, slice2);
    collective(ctx, mpi, rank, Collective::AllToAll, ntdivnp / np2, 16, coll::ReduceFunc::Sum, slice1);
  };
  fft();
  for (unsigned it = 0; it < kFtIterations; ++it) {
    fft();
    collective(ctx, mpi, rank, Collective::Reduce, 2, 8);
  }
}

void PortalsMpiBench::pattern(ActorContext& ctx, nodes::PortalsMpi& mpi, unsigned rank)
{
  const std::uint64_t p = ranks_;
  const int r           = static_cast<int>(rank);
  switch (cfg_.pattern) {
    case PortalsPattern::AllToAll: collective(ctx, mpi, rank, Collective::AllToAll, cfg_.block.count, 1); break;
    case PortalsPattern::NasIs: nas_is(ctx, mpi, rank); break;
    case PortalsPattern::NasFt: nas_ft(ctx, mpi, rank); break;
    case PortalsPattern::NasEp:
      // The sums sx, sy and the ten annulus counts q (MPI_Allreduce, sum), the timer (max).
      collective(ctx, mpi, rank, Collective::AllReduce, 1, 8);
      collective(ctx, mpi, rank, Collective::AllReduce, 1, 8);
      collective(ctx, mpi, rank, Collective::AllReduce, 10, 8);
      collective(ctx, mpi, rank, Collective::AllReduce, 1, 8, coll::ReduceFunc::Max);
      break;
    case PortalsPattern::NasDt: {
      // dt.c's black-hole graph of class S (buildBH, NUM_SOURCES 4): graph node i on rank i, sources 0-3 and the
      // sink 4, one arc from each source to the sink; ranks past the graph's five nodes take no part. A source
      // sends its feature array's length (MPI_Send of one int) and then the array (len doubles; here the mean
      // length, NUM_SAMPLES x fielddim 4); the sink receives them arc by arc (MPI_Recv, blocking), then sends its
      // checksum (one double) to rank 0, which receives it after its own source's sends (ProcessNodes).
      const std::uint64_t array = kDtSamples * kDtFieldDim * 8;
      if (r < kDtSources) {
        mpi.send(ctx, kDtSources, 4);
        mpi.send(ctx, kDtSources, array);
      } else if (r == kDtSources) {
        for (int src = 0; src < kDtSources; ++src) {
          mpi.recv(ctx, src, 4);
          mpi.recv(ctx, src, array);
        }
        mpi.send(ctx, 0, 8);
      }
      if (r == 0)
        mpi.recv(ctx, kDtSources, 8);
      break;
    }
    case PortalsPattern::GaMd: {
      const auto w = md_window(p);
      for (unsigned step = 0; step < cfg_.md_steps; ++step) {
        for (std::uint64_t k = 1; k < p; ++k) { // GA_Get of every other rank's positions (none from an empty block)
          const auto q = static_cast<unsigned>((rank + k) % p);
          if (const std::uint64_t blk = md_block_bytes(cfg_.md_particles, p, q); blk > 0)
            mpi.ga_get(ctx, static_cast<int>(q), w.match_bits.at(q), 0, blk);
        }
        collective(ctx, mpi, rank, Collective::AllReduce, 1, 8); // the step's potential energy
      }
      break;
    }
  }
}

void PortalsMpiBench::report(const nodes::Cluster& c, results::ResultSink& sink,
                             std::vector<std::string>& summary) const
{
  auto const& pc = nodes::portals_config(c.config().node);
  results::Table t("portals_mpi",
                   {"pattern", "engine", "hashing", "fabric", "protocol", "ranks", "block", "time_us", "engine_busy_us",
                    "busiest_engine_us", "puts", "gets", "expected", "unexpected", "triggered_gets", "host_gets",
                    "interrupts", "visited", "missed", "bytes_copied", "store_peak", "payload_dropped", "acks",
                    "quantum_us", "commands_us", "walks_us", "copies_us", "interrupts_us", "bus_us", "library", "setup_puts",
                    "setup_portals_us", "setup_bus_us"});
  // time_us is the mean of the iterations, so every count and engine time is too (they were the iterations' sums:
  // the busiest engine busy longer than the run): a count's mean keeps three decimals when there are several.
  const unsigned its = std::max(1U, cfg_.iterations);
  auto count         = [&](results::Table& row, std::uint64_t n) -> results::Table& {
    return its == 1 ? row.add(n) : row.add(static_cast<double>(n) / its, 3);
  };
  auto mean_us    = [&](SimTime d) { return d.us() / its; };
  auto mean_count = [&](std::uint64_t n) {
    return its == 1 ? std::to_string(n) : fmt::format("{:.3f}", static_cast<double>(n) / its);
  };
  for (std::size_t v = 0; v < records_.size(); ++v) {
    auto const& r = records_[v];
    auto const& s = r.sum;
    auto& row     = t.row()
                    .add(config::enum_name(cfg_.pattern))
                    .add(config::enum_name(pc.engine))
                    .add(pc.hashing ? "yes" : "no")
                    .add(config::enum_name(pc.fabric))
                    .add(variants_[v].name)
                    .add(ranks_)
                    .add(cfg_.block.count)
                    .add(r.time.us(), 4)
                    .add(mean_us(s.busy()), 4)
                    .add(mean_us(r.busiest), 4);
    for (std::uint64_t n : {s.puts, s.gets, s.expected, s.unexpected, s.triggered_gets, s.host_gets, s.interrupts,
                            s.visited, s.missed, s.bytes_copied})
      count(row, n);
    row.add(s.store_peak);
    count(row, s.payload_dropped);
    count(row, s.acks);
    row.add(pc.quantum.us(), 4)
        .add(mean_us(s.commands), 4)
        .add(mean_us(s.walks), 4)
        .add(mean_us(s.copies), 4)
        .add(mean_us(s.interrupts_time), 4)
        .add(mean_us(r.bus), 4)
        .add(config::enum_name(library_))
        .add(r.setup.puts)
        .add((r.setup.busy() + r.setup.interrupts_time).us(), 4)
        .add(r.setup_bus.us(), 4);
    summary.push_back(fmt::format("{} on {} ranks, {}{}, {} fabric{}, {}: {:.3f} us{} ({:.3f} us in Portals on all "
                                  "nodes; {} unexpected of {} Puts, {} entries visited)",
                                  config::enum_name(cfg_.pattern), ranks_, config::enum_name(pc.engine),
                                  pc.hashing ? " with hashing" : "", config::enum_name(pc.fabric),
                                  pc.quantum > SimTime{} ? fmt::format(", {} time slices", format_time(pc.quantum)) : "",
                                  variants_[v].name, r.time.us(), pc.quantum > SimTime{} ? " on the nodes' clocks" : "",
                                  mean_us(s.busy() + s.interrupts_time), mean_count(s.unexpected),
                                  mean_count(s.puts), mean_count(s.visited)));
    if (r.setup.puts > 0)
      summary.push_back(fmt::format("  set-up before the timed {} (GA_Create's allgather; not in the counts above): "
                                    "{} Puts, {:.3f} us in Portals on all nodes",
                                    cfg_.iterations == 1 ? "iteration" : "iterations", r.setup.puts,
                                    (r.setup.busy() + r.setup.interrupts_time).us()));
  }
  sink.add(std::move(t));
}

} // namespace nafsim::workloads
