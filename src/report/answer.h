// The answer a user came for, built once for every format's first lines
// (the console after a run, the top of the HTML): per case, each
// environment's figure in the case's own unit, its overhead with the
// interval, and the verdict in words; one "why" line per environment with an
// overhead; then what every container shares, runs set aside, and where the
// details are. Everything else is in the full report (report_model.h).
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "report/report_model.h"

namespace dlcbench {

// One environment of a case, as the answer's chart draws it: the headline
// in its display unit (percent, or milliseconds added), NaN where none.
struct AnswerMark {
  std::string env;
  double value = std::numeric_limits<double>::quiet_NaN();
  double low = std::numeric_limits<double>::quiet_NaN();
  double high = std::numeric_limits<double>::quiet_NaN();
  bool significant = false;
};

struct AnswerCase {
  std::string title;     // the case id: "fcn5/torch/cpu/b64"
  std::string unit;      // "s/batch, lower is better", "ms per start, lower is better"
  Headline::Form form = Headline::Form::change;
  // time_added: the unit it is said in ("ms", "ns") and per what ("start", "call").
  std::string added_unit = "ms";
  std::string added_per = "start";
  // environment, figure, overhead (95% CI), verdict: every environment of
  // the case, the baseline first as it was planned.
  Table table;
  std::vector<AnswerMark> marks;  // the compared environments, in the table's order
  // "runsc: its helper processes' CPU is +60.4 of +113.2 ms per batch (53%);
  // likely cause: seccomp" for each environment with a significant overhead;
  // "docker is not compared: binary_sha256: host has ..., docker has ...;
  // fix: ..." for one that did not run like for like.
  std::vector<std::string> why;
  std::string ablation;  // `dlcbench explain`: the outcome in a sentence
  // "docker: 2 failed launches; the last, round 3: worker killed by signal 9
  // (Killed)": per environment with failed launches, so the cause is in the
  // answer and not only in the details.
  std::vector<std::string> failures;
};

struct Answer {
  std::string baseline;
  std::vector<AnswerCase> cases;
  // Isolation differences every compared container shows against the
  // baseline ("isolation/shm_bytes"): said once, not once per runtime.
  std::vector<std::string> shared_differences;
  // Environments compared despite a difference nobody asked for
  // (--allow-mismatch), marked "!" in the tables.
  std::vector<std::string> mismatch_allowed;
  // "host 6 of 144 set aside", "host 3 of 3 KEPT (too few undisturbed)": runs
  // disturbed from outside, per environment.
  std::vector<std::string> disturbed;
  std::vector<std::string> noise_floor;  // `dlcbench calibrate`: the machine's noise floor
  // What the analysis found in the files (a run interrupted, results lost,
  // samples of no planned case): said in the answer, never only in details.
  std::vector<std::string> notes;
};

Answer build_answer(const Analysis& analysis);

// An environment label in at most `width` columns,
// its start and end kept ("docker:cpus~memory=4g").
std::string short_label(const std::string& label, std::size_t width);

}  // namespace dlcbench
