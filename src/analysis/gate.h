// `dlcbench gate` (issue 40): a run's comparisons turned into pass and fail
// for a CI pipeline, each from the one typed headline figure the reports
// use. The slowdown is the time ratio (seconds per operation, for a rate
// too) less one, with its 95% interval:
//
//   pass         its upper end is within the margin (--max-overhead)
//   fail         its lower end is beyond it: slower beyond the margin
//   cannot tell  the interval straddles the margin, or there is none; with
//                the rounds that would settle it, from this run's own noise
//
// Against a stored reference run, the same for the ratio of the two runs'
// ratios: did the overhead grow by more than the margin?
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.h"
#include "model/manifest.h"

namespace dlcbench {

enum class GateOutcome { pass, fail, cannot_tell, not_compared };
const char* gate_outcome_name(GateOutcome o);  // "pass", "fail", "cannot tell", "not compared"

// A stored run's overhead for one case and environment (the reference).
struct GateReference {
  std::string run_id;
  Headline headline;
};

struct GateCheck {
  std::string case_id, env, baseline;
  GateOutcome outcome = GateOutcome::cannot_tell;
  Headline headline;
  // The figure judged: the time ratio, or against a reference the ratio of
  // this run's to the reference's, with its 95% interval (NaN: none).
  double ratio = 1, low = 0, high = 0;
  std::optional<GateReference> reference;
  std::size_t rounds = 0;         // this run's, compared
  std::size_t rounds_needed = 0;  // cannot tell: the rounds that would settle it (0: none would)
  std::string why;                // cannot tell, not compared: in words
};

struct GateResult {
  double max_overhead = 0;  // the margin, as a share: 0.03
  std::vector<GateCheck> checks;
  // What stops a pass whatever the checks say (kept apart for exit codes).
  bool no_comparison = false;
  std::vector<std::string> missing;  // environments planned and not measured, failed launches: in words
  bool not_comparable = false;
};

// `references`: per "case\tenv", the stored reference overhead; empty
// without --reference.
GateResult gate_run(const Analysis& a, const Manifest& m, double max_overhead,
                    const std::map<std::string, GateReference>& references = {});

// "case\tenv", the key of `references`.
std::string gate_key(const std::string& case_id, const std::string& env);

}  // namespace dlcbench
