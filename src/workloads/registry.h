// The workloads and back ends dlcbench knows, by the names used on the
// command line.
#pragma once

#include <string>
#include <vector>

#include "core/case_spec.h"
#include "workloads/models/model_spec.h"

namespace dlcbench {

struct WorkloadInfo {
  std::string name;
  std::string description;
  std::string unit;  // of the reported figure, e.g. "s/batch"
  models::ModelSpec model;
  const std::string& dataset() const { return model.dataset; }
};

// The training workloads, run by the worker.
const std::vector<WorkloadInfo>& workloads();
const WorkloadInfo* find_workload(const std::string& name);

// The startup workload: the orchestrator times the start of a static program
// that exits at once, in each environment. It has no model, back end or data.
inline constexpr const char* kStartupWorkload = "startup";
inline constexpr const char* kStartupDescription =
    "Container start-up: wall time from launch to exit of a static program that does nothing, per start";

// Every workload name accepted on the command line (training, the
// micro-benchmarks of micro/micro_workloads.h, and startup).
std::vector<std::string> workload_names();

// How one launch's samples become its run value (see run_value): the mean of
// training steps, the median of starts, a micro-benchmark's own statistic.
std::string run_statistic(const CaseSpec& spec);

struct BackendInfo {
  std::string name;
  std::string description;
  std::vector<std::string> devices;
};
const std::vector<BackendInfo>& backends();
const BackendInfo* find_backend(const std::string& name);
std::vector<std::string> backend_names();
// Why the back end cannot run with this build's worker (not compiled in, and
// how to build it), or "" when it can. Loads nothing (backend_availability.cpp).
std::string backend_unavailable(const std::string& name);

// Each throws UsageError listing the valid names when a name is unknown.
void validate_workload_name(const std::string& workload);
void validate_backend_name(const std::string& backend);
// Both, and that the back end supports the device (UsageError otherwise).
void validate_case_names(const std::string& workload, const std::string& backend,
                         const std::string& device);

}  // namespace dlcbench
