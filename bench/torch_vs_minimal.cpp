// Is dlcbench's host figure the workload's own speed? For each network, runs
// the minimal LibTorch loop (bench/minimal_torch.cpp) and `dlcbench worker`
// on the same case alternately, round by round (the order flipping every
// round so drift cancels), each a fresh process with the same thread
// settings, and prints both figures and their ratio with a 95% interval.
//
//   torch_vs_minimal [--workloads fcn5,alexnet,resnet56,lstm] [--runs N] [--batch B]
//                    [--warmup W] [--iters I] [--threads T]
#include <cstdlib>
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/allocator.h"
#include "core/process.h"
#include "network_bench_options.h"
#include "core/statistics.h"
#include "orchestrator/plan.h"
#include "workloads/registry.h"

using namespace dlcbench;

int main(int argc, char** argv) {
  const auto options = bench::parse_network_bench_options(argc, argv);
  if (!options) return 2;
  const auto& [workload_list, runs, batch, warmup, iters, threads] = *options;
  const std::string t = std::to_string(threads);
  // The same threads and the same allocator thresholds for both programs:
  // the worker pins glibc's thresholds itself (src/core/allocator.h), so the
  // minimal loop gets the same values through glibc's own variables.
  const std::vector<std::pair<std::string, std::string>> env = {
      {"OMP_NUM_THREADS", t},
      {"OPENBLAS_NUM_THREADS", t},
      {"MKL_NUM_THREADS", t},
      {"MALLOC_MMAP_THRESHOLD_", std::to_string(kMmapThresholdBytes)},
      {"MALLOC_TRIM_THRESHOLD_", std::to_string(kTrimThresholdBytes)}};

  auto mean_of_run = [&](std::vector<std::string> command, bool json) {
    ProcessSpec spec{std::move(command), env, 3600, nullptr, {}, "", -1};
    double mean = -1;
    auto r = run_process(spec, [&](std::string_view line) {
      if (!json) {
        mean = std::stod(std::string(line));
        return;
      }
      auto j = nlohmann::json::parse(line);
      if (j.value("type", "") == "done") mean = j["mean_seconds"].get<double>();
    });
    if (!r.ok() || mean <= 0) throw std::runtime_error(spec.argv[0] + " " + r.describe() + "\n" + r.stderr_tail);
    return mean;
  };

  std::cout << fmt::format("LibTorch, {} threads, {} runs x {} measured batches each (synthetic data)\n", threads,
                           runs, iters);
  std::cout << fmt::format("{:<10} {:>6} {:>14} {:>14} {:>10} {:>22}  {}\n", "network", "batch", "minimal s/b",
                           "dlcbench s/b", "ratio", "95% CI (Fieller)", "within 5%");
  for (const auto& name : split_list(workload_list)) {
    const WorkloadInfo* w = find_workload(name);
    if (!w) throw std::runtime_error("unknown workload " + name);
    const int b = batch > 0 ? batch : w->model.default_batch("cpu");
    const std::vector<std::string> minimal = {MINIMAL_TORCH_BINARY, name, std::to_string(b), std::to_string(warmup),
                                              std::to_string(iters), t};
    const std::vector<std::string> worker = {DLCBENCH_BINARY, "worker", "--workload", name, "--backend", "torch",
                                             "--batch", std::to_string(b), "--warmup", std::to_string(warmup),
                                             "--iters", std::to_string(iters), "--threads", t, "--data", "synthetic"};
    std::vector<double> m, d;
    for (int round = 0; round < runs; ++round) {
      if (round % 2 == 0) {
        m.push_back(mean_of_run(minimal, false));
        d.push_back(mean_of_run(worker, true));
      } else {
        d.push_back(mean_of_run(worker, true));
        m.push_back(mean_of_run(minimal, false));
      }
      std::cerr << fmt::format("{} round {}/{}: minimal {:.5f}  dlcbench {:.5f} s/batch\n", name, round + 1, runs,
                               m.back(), d.back());
    }
    const RatioEstimate r = ratio_of_means(d, m);
    std::cout << fmt::format("{:<10} {:>6} {:>14.5f} {:>14.5f} {:>10.4f} {:>22}  {}\n", name, b, mean(m), mean(d),
                             r.ratio, fmt::format("{:.4f} .. {:.4f}", r.ci95_low, r.ci95_high),
                             r.ratio >= 0.95 && r.ratio <= 1.05 ? "yes" : "NO");
  }
  return 0;
}
