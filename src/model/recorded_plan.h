// The plan as manifest.json records it, typed: its one JSON writer and its
// one reader. `run` writes it from the Plan (model/plan.h: record_of),
// `run --resume` turns it back into a Plan (plan_to_resume), and the
// analysis, the reports and the cluster analysis read its fields.
//
// The reader takes a manifest written by any earlier dlcbench: a field it
// lacks keeps its default here (or is unset where a default would be a
// guess, as the seed), and a case whose spec is incomplete keeps its id and
// workload. A field of the wrong type or out of range is a DataError naming
// it, never a JSON library exception or a number converted out of range.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/ablation_plan.h"
#include "core/case_spec.h"
#include "model/equivalence_margin.h"

namespace dlcbench {

struct PlannedCase {
  std::string id;        // as recorded: the key of its records in results.jsonl
  std::string workload;  // "" when the manifest has none
  CaseSpec spec;         // as recorded; when incomplete, only its workload is set
  bool spec_complete = true;
};

// Per environment label, the fingerprint fields (JSON pointers) its options
// are meant to change, so a difference there is asked for.
using RequestedFields = std::map<std::string, std::vector<std::string>>;

struct RecordedPlan {
  std::vector<PlannedCase> cases;
  std::vector<std::string> environments;  // labels, "#2" suffixes included, in the plan's order
  // Per label given by a label=NAME option, the environment as written
  // ("docker:cpus=1.5,label=prod"): what a resume parses. Others are their
  // label.
  std::map<std::string, std::string> written;
  // The environment as written for `label`.
  const std::string& written_as(const std::string& label) const {
    const auto it = written.find(label);
    return it == written.end() ? label : it->second;
  }
  std::optional<int> runs;                // --runs (rounds); unset: not recorded
  int max_runs = 0;
  double until_cv = 0;
  double precision = 0;                   // --precision, a share (0: none)
  double max_time_seconds = 0;
  double margin = kDefaultEquivalenceMargin;  // of the equivalence verdicts (--margin)
  bool calibration = false;                   // `dlcbench calibrate`: an A/A run
  bool hold_samples = false;                  // absent: written streaming the samples
  std::optional<std::uint64_t> seed;
  std::optional<std::string> data;
  std::optional<double> case_timeout_seconds;
  std::string baseline = "host";
  bool allow_mismatch = false;
  // As the orchestrator recorded them at plan time; a manifest of an older
  // dlcbench has none, and the reader fills them in from the labels.
  RequestedFields requested_fields;
  std::optional<AblationPlan> ablation;  // `dlcbench explain`: the environment explained and its variants
};

void to_json(nlohmann::json& j, const RecordedPlan& plan);
// Throws DataError naming the field ("manifest.json: plan.margin is 7, ...").
RecordedPlan read_recorded_plan(const nlohmann::json& plan);

// The fingerprint fields each environment's options are meant to change
// (model/container_options.h: fields_changed_by), by label; a label this
// version no longer parses changes none.
RequestedFields requested_fields_of(const std::vector<std::string>& labels);
// The same for a plan's environments, each parsed as written.
RequestedFields requested_fields_of(const RecordedPlan& plan);

}  // namespace dlcbench
