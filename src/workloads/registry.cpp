#include "workloads/registry.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/errors.h"
#include "workloads/micro/micro_workloads.h"
#include "workloads/models/alexnet.h"
#include "workloads/models/fcn5.h"
#include "workloads/models/lstm.h"
#include "workloads/models/resnet56.h"

namespace dlcbench {

const std::vector<WorkloadInfo>& workloads() {
  static const std::vector<WorkloadInfo> all = {
      {"fcn5", "FCN-5 on MNIST: 784-2048-4096-1024-10, sigmoid, SGD momentum 0.9, lr 0.05", "s/batch",
       models::fcn5()},
      {"alexnet", "AlexNet-R on CIFAR-10: cuda-convnet 18pct without LRN, SGD momentum 0.9, lr 0.01", "s/batch",
       models::alexnet()},
      {"resnet56", "ResNet-56 on CIFAR-10: 6n+2, n=9, 16/32/64 channels, batch norm, SGD momentum 0.9, lr 0.01",
       "s/batch", models::resnet56()},
      {"lstm", "2-layer LSTM language model on PTB: hidden 256, 32 steps, vocabulary 10000, SGD lr 1.0",
       "s/batch", models::lstm()},
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
  for (const auto& w : micro_workloads()) names.push_back(w.name);
  names.push_back(kStartupWorkload);
  return names;
}

std::string run_statistic(const CaseSpec& spec) {
  if (spec.workload == kStartupWorkload) return "median";
  if (const MicroWorkloadInfo* micro = find_micro_workload(spec.workload)) return micro->run_statistic;
  return "mean";
}

const std::vector<BackendInfo>& backends() {
  static const std::vector<BackendInfo> all = {
      {"torch", "LibTorch (PyTorch C++ API)", {"cpu"}},
      {"reference", "dlcbench's own engine on the BLAS (im2col convolutions, OpenMP): the transparent baseline", {"cpu"}},
      {"onednn", "oneDNN primitives (Intel's deep-learning library), loss, optimiser and embedding written here", {"cpu"}},
      {"cuda", "NVIDIA GPU: cuBLAS and cuDNN in FP32 (TF32 off), LSTM gates and loss in kernels of our own, timed "
               "with CUDA events", {"gpu"}},
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

void validate_workload_name(const std::string& workload) {
  if (workload == kStartupWorkload || find_micro_workload(workload) || find_workload(workload)) return;
  throw UsageError(fmt::format("unknown workload '{}': valid workloads are {}", workload,
                               fmt::join(workload_names(), ", ")));
}

void validate_backend_name(const std::string& backend) {
  if (!find_backend(backend))
    throw UsageError(fmt::format("unknown back end '{}': valid back ends are {}", backend,
                                 fmt::join(backend_names(), ", ")));
}

void validate_case_names(const std::string& workload, const std::string& backend,
                         const std::string& device) {
  validate_workload_name(workload);
  // No back end or device of their own.
  if (workload == kStartupWorkload || find_micro_workload(workload)) return;
  validate_backend_name(backend);
  const BackendInfo* b = find_backend(backend);
  if (std::find(b->devices.begin(), b->devices.end(), device) == b->devices.end())
    throw UsageError(fmt::format("back end '{}' does not support device '{}': it supports {}",
                                 backend, device, fmt::join(b->devices, ", ")));
}

}  // namespace dlcbench
