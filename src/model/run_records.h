// What analyze() takes from a run's two files, read field by field with the
// types checked: manifest.json's plan, and each record of results.jsonl.
// A field of the wrong type or out of range is a DataError naming the field,
// never a JSON library exception or a number converted out of range. Kept
// apart from the statistics so the readers link on their own (fuzz/).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/ablation_plan.h"
#include "core/case_spec.h"
#include "core/manifest.h"
#include "model/equivalence_margin.h"

namespace dlcbench {

struct PlannedCase {
  std::string id;
  std::string workload;  // "" when the manifest has none
  CaseSpec spec;         // as recorded; when incomplete, only its workload is set
};

// Per environment label, the fingerprint fields (JSON pointers) its options
// are meant to change, so a difference there is asked for.
using RequestedFields = std::map<std::string, std::vector<std::string>>;

struct ManifestPlan {
  RunStatus status = RunStatus::unknown;
  // Launch records the run wrote to results.jsonl, as its last session
  // counted them; unset in a manifest of a run still going or killed.
  std::optional<int> launches;
  std::string baseline = "host";
  std::vector<std::string> environments;  // labels, in the plan's order
  bool allow_mismatch = false;
  double margin = kDefaultEquivalenceMargin;  // of the equivalence verdicts (--margin)
  bool calibration = false;                   // `dlcbench calibrate`: an A/A run
  int runs = 0;                               // --runs as planned (0: not recorded)
  double precision = 0;                       // --precision (0: none)
  std::vector<PlannedCase> cases;
  // As the orchestrator recorded it at plan time (plan.requested_fields); a
  // manifest of an older dlcbench has none, and its reader fills them in
  // from the labels (orchestrator/plan.h: requested_fields_of).
  RequestedFields requested_fields;
  bool requested_fields_recorded = false;
  // `dlcbench explain`: the environment explained and its variants.
  std::optional<AblationPlan> ablation;
};

// Throws DataError naming the field for a manifest without a plan, or with
// a plan field of the wrong type.
ManifestPlan read_manifest_plan(const Manifest& manifest);

// One line of results.jsonl. Fields a record lacks keep these defaults.
struct ResultRecord {
  std::string type;                      // "sample", "launch", "fingerprint", "environment_unavailable", ...
  std::optional<std::string> case_id;    // absent, or not a string: the record names no case
  std::optional<std::string> env;
  int round = 0;
  std::string reason;                    // environment_unavailable / environment_dropped
  // sample
  double seconds = 0;                    // finite, not negative (also a command_startup's)
  std::string phase;                     // "warmup" or the measured phase
  std::optional<double> work, loss;
  // launch
  bool ok = false;
  std::string cause = "failed";
  // fingerprint
  std::string dataset = "?";
  bool in_container = false;
  std::string fs_type;
  // The most the device could give, in the figure's unit: gpu-gemm's
  // estimated peak GFLOP/s, gpu-copy's bandwidth limit in GB/s; from the
  // worker's description of the operation.
  std::optional<double> estimated_limit;
  // metric_refused: values --metric captured that are no positive number
  std::size_t refused_count = 0;
  std::vector<std::string> refused_values;  // the first kRefusedValuesKept, as captured
  // leftovers: the names of the processes a command left running when it
  // exited, which dlcbench-probe ended, and with which signal
  std::vector<std::string> leftover_names;
  std::string ended_with;
};
// How many refused --metric values a launch records, and a report names.
inline constexpr std::size_t kRefusedValuesKept = 5;

// Throws DataError naming the field; a sample without finite, non-negative
// seconds is one.
ResultRecord read_result_record(const nlohmann::json& record);

}  // namespace dlcbench
