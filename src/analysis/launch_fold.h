// The second pass of the analysis: results.jsonl's records folded into
// launches. A launch's samples are kept apart until its launch record says it
// finished, so a launch cut short contributes no run value; a "resume" line
// ends every launch still open (the earlier session's, measured again after
// it); a failed launch measured again by `run --resume` counts once, as the
// new one.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/analysis.h"

namespace dlcbench {

struct LaunchSamples {
  std::vector<double> measured, warmups, losses;
  // loader: the measured samples' time waiting for data, summed; nullopt
  // when they say nothing of it.
  std::optional<double> data_wait_seconds;
  // syscall/table: each kind's ns per call, one per measured operation.
  std::map<std::string, std::vector<double>> call_ns;
  // The launch's "accounting" record (core/accounting.h), when it wrote one.
  std::optional<nlohmann::json> accounting;
  // A user's command with --metric: seconds from its start to the line that
  // ended its last warm-up iteration (dlcbench-probe's start-up phase).
  std::optional<double> startup_seconds;
  // serve: the way the load generator reached the server ("host", "veth",
  // "slirp"), from the server's "listening" line, and the request rate the
  // load generator achieved, from its "load" line.
  std::string serve_path;
  std::optional<double> achieved_rate;
};

struct FinishedLaunch {
  LaunchSamples samples;
  bool ok = false;  // the launch record said so and it has measured samples
  std::string cause;
};

// (case, environment, round): ordered, so run values stay in round order
// even when `run --resume` measured some rounds after later ones.
using LaunchId = std::tuple<std::string, std::string, int>;

struct FoldedLaunches {
  std::map<LaunchId, FinishedLaunch> finished;
  std::map<LaunchId, LaunchSamples> unfinished;  // no launch record: the run stopped during them
  int launch_records = 0;                        // every "launch" line, of any case
  // (case, environment): values --metric captured and refused, over launches.
  struct Refused {
    std::size_t count = 0;
    std::vector<std::string> values;  // the first few
  };
  std::map<std::pair<std::string, std::string>, Refused> refused;
  // (case, environment): launches whose command left processes running,
  // which the probe ended; their names, and whether any needed SIGKILL.
  struct Leftovers {
    std::size_t launches = 0;
    std::map<std::string, std::size_t> names;  // name -> processes so named
    bool killed = false;
  };
  std::map<std::pair<std::string, std::string>, Leftovers> leftovers;
  // Records left out, with the first of each kind ("line 7: ...").
  std::size_t malformed = 0, unknown = 0;
  std::string first_malformed, first_unknown;
};

// Folds the records into `a`'s planned cases: each environment's first
// fingerprint (and what changed in later ones), its micro-benchmark work,
// and notes, in record order, for launches cut off by a resume, environments
// unavailable or dropped, and launches recorded twice. `line_numbers`
// (parallel to records, optional) names the line of results.jsonl.
FoldedLaunches fold_launches(Analysis& a, const std::vector<nlohmann::json>& records,
                             const std::vector<std::size_t>& line_numbers);

}  // namespace dlcbench
