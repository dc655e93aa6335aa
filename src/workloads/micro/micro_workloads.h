// The micro-benchmarks of the paper (CPU: gemm, hpl, hpcg; memory: stream;
// disk: io-seq, io-lat) as dlcbench workloads: their variants, options,
// defaults and how their figures read.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/case_spec.h"
#include "workloads/micro/micro_benchmark.h"

namespace dlcbench {

inline constexpr const char* kServeWorkload = "serve";

struct MicroWorkloadInfo {
  std::string name;
  std::string description;
  // The figure people quote: a rate (work per second, e.g. GFLOP/s) or a
  // latency. Statistics are taken over seconds per operation, as for a
  // training step; reports convert with figure_unit and figure_scale.
  std::string figure_unit;   // "GFLOP/s", "GB/s", "MB/s", "ms"
  bool rate = true;          // figure = work / seconds / figure_scale; else seconds * figure_scale
  double figure_scale = 1e9;
  // What a time figure is per, where not per operation: syscall's ns is per
  // call (an operation makes many), so a time it adds is "ns per call".
  std::string figure_per = "operation";
  // One value per launch from its operations: "mean", "min" (best of N,
  // as STREAM reports) or "median" (latency).
  std::string run_statistic = "mean";
  std::vector<std::string> variants;  // each its own case; empty: one case
  std::vector<std::string> options;   // keys of "name:key=value"
  std::map<std::string, std::string> defaults;  // option defaults, as text
  int warmup = 1, iters = 5;          // unless --warmup / --iters are given
  bool io = false;                    // runs once per --path target
  // An external tool (dd, ioping, fio, hpcc) the worker runs, not code of
  // dlcbench's own: it must be installed, and images carry it.
  bool external = false;
  // Runs on the GPU, through the CUDA plugin (backends/cuda/gpu_plugin.h): its cases
  // have device "gpu".
  bool gpu = false;
  // Variants whose figure is in another unit (hpcc/stream: GB/s).
  std::map<std::string, std::string> variant_units;
  const std::string& unit(const std::string& variant) const {
    auto it = variant_units.find(variant);
    return it == variant_units.end() ? figure_unit : it->second;
  }
  std::function<std::unique_ptr<MicroBenchmark>(const MicroParams&)> make;
};

// The figure of an operation of `work` flops or bytes that took `seconds`:
// GFLOP/s, GB/s or MB/s for a rate, milliseconds for a latency.
double micro_figure(const MicroWorkloadInfo& info, double work, double seconds);

const std::vector<MicroWorkloadInfo>& micro_workloads();
const MicroWorkloadInfo* find_micro_workload(const std::string& name);

// One item of --workloads naming a micro-benchmark, e.g. "gemm/sgemm:n=2048"
// or "io-seq:size=1g,block=4m,mode=direct".
struct MicroRequest {
  std::string name;
  std::string variant;  // empty: every variant
  std::map<std::string, std::string> options;
};

// Throws UsageError naming the workload, the option and the valid values.
MicroRequest parse_micro_request(const std::string& text);

// I/O targets (--path): "rootfs" (the environment's own root file system),
// "tmpfs" (a tmpfs mounted for the worker), or an absolute host folder,
// bind-mounted read-write at the same place in containers.
inline constexpr const char* kRootfsTarget = "rootfs";
inline constexpr const char* kTmpfsTarget = "tmpfs";
// Checks a target before anything runs: a host folder must exist, be a
// folder, be writable and have `bytes` free. Throws UsageError.
void check_io_target(const std::string& target, std::uint64_t bytes);

struct MicroPlanSettings {
  std::vector<std::string> io_targets = {kRootfsTarget};
  std::optional<int> warmup, iters;  // override the workload's defaults
  int threads = 1;
  std::uint64_t seed = 42;
};

// The cases of one request, sizes resolved (STREAM's array from this
// machine's last-level cache) and checked against the memory available.
std::vector<CaseSpec> expand_micro_cases(const MicroRequest& request, const MicroPlanSettings& settings);

// What the worker passes to the benchmark for a case; `path` is the target's
// folder as the worker sees it.
MicroParams micro_params(const CaseSpec& spec, const std::string& path);

// Whether a plan item names an external tool that is not installed here
// (for suites, which leave such tools out with a warning).
bool external_tool_missing(const std::string& item);

// Bytes of memory a case needs (matrices, arrays), for the check before a run.
std::uint64_t micro_memory_bytes(const CaseSpec& spec);


}  // namespace dlcbench
