#include "simcore/app/Progress.hpp"

#include <fmt/format.h>

namespace nafsim::app {

ProgressLine::ProgressLine(std::ostream& out, bool terminal, std::function<std::optional<double>()> done)
    : out_(out), terminal_(terminal), done_(std::move(done)), start_(Clock::now())
{
}

ProgressLine::~ProgressLine()
{
  if (terminal_ && shown_)
    out_ << "\r\033[K" << std::flush; // the summary follows on a clean line
}

std::string ProgressLine::line(double elapsed, SimTime now, std::uint64_t events, std::optional<double> done)
{
  std::string s = fmt::format("[run] {:.0f} s: simulated {}, {:.1f} M events ({:.2f} M/s)", elapsed, format_time(now),
                              static_cast<double>(events) / 1e6,
                              elapsed > 0 ? static_cast<double>(events) / elapsed / 1e6 : 0.0);
  if (done && *done > 0 && *done <= 1)
    s += fmt::format(", {:.0f} % of the workload done, about {:.0f} s left", 100 * *done,
                     elapsed * (1 - *done) / *done);
  return s;
}

void ProgressLine::tick_at(Clock::time_point wall, SimTime now, std::uint64_t events)
{
  const double elapsed = std::chrono::duration<double>(wall - start_).count();
  if (elapsed < next_)
    return;
  next_ = elapsed + (terminal_ ? 1.0 : 10.0);
  const std::string l = line(elapsed, now, events, done_ ? done_() : std::nullopt);
  if (terminal_)
    out_ << "\r\033[K" << l << std::flush;
  else
    out_ << l << "\n" << std::flush;
  shown_ = true;
}

} // namespace nafsim::app
