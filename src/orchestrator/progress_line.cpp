#include "orchestrator/progress_line.h"

#include <unistd.h>

#include <iostream>

#include <fmt/format.h>

namespace dlcbench {

ProgressLine::ProgressLine() : terminal_(isatty(STDERR_FILENO) == 1) {}

void ProgressLine::show(const Progress& p) {
  if (!terminal_) return;
  const std::string eta = p.eta_seconds < 0 ? "?" : fmt::format("{}m{:02}s", static_cast<long>(p.eta_seconds) / 60,
                                                                   static_cast<long>(p.eta_seconds) % 60);
  std::cerr << fmt::format("\r\x1b[K[{}/{}] round {}/{}  {}  in {}  ETA {}", p.done, p.total, p.round, p.rounds,
                           p.case_id, p.env, eta)
            << std::flush;
  shown_ = true;
}

void ProgressLine::log(const std::string& line) {
  if (shown_) std::cerr << "\r\x1b[K";
  shown_ = false;
  std::cerr << line << "\n";
}

void ProgressLine::clear() {
  if (shown_) std::cerr << "\r\x1b[K" << std::flush;
  shown_ = false;
}

}  // namespace dlcbench
