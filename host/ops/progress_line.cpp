#include "ops/progress_line.hpp"

#include <unistd.h>

#include <iostream>

namespace hami::ops {

ProgressLine::ProgressLine(std::ostream& out, std::chrono::milliseconds interval, Clock clock)
    : out_(out), interval_(interval), clock_(std::move(clock)), last_(clock_()) {}

ProgressLine::~ProgressLine() {
  if (shown_)
    out_ << "\r\x1b[K" << std::flush;  // carriage return, erase to the end of the line
}

void ProgressLine::update(std::string_view label, size_t done, size_t total) {
  const auto now = clock_();
  if (shown_ && now - last_ < interval_)
    return;
  last_ = now;
  shown_ = true;
  out_ << "\r\x1b[Ksimulate: " << label << ": " << done << " of " << total << " pods" << std::flush;
}

bool is_terminal_stderr(const std::ostream& err) {
  return &err == &std::cerr && ::isatty(STDERR_FILENO) == 1;
}

}  // namespace hami::ops
