#pragma once
// FPGA area of the receive registration module (paper section 4.2, Table 1: Zynq UltraScale+
// ZCU102, 274,080 LUTs, 912 BRAM36), as a function of table entries E and bitmask width W.
//
//  LUT  = 1621.4 + 10.680 W - 0.0014268 W^2
//         least squares over all 25 cells of Table 1; the mask encode/decode logic grows with W,
//         the table depth costs no logic. The paper's text says "varying the maximum operation size for
//         registration has little effect on the number of LUTs", which its own Table 1 contradicts (LUTs grow
//         about 5x with the mask width W); the fit follows the table.
//  BRAM = 43 + 2 + 2 ceil(W / 72) max(1, E / 512)^0.6
//         43 BRAM36 hold the escape channel (64 full packets; stated in the paper); the table is
//         kept in BRAM36 used 512 deep x 72 wide, so up to 512 entries cost the same ("free"
//         entries); deeper tables pack better than linearly (the exponent 0.6 is fitted to the
//         E = 1024 row); 2 BRAM36 of fixed state.
// Largest deviation from Table 1: LUT 3.3 %, BRAM 2.2 % (tests/unit/protocols/LantTest.cpp).

namespace nafsim::lant {

struct AreaEstimate {
  double luts  = 0;
  double brams = 0; ///< BRAM36 equivalents, in steps of 0.5 (a BRAM18)
  double lut_percent() const { return 100.0 * luts / 274080.0; }
  double bram_percent() const { return 100.0 * brams / 912.0; }
  /// Whether the configuration is one Table 1 measured: (entries, bitmask) within 64-1024 each, and the escape
  /// channel the paper's (64 packets of 512 B: its 43 BRAM36, which the model does not scale).
  bool measured_range = true;
};

AreaEstimate registration_area(unsigned entries, unsigned bitmask_bits, unsigned escape_packets = 64,
                               unsigned long long packet_payload = 512);

} // namespace nafsim::lant
