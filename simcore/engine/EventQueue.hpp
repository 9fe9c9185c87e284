#pragma once
// The kernel's queue of pending events: the radix heap (RadixQueue.hpp). A build configured with
// -DNAFSIM_EVENT_QUEUE=calendar uses a calendar queue instead (CalendarQueue.hpp), with the same order, to measure
// the two on the same runs (simcore/engine/README.md).

#ifdef NAFSIM_CALENDAR_QUEUE
#include "simcore/engine/CalendarQueue.hpp"
#else
#include "simcore/engine/RadixQueue.hpp"
#endif

namespace nafsim {
#ifdef NAFSIM_CALENDAR_QUEUE
using EventQueue = CalendarQueue;
#else
using EventQueue = RadixQueue;
#endif
} // namespace nafsim
