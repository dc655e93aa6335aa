// What analyze() takes from results.jsonl: each record, read field by field
// with the types checked (the plan's reader is model/recorded_plan.h).
// A field of the wrong type or out of range is a DataError naming the field,
// never a JSON library exception or a number converted out of range. Kept
// apart from the statistics so the readers link on their own (fuzz/).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/case_spec.h"

namespace dlcbench {

// One line of results.jsonl. Fields a record lacks keep these defaults.
// A counting launch's record (orchestrator/call_counting.h): what the
// worker's threads entered in its measured phase, per batch (per operation
// of a micro-benchmark), or why nothing could be counted.
struct OperationMix {
  std::string unavailable;  // empty: counted
  std::string method;
  int batches = 0;
  std::size_t threads = 0;
  double syscalls = 0;  // per batch, every kind
  std::map<std::string, double> by_kind;  // per batch: "futex", "read", ... (core/syscall_counter.h)
  // Per batch, where the method sees them (not in runsc's trace of calls).
  std::optional<double> page_faults, context_switches;
  // gVisor: the page faults the stubs that run the application's code took,
  // as the host's kernel counts them (per batch).
  std::optional<double> stub_page_faults;
};

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
  // loader: how long the training step waited for its batches (detail)
  std::optional<double> data_wait_seconds;
  // syscall/table: each kind's ns per call in this operation (detail)
  std::map<std::string, double> call_ns;
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
  // call_counts
  std::optional<OperationMix> operation_mix;
};
// How many refused --metric values a launch records, and a report names.
inline constexpr std::size_t kRefusedValuesKept = 5;

// Throws DataError naming the field; a sample without finite, non-negative
// seconds is one.
ResultRecord read_result_record(const nlohmann::json& record);

}  // namespace dlcbench
