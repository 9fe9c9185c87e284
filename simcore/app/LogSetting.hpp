#pragma once
// `nafsim run --log`: SimGrid's log settings (xbt_log_control_set), checked before SimGrid sees them, since
// SimGrid aborts the process on a setting it cannot parse.

#include <string>

namespace nafsim::app {

/// Empty if `setting` is a log setting SimGrid accepts: <category>.<key>:<value> with key thres (threshold), fmt
/// (format), app (appender) or add (additivity); a threshold is trace, debug, verbose, info, warning, error or
/// critical; an appender file:<path>, rollfile:<size>:<path> or splitfile:<size>:<path> whose folder exists; an
/// additivity on, off, yes, no, 1 or 0. Otherwise what is wrong and the form expected.
std::string check_log_setting(const std::string& setting);

} // namespace nafsim::app
