// `nafsim explain`'s what-ifs (Explain.hpp's ideal_what_if): for each kind of bottleneck a critical path names
// (resource, detail), the settings that make that resource ideal, or why none can (simcore/app/Explain.cpp runs them).
#include "simcore/app/Explain.hpp"

#include "simcore/units/Units.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace nafsim::app {

namespace {
bool has(const std::string& s, const char* part)
{
  return s.find(part) != std::string::npos;
}

WhatIf wire_what_if(const std::string& detail, const nlohmann::json& platform)
{
  if (has(detail, "fault injection")) // a packet held back by the injected reordering: faster links change nothing
    return {{"platform.network.faults.reorder_rate=0"}, "the network without its injected reordering", {}};
  WhatIf w;
  const double rate = parse_rate(platform.at("network").at("link").at("rate").get<std::string>()).bps * 10;
  w.sets.push_back("platform.network.link.rate=" + format_rate(BitsPerSecond{rate}));
  w.meaning = "links 10x faster";
  auto const& topo = platform.at("topology");
  if (topo.value("kind", "") == "leaf-spine") {
    const double up = parse_rate(topo.at("leaf_spine").at("uplink_rate").get<std::string>()).bps * 10;
    w.sets.push_back("platform.topology.leaf_spine.uplink_rate=" + format_rate(BitsPerSecond{up}));
    w.meaning += " (uplinks too)";
  }
  if (!has(detail, "busy")) { // a hop: its propagation and the next switch's latency too
    w.sets.push_back("platform.network.link.propagation=0s");
    w.sets.push_back("platform.network.switch.latency=0s");
    w.meaning += ", no propagation delay, no switch latency";
  }
  return w;
}

WhatIf data_mover_what_if(const std::string& detail)
{
  const std::string m = "platform.node.fpga.";
  if (has(detail, "first byte"))
    return {{m + "device_memory.read_latency=0s", m + "pcie.read_latency=0s", m + "cclo.dmp.pipeline_cycles=0",
             m + "cclo.dmp.issue_cycles=0"},
            "memory and PCIe reads with no latency, no datapath pipeline, moves issued in no time",
            {}};
  if (has(detail, "memory read"))
    return {{m + "device_memory.read_bandwidth=1000Tbps", m + "device_memory.channel_bandwidth=1000Tbps"},
            "device-memory reads at 1,000 Tb/s",
            {}};
  if (has(detail, "memory write"))
    return {{m + "device_memory.write_bandwidth=1000Tbps", m + "device_memory.channel_bandwidth=1000Tbps"},
            "device-memory writes at 1,000 Tb/s",
            {}};
  if (has(detail, "PCIe"))
    return {{m + "pcie.bandwidth=1000Tbps"}, "PCIe at 1,000 Tb/s", {}};
  if (has(detail, "datapath"))
    return {{m + "cclo.dmp.width_bytes=1024"}, "the widest datapath accepted (1,024 B per cycle, 16x the CCLO's)", {}};
  if (has(detail, "issue slot"))
    return {{m + "cclo.dmp.issue_cycles=0"}, "moves issued in no time", {}};
  return {{}, {}, fmt::format("no what-if for the data mover's '{}'", detail)};
}

/// A transport's retransmission timeout: what lost or reordered the packet it waited for (the injected faults, a
/// full switch queue, packets sprayed over paths), not the engine.
WhatIf loss_what_if(const std::string& engine, const std::string& detail, const nlohmann::json& platform,
                    const RunLosses& losses)
{
  WhatIf w;
  const nlohmann::json net = platform.value("network", nlohmann::json::object());
  const nlohmann::json faults = net.value("faults", nlohmann::json::object());
  for (const char* rate : {"loss_rate", "corruption_rate", "duplicate_rate", "reorder_rate"})
    if (faults.value(rate, 0.0) > 0)
      w.sets.push_back(fmt::format("platform.network.faults.{}=0", rate));
  if (!faults.value("drops", nlohmann::json::array()).empty())
    w.sets.push_back("platform.network.faults.drops=[]");
  if (!w.sets.empty())
    w.meaning = "the network without its injected faults";
  auto also = [&](const std::vector<std::string>& sets, const std::string& meaning) {
    w.sets.insert(w.sets.end(), sets.begin(), sets.end());
    w.meaning += w.meaning.empty() ? meaning : ", " + meaning;
  };
  // The switches' tail drops only where the run had some (a run read without its counters: wherever they can be).
  if (net.value("switch", nlohmann::json::object()).value("flow_control", "drop") == "drop" &&
      (!losses.known || losses.queue_drops > 0))
    also({"platform.network.switch.flow_control=lossless"}, "lossless switches (no queue drops)");
  // A TCP stack's own drops at its shared receive FIFO (the XRT build's): the FIFO without its limit, on the node
  // kinds whose stacks dropped there (both kinds with a limit when the run did not say which).
  if (losses.tcp_fifo > 0) {
    const nlohmann::json node = platform.value("node", nlohmann::json::object());
    std::vector<std::string> fifos;
    const std::vector<std::string> kinds =
        losses.fifo_kinds.empty() ? std::vector<std::string>{"fpga", "host"} : losses.fifo_kinds;
    for (auto const& kind : kinds) {
      const nlohmann::json tcp = node.value(kind, nlohmann::json::object()).value("tcp", nlohmann::json::object());
      if (tcp.contains("rx_fifo") && tcp.at("rx_fifo").is_string() && parse_bytes(tcp.at("rx_fifo").get<std::string>()).count > 0)
        fifos.push_back(fmt::format("platform.node.{}.tcp.rx_fifo=0B", kind));
    }
    const std::string refusals =
        losses.tcp_stalls > 0 ? fmt::format(", their consumers refusing a stream's next message {} time(s) for want "
                                            "of room while its segments held them: more Rx buffers keep the streams "
                                            "moving, explain --propose tries them",
                                            losses.tcp_stalls)
                              : std::string{};
    if (!fifos.empty())
      also(fifos, fmt::format("the TCP stacks' shared receive FIFOs without their limit (they dropped {} segment(s){})",
                              losses.tcp_fifo, refusals));
  }
  const std::string routing = net.value("routing", "ecmp");
  if (routing == "spray" || routing == "adaptive") // reordered packets: go-back-N leaves a tail to the timer
    also({"platform.network.routing=ecmp"}, "one path per flow (ECMP: no reordering)");
  if (w.sets.empty())
    w.why_not = fmt::format("no what-if for the {}'s '{}': the network neither injects faults, drops nor reorders; a "
                            "timeout there is one too short for the queues (spurious resends: the transport's "
                            "timeouts)",
                            engine, detail);
  return w;
}

/// Whether the workload (`workload_json`, the resolved scenario's section) calls its CCLOs from FPGA kernels: a
/// collective benchmark with invocation "kernel" (its default), a program, a Chakra trace, DLRM (its kernels call
/// them); not the FC layer or a collective through the Coyote or XRT host driver (or a workload not said).
bool kernel_invoked(const std::string& workload_json)
{
  const auto w          = nlohmann::json::parse(workload_json);
  const std::string kind = w.value("kind", std::string());
  if (kind == "collective")
    return w.value("invocation", std::string("kernel")) == "kernel";
  return kind == "program" || kind == "chakra" || kind == "dlrm";
}

/// An application kernel on the FPGA fabric (nodes/compute/FpgaKernel.hpp, the DLRM workload's `kernel`): its clock
/// 10x, so its multiply-adds and on-chip reads take a tenth of the time (its HBM reads, in nanoseconds, stay).
WhatIf kernel_what_if(const std::string& detail, const nlohmann::json& workload)
{
  const nlohmann::json kernel = workload.value("kernel", nlohmann::json::object());
  if (!kernel.contains("clock") || !kernel.at("clock").is_string())
    return {{}, {}, fmt::format("no what-if for the FPGA kernel '{}': the workload has no kernel clock", detail)};
  const Hertz clock = parse_frequency(kernel.at("clock").get<std::string>());
  const std::string faster = format_frequency(Hertz{clock.hz * 10});
  return {{"workload.kernel.clock=" + faster}, "the application kernels at 10x their clock (" + faster + ")", {}};
}

/// A host CPU's compute kernel (the FC layer's GEMV) at 10x: the roofline model's every term (nodes/compute/
/// CpuCompute.hpp: the clock, which the caches' bytes per cycle follow, the DRAM's bandwidth per socket and per core,
/// its latency and the fork and join of a parallel region).
WhatIf cpu_compute_what_if(const std::string& detail, const nlohmann::json& platform)
{
  const nlohmann::json::json_pointer at("/node/host/compute");
  if (!platform.contains(at))
    return {{}, {}, fmt::format("no what-if for the host CPU's '{}': the platform has no node.host.compute", detail)};
  auto const& c        = platform.at(at);
  const std::string cc = "platform.node.host.compute.";
  auto rate            = [&](const char* key) {
    return cc + key + "=" + format_rate(BitsPerSecond{parse_rate(c.at(key).get<std::string>()).bps * 10});
  };
  auto tenth = [&](const char* key) {
    return cc + key + "=" + format_time(SimTime::ps((parse_time(c.at(key).get<std::string>()).ps() + 5) / 10));
  };
  return {{cc + "frequency=" + format_frequency(Hertz{parse_frequency(c.at("frequency").get<std::string>()).hz * 10}),
           rate("dram_bandwidth"), rate("dram_bandwidth_per_core"), tenth("dram_latency"), tenth("parallel_region")},
          "the host CPU's compute at 10x (its clock, which the caches' bytes per cycle follow, and the DRAM's bandwidth; "
          "a tenth of the DRAM's latency and of a parallel region's fork and join)",
          {}};
}

/// A payload's reads or writes (`dir`: "read" or "write") through device memory and the card's and the host's PCIe,
/// at 1,000 Tb/s with no latency.
std::vector<std::string> payload_path(const std::string& dir)
{
  const std::string mem = "platform.node.fpga.device_memory.";
  std::vector<std::string> sets{mem + dir + "_latency=0s", mem + dir + "_bandwidth=1000Tbps",
                                mem + "channel_bandwidth=1000Tbps"};
  for (const std::string pcie : {"platform.node.fpga.pcie.", "platform.node.host.pcie."}) {
    sets.push_back(pcie + dir + "_latency=0s");
    sets.push_back(pcie + "bandwidth=1000Tbps");
  }
  return sets;
}

/// `sets` and then those of `more` it does not have yet (a bandwidth both lists lift is set once).
std::vector<std::string> with(std::vector<std::string> sets, const std::vector<std::string>& more)
{
  for (auto const& s : more)
    if (std::find(sets.begin(), sets.end(), s) == sets.end())
      sets.push_back(s);
  return sets;
}

/// The NIC engines (the FPGA's RoCE, TCP and UDP offload engines, the hosts' RDMA NICs and kernel TCP): a wait on a
/// timer is lifted by what ends it, any other step by pipelines with no latency.
WhatIf engine_what_if(const std::string& engine, const std::string& detail, const nlohmann::json& platform,
                      const RunLosses& losses)
{
  if (has(detail, "retransmission timeout"))
    return loss_what_if(engine, detail, platform, losses);
  const std::string rdma = "platform.node.fpga.rdma.", host_rdma = "platform.node.host.rdma.";
  const std::string tcp = "platform.node.fpga.tcp.", host_tcp = "platform.node.host.tcp.";
  if (has(detail, "RNR timer")) // a SEND refused for want of a posted receive, resent after the timer
    return {{rdma + "rnr_timeout=0s", host_rdma + "rnr_timeout=0s"},
            "receiver-not-ready NAKs resent at once (no RNR timer; the refusals remain: a receive queue that never "
            "runs empty, node.host.mpi.eager_buffers or the CCLO's Rx buffers, removes them)",
            {}};
  if (has(detail, "ACK coalescing timer"))
    return {{rdma + "ack_every=1", host_rdma + "ack_every=1"}, "every packet acknowledged at once (ack_every 1)", {}};
  if (has(detail, "delayed ACK"))
    return {{tcp + "delayed_ack=0s", host_tcp + "delayed_ack=0s"}, "every TCP segment acknowledged at once", {}};
  if (has(detail, "application rate")) // a write's data pushed into the stack after its status (tcp.app_rate)
    return {{tcp + "app_rate=1000Tbps", host_tcp + "app_rate=1000Tbps"},
            "TCP writes' data pushed into the stack at 1,000 Tb/s",
            {}};
  if (has(detail, "write request status"))
    return {{tcp + "tx_status_latency=0s", host_tcp + "tx_status_latency=0s"},
            "TCP writes with no request-to-status handshake",
            {}};
  if (has(detail, "written to memory")) // the payload's writes before its completion: the card's memory, PCIe
    return {with(payload_path("write"), {"platform.node.host.socket_copy_rate=1000Tbps"}),
            "payload writes into memory (device memory, PCIe, a host kernel's socket copy) at 1,000 Tb/s with no "
            "latency (a host memory's own engine rate stays)",
            {}};
  if (has(detail, "through the transmit buffer")) // TcpPoe::payload_ready: the handshake, the copy in, the read back
    return {with(with({tcp + "tx_status_latency=0s", host_tcp + "tx_status_latency=0s"}, payload_path("read")),
                 {"platform.node.fpga.device_memory.write_bandwidth=1000Tbps",
                  "platform.node.fpga.device_memory.write_latency=0s", "platform.node.host.socket_copy_rate=1000Tbps"}),
            "TCP writes with no request-to-status handshake and the transmit buffer filled and read back at 1,000 "
            "Tb/s with no latency (device memory, PCIe, a host kernel's socket copy; a host memory's own engine "
            "rate stays)",
            {}};
  if (has(detail, "consumer poll")) // a stream stalled for a receive buffer, looked at again after the poll
    return {{"platform.node.fpga.poe.consumer_poll=1ns", "platform.node.host.nic.consumer_poll=1ns"},
            "a stalled stream looked at again every nanosecond (its wait for a free receive buffer stays: more "
            "receive buffers remove it)",
            {}};
  if (has(detail, "pipeline") || has(detail, "completion notice")) // the engine's own fixed latencies
    return {{"platform.node.fpga.poe.tx_latency=0s", "platform.node.fpga.poe.rx_latency=0s",
             "platform.node.host.nic.tx_latency=0s", "platform.node.host.nic.rx_latency=0s"},
            "the " + engine + "'s transmit and receive pipelines with no latency",
            {}};
  return {{}, {}, fmt::format("no what-if for the {}'s '{}'", engine, detail)};
}
} // namespace

