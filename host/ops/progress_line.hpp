// simulate's progress on a terminal: one line on stderr, rewritten in place
// ("\r") at most every `interval`, and erased when the run ends, so the
// report on stdout is not mixed with it. Only for a terminal: a redirected
// stderr gets nothing.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace hami::ops {

class ProgressLine {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  ProgressLine(std::ostream& out, std::chrono::milliseconds interval, Clock clock);
  ~ProgressLine();  // erases the line if one is shown
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // `done` of `total` pods of the run `label` ("binpack/spread"): the
  // first call shows it, later ones once `interval` has passed since the
  // last line shown.
  void update(std::string_view label, size_t done, size_t total);

 private:
  std::ostream& out_;
  std::chrono::milliseconds interval_;
  Clock clock_;
  std::chrono::steady_clock::time_point last_;
  bool shown_ = false;
};

// Whether `err` is this process's stderr and that is a terminal.
bool is_terminal_stderr(const std::ostream& err);

}  // namespace hami::ops
