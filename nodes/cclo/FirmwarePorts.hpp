#pragma once
// What the CCLO's micro-controller reaches outside itself (the firmware, its collective functions and the schedule
// executor): the queues between the blocks, the data mover, the Tx system's notifications, the spare buffers, the
// configuration and the link. The CCLO (Cclo.hpp) implements it; the firmware knows no more of the CCLO than this.

#include "nodes/cclo/CcloConfig.hpp"
#include "nodes/cclo/CcloCore.hpp"
#include "nodes/cclo/CcloLink.hpp"
#include "nodes/cclo/DataMover.hpp"

#include <cstdint>
#include <optional>

namespace nafsim::nodes {

class FirmwarePorts {
public:
  /// The queues between the blocks and the counters.
  virtual CcloCore& core() = 0;
  virtual DataMover& data_mover() = 0;
  virtual const CcloConfig& config() const = 0;
  /// The link the CCLO's messages take (what it can carry, for the call's plan).
  virtual const CcloLink& link() const = 0;
  /// Spare buffer k's device address (the schedules' scratch buffers).
  virtual std::uint64_t spare_address(int k) const = 0;
  /// A notification (64 B signature, no payload) through the Tx system, its header ready at `ready` (default:
  /// tx_cycles from now).
  virtual void send_control(std::uint32_t peer, CcloMsg type, std::uint64_t addr, std::uint64_t a, std::uint64_t b,
                            std::optional<SimTime> ready = std::nullopt) = 0;
  /// Wake the firmware if it waits for an event (a notification, a move status, a call, a failure).
  virtual void wake_firmware() = 0;

protected:
  ~FirmwarePorts() = default;
};

} // namespace nafsim::nodes