WhatIf ideal_what_if(const std::string& resource, const std::string& detail, const std::string& platform_json,
                     const std::string& workload_json, const RunLosses& losses)
{
  if (resource == "FPGA kernel") // an application kernel (DLRM's): its compute at 10x the clock it was built for
    return kernel_what_if(detail, nlohmann::json::parse(workload_json));
  const auto platform = nlohmann::json::parse(platform_json);
  const std::string fw = "platform.node.fpga.cclo.firmware.";
  if (resource == "firmware" && (detail == "call" || detail == "finalize") && kernel_invoked(workload_json))
    // Called by an FPGA kernel, no host driver's measured spread holds them: the call and finalize are the kernel
    // NOP's own cycles (calibrated on it, 0.324 us), which the micro-controller spends; the host invocation's jitter
    // goes off only because its check needs them inside the host NOP's measured range (a kernel call draws none).
    return {{fw + "call=0", fw + "finalize=0", "platform.node.fpga.cclo.invocation.jitter=false"},
            "the micro-controller's call and finalize free (a kernel-invoked call's whole firmware entry and exit; "
            "the host invocations' jitter off, which a kernel call does not draw)",
            {}};
  if (resource == "firmware" && (detail == "call" || detail == "finalize")) // the calibrated invocation's own part
    return {{}, {}, fmt::format("no what-if for the firmware's '{}': it is part of the invocation latency the presets are "
                                "calibrated on (node.fpga.cclo.invocation: its measured spread needs call and "
                                "finalize inside it), so it cannot be lifted alone",
                                detail)};
  if (resource == "firmware") // call and finalize stay: the host invocation's calibration holds them
    return {{fw + "move=0", fw + "notify=0", fw + "poll=0", fw + "entry=0", fw + "retry=0", fw + "step=0"},
            "the micro-controller's primitives free (call and finalize kept: the invocation latencies are calibrated "
            "with them)",
            {}};
  if (resource == "data mover" && has(detail, "stream to the Tx system")) // a stream whose pace was not said
    return {with(payload_path("read"), {"platform.node.fpga.cclo.dmp.width_bytes=1024"}),
            "the data mover's source at 1,000 Tb/s with no latency (device-memory and PCIe reads, the widest CCLO "
            "datapath accepted)",
            {}};
  if (resource == "data mover")
    return data_mover_what_if(detail);
  if (resource == "wire" || resource == "switch")
    return wire_what_if(detail, platform);
  if ((resource == "RoCE POE" || resource == "connectionless NI") && has(detail, "read from memory"))
    return {payload_path("read"), // the engine fetching the payload itself
            "the " + resource + "'s payload reads (device memory, PCIe) with no latency at 1,000 Tb/s",
            {}};
  if (resource == "payload stream") // a NIC engine's staged packet waiting for its bytes from their source
    return {with(payload_path("read"), {"platform.node.fpga.cclo.dmp.width_bytes=1024"}),
            "the payload's source at 1,000 Tb/s with no latency (device-memory and PCIe reads, the widest CCLO "
            "datapath accepted)",
            {}};
  if (resource == "RoCE POE" || resource == "TCP POE" || resource == "UDP POE") // FPGA engines and host NICs alike
    return engine_what_if(resource, detail, platform, losses);
  if (resource == "connectionless NI" && has(detail, "written to memory")) // the payload's writes, as the others'
    return engine_what_if(resource, detail, platform, losses);
  if (resource == "connectionless NI" && has(detail, "retransmission timeout"))
    return loss_what_if(resource, detail, platform, losses);
  if (resource == "connectionless NI" && has(detail, "pipeline")) { // the NI's own cycles and the PHY's
    const std::string ni = "platform.node.fpga.connectionless.";
    return {{ni + "tx_pipeline=0", ni + "rx_pipeline=0", ni + "phy_latency=0", ni + "descriptor_fetch=0"},
            "the connectionless NI's pipelines, descriptor fetch and PHY in no cycles",
            {}};
  }
  const std::string cpu = "platform.node.host.cpu.";
  if (resource == "host CPU" && has(detail, "MPI library"))
    return {{cpu + "send_overhead=0s", cpu + "recv_overhead=0s", cpu + "memcpy_rate=1000Tbps", cpu + "reduce_rate=1000Tbps"},
            "the MPI library's per-message overheads free, its copies and reductions at 1,000 Tb/s",
            {}};
  if (resource == "host CPU" && has(detail, "GEMV")) // the FC layer's share of W x, on the host's cores
    return cpu_compute_what_if(detail, platform);
  if (resource == "host CPU" && has(detail, "call overhead"))
    return {{cpu + "call_overhead=0s"}, "no MPI call overhead", {}};
  const std::string drv = "platform.node.fpga.host_driver.";
  if (resource == "host driver" && has(detail, "overhead"))
    return {{drv + "to_host_overhead=0s", drv + "to_device_overhead=0s"}, "the host driver's copy calls free", {}};
  if (resource == "host driver")
    return {{drv + "to_host_rate=1000Tbps", drv + "to_device_rate=1000Tbps", "platform.node.fpga.pcie.bandwidth=1000Tbps",
             "platform.node.fpga.pcie.read_latency=0s", "platform.node.fpga.pcie.write_latency=0s"},
            "the host driver's DMA between host and FPGA memory at 1,000 Tb/s with no PCIe latency",
            {}};
  if (resource == "Tx system" || resource == "Rx system")
    return {{"platform.node.fpga.cclo.txrx.tx_cycles=0", "platform.node.fpga.cclo.txrx.rx_cycles=0"},
            "the CCLO's Tx and Rx systems in no cycles",
            {}};
  return {{}, {}, fmt::format("no what-if for resource '{}' ({})", resource, detail)};
}

} // namespace nafsim::app
