// The live progress of a run on a terminal: one line rewritten in place;
// elsewhere nothing (the log lines, one per launch, are the record).
#pragma once

#include <string>

#include "orchestrator/scheduler.h"

namespace dlcbench {

class ProgressLine {
 public:
  ProgressLine();
  void show(const Progress& p);
  // A log line, above the live line.
  void log(const std::string& line);
  // Before anything else is written (the report, "interrupted"): the live
  // line must not run into it.
  void clear();
  ~ProgressLine() { clear(); }

 private:
  bool terminal_;
  bool shown_ = false;
};

}  // namespace dlcbench
