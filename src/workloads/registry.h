// The workloads and back ends dlcbench knows, by the names used on the
// command line.
#pragma once

#include <string>
#include <vector>

#include "workloads/models/model_spec.h"

namespace dlcbench {

struct WorkloadInfo {
  std::string name;
  std::string description;
  std::string unit;  // of the reported figure, e.g. "s/batch"
  models::ModelSpec model;
  const std::string& dataset() const { return model.dataset; }
};

const std::vector<WorkloadInfo>& workloads();
const WorkloadInfo* find_workload(const std::string& name);
std::vector<std::string> workload_names();

struct BackendInfo {
  std::string name;
  std::string description;
  std::vector<std::string> devices;
};
const std::vector<BackendInfo>& backends();
const BackendInfo* find_backend(const std::string& name);
std::vector<std::string> backend_names();

// Throws UsageError listing the valid names when a name is unknown or a back
// end does not support the device.
void validate_case_names(const std::string& workload, const std::string& backend,
                         const std::string& device);

}  // namespace dlcbench
