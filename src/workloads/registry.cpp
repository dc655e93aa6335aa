#include "workloads/registry.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/errors.h"
#include "workloads/models/fcn5.h"

namespace dlcbench {

const std::vector<WorkloadInfo>& workloads() {
  static const std::vector<WorkloadInfo> all = {
      {"fcn5", "FCN-5 on MNIST: 784-2048-4096-1024-10, sigmoid, SGD momentum 0.9, lr 0.05",
       "s/batch", "mnist", models::fcn5()},
  };
  return all;
}

const WorkloadInfo* find_workload(const std::string& name) {
  for (const auto& w : workloads())
    if (w.name == name) return &w;
  return nullptr;
}

std::vector<std::string> workload_names() {
  std::vector<std::string> names;
  for (const auto& w : workloads()) names.push_back(w.name);
  return names;
}

const std::vector<BackendInfo>& backends() {
  static const std::vector<BackendInfo> all = {
      {"torch", "LibTorch (PyTorch C++ API)", {"cpu"}},
  };
  return all;
}

const BackendInfo* find_backend(const std::string& name) {
  for (const auto& b : backends())
    if (b.name == name) return &b;
  return nullptr;
}

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const auto& b : backends()) names.push_back(b.name);
  return names;
}

void validate_case_names(const std::string& workload, const std::string& backend,
                         const std::string& device) {
  if (!find_workload(workload))
    throw UsageError(fmt::format("unknown workload '{}': valid workloads are {}", workload,
                                 fmt::join(workload_names(), ", ")));
  const BackendInfo* b = find_backend(backend);
  if (!b)
    throw UsageError(fmt::format("unknown back end '{}': valid back ends are {}", backend,
                                 fmt::join(backend_names(), ", ")));
  if (std::find(b->devices.begin(), b->devices.end(), device) == b->devices.end())
    throw UsageError(fmt::format("back end '{}' does not support device '{}': it supports {}",
                                 backend, device, fmt::join(b->devices, ", ")));
}

}  // namespace dlcbench
