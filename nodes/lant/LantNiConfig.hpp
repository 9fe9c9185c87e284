#pragma once
// Timing of the network interface that runs the connectionless transport (Lant et al., Fig 1 and
// Fig 6: Zynq UltraScale+ ZCU102, NI fabric at 156.25 MHz = the node clock, Aurora 64B/66B PHY at
// 10 Gb/s, Xilinx CDMA in scatter-gather mode, ARM A53 software at 1 GHz).

#include "protocols/lant/LantConfig.hpp"

namespace nafsim::nodes {

struct LantNiConfig {
  unsigned tx_pipeline      = 10;
  unsigned rx_pipeline      = 10;
  unsigned phy_latency      = 55;
  unsigned descriptor_fetch = 8;
  unsigned tx_prefetch_packets = 4;
  bool ack_after_write  = true;
  SimTime post_overhead = SimTime::us(1.9);
  SimTime poll_period   = SimTime::ns(200);
  lant::LantConfig transport;
  template <class V> void describe(V& v)
  {
    v.field("tx_pipeline", tx_pipeline,
            "NI cycles from a packet's data (or an ACK's decision) to the PHY (header build, table logging); "
            "default: calibrated for lant-zcu102 (see its sources)");
    v.field("rx_pipeline", rx_pipeline,
            "NI cycles from a packet's CRC check to the transport acting on it (table lookup, mask update); default: "
            "calibrated for lant-zcu102");
    v.field("phy_latency", phy_latency,
            "PHY latency in node clock cycles, transmit + receive: Aurora 64B/66B, PG074 'Latency': 54-55 user_clk "
            "cycles from s_axi_tx_tvalid to m_axi_rx_tvalid (user_clk = 156.25 MHz at 10 Gb/s); half on each side");
    v.field("descriptor_fetch", descriptor_fetch,
            "ASSUMPTION: cycles for the DMA engine to pull a new command (scatter-gather descriptor) from the "
            "NI's queues; its data read from memory follows");
    v.field("tx_prefetch_packets", tx_prefetch_packets,
            "packets the DMA engine may have read ahead of the wire", config::Limits::between(1, 1024));
    v.field("ack_after_write", ack_after_write,
            "ASSUMPTION: a packet is acknowledged once memory has confirmed its write (an ACK then promises the "
            "data is in place, which the sender's notification of unregistered operations relies on, paper 3.4); "
            "false: at once after the CRC check");
    v.field("post_overhead", post_overhead,
            "software time to post a command from user space (configuring the DMA engine over AXI); default: "
            "calibrated for lant-zcu102 (see its sources)");
    v.field("poll_period", poll_period,
            "ASSUMPTION: one poll of a notification queue by the 1 GHz A53 (an uncached AXI read of an NI "
            "register); a waiting program sees a notification at the end of the first poll after it");
    v.field("transport", transport, "the connectionless transport's tables, sizes and timeouts");
  }
};

} // namespace nafsim::nodes
