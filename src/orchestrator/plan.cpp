#include "orchestrator/plan.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "core/errors.h"
#include "workloads/micro/micro_workloads.h"
#include "workloads/registry.h"

namespace dlcbench {

std::string launch_data(const Plan& plan, const CaseSpec& spec) {
  // The loader is the one micro-benchmark that reads a data set.
  return spec.micro() && spec.workers == 0 ? std::string(kSyntheticData) : plan.data;
}

namespace {

// A network's cases: each back end on each device of the request it
// supports, at each batch size (or the network's default for the device).
std::vector<CaseSpec> training_cases(const PlanRequest& request, const std::string& workload) {
  std::vector<CaseSpec> cases;
  for (const auto& backend : request.backends) {
    std::vector<std::string> devices;
    for (const auto& device : request.devices)
      if (const BackendInfo* b = find_backend(backend);
          b && std::find(b->devices.begin(), b->devices.end(), device) != b->devices.end())
        devices.push_back(device);
    // None: the error names the back end, the device and what it supports.
    if (devices.empty()) validate_case_names(workload, backend, request.devices.empty() ? "" : request.devices[0]);
    for (const auto& device : devices) {
      validate_case_names(workload, backend, device);
      std::vector<int> batches = request.batches;
      if (batches.empty()) batches.push_back(find_workload(workload)->model.default_batch(device));
      for (int batch : batches) {
        CaseSpec c;
        c.workload = workload;
        c.backend = backend;
        c.device = device;
        c.batch = batch;
        c.warmup = request.warmup.value_or(kTrainingWarmup);
        c.iters = request.iters.value_or(kTrainingIters);
        c.threads = request.threads;
        c.seed = request.seed;
        c.input = request.input;
        cases.push_back(c);
      }
    }
  }
  return cases;
}

// A user's command: one case, "cmd:<name>".
CaseSpec command_case(const PlanRequest& request) {
  CaseSpec c;
  c.workload = kCommandWorkload;
  c.backend = "none";
  c.batch = 0;
  // Its GPU (if it uses one) is given to the containers with --device gpu.
  c.device = std::find(request.devices.begin(), request.devices.end(), "gpu") != request.devices.end() ? "gpu" : "cpu";
  const bool per_iteration = request.command->metric.source != MetricSpec::Source::wall_time;
  c.warmup = per_iteration ? request.warmup.value_or(1) : 0;
  c.iters = 0;  // as many iterations as the command reports (one figure a launch without --metric)
  c.threads = request.threads;
  c.seed = request.seed;
  c.command = *request.command;
  return c;
}

}  // namespace

std::vector<CaseSpec> expand_cases(const PlanRequest& request) {
  if (request.workloads.empty() && !request.command)
    throw UsageError(fmt::format("no workload given: valid workloads are {}", fmt::join(workload_names(), ", ")));
  if (request.backends.empty() && !request.workloads.empty())
    throw UsageError(fmt::format("no back end given: valid back ends are {}", fmt::join(backend_names(), ", ")));
  if (request.io_targets.empty()) throw UsageError("--path: give at least one of rootfs, tmpfs or a folder");
  MicroPlanSettings micro;
  micro.io_targets = request.io_targets;
  micro.warmup = request.warmup;
  micro.iters = request.iters;
  micro.threads = request.threads;
  micro.seed = request.seed;

  std::vector<CaseSpec> cases;
  for (const auto& item : request.workloads) {
    const std::string workload = item.substr(0, item.find_first_of("/:"));
    if (find_micro_workload(workload)) {
      for (auto& c : expand_micro_cases(parse_micro_request(item), micro)) cases.push_back(std::move(c));
      continue;
    }
    if (workload != item)
      throw UsageError(fmt::format("workload '{}': only the micro-benchmarks ({}) take variants and options; "
                                   "training workloads take --batch and --backends",
                                   item, [] {
                                     std::vector<std::string> names;
                                     for (const auto& m : micro_workloads()) names.push_back(m.name);
                                     return fmt::format("{}", fmt::join(names, ", "));
                                   }()));
    if (workload == kStartupWorkload) {
      if (request.starts < 1) throw UsageError("--starts must be at least 1");
      CaseSpec c;
      c.workload = workload;
      c.backend = "none";
      c.batch = 0;
      // The first start of a round meets cold caches; it is timed and
      // reported apart as warm-up, like a training warm-up batch.
      c.warmup = 1;
      c.iters = request.starts;
      c.threads = request.threads;
      cases.push_back(c);
      continue;
    }
    for (auto& c : training_cases(request, workload)) cases.push_back(std::move(c));
  }
  if (request.command) cases.push_back(command_case(request));
  for (const auto& c : cases)
    if (!c.is_command() && c.workload != kStartupWorkload) check_worker_case_counts(c);
  for (std::size_t i = 0; i < cases.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (cases[i].id() == cases[j].id())
        throw UsageError(fmt::format("case {} is listed twice: give each workload and batch size (or variant) once",
                                     cases[i].id()));
  return cases;
}

}  // namespace dlcbench
