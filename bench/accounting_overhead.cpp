// What the accounting of the measured phase costs (src/core/accounting.h).
// For each network, runs `dlcbench worker` with and without the accounting
// alternately, round by round (the order flipping every round so drift
// cancels), and prints the mean s/batch of both with their ratio and 95%
// interval, and the accounting's own calls (timed in every launch) as a share
// of a batch. The target: under 1% of s/batch for every network.
//
//   accounting_overhead [--workloads fcn5,alexnet,resnet56,lstm] [--runs N] [--batch B]
//                       [--warmup W] [--iters I] [--threads T]
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/process.h"
#include "network_bench_options.h"
#include "core/statistics.h"
#include "orchestrator/plan.h"
#include "workloads/registry.h"

using namespace dlcbench;

namespace {

struct Launch {
  double mean_seconds = -1;      // s/batch over the measured batches
  double accounting_seconds = 0;  // the accounting's own calls in the launch
};

Launch run_worker(const std::vector<std::string>& command, const std::vector<std::pair<std::string, std::string>>& env) {
  ProcessSpec spec{command, env, 3600, nullptr, {}, "", -1};
  Launch out;
  auto r = run_process(spec, [&](std::string_view line) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) return;
    if (j.value("type", "") == "done") out.mean_seconds = j["mean_seconds"].get<double>();
    if (j.value("type", "") == "accounting") out.accounting_seconds = j["accounting_seconds"].get<double>();
  });
  if (!r.ok() || out.mean_seconds <= 0) throw std::runtime_error(command[0] + " " + r.describe() + "\n" + r.stderr_tail);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const auto options = bench::parse_network_bench_options(argc, argv, bench::NetworkBenchOptions{.warmup = 3});
  if (!options) return 2;
  const auto& [workload_list, runs, batch, warmup, iters, threads] = *options;
  const std::string t = std::to_string(threads);
  const std::vector<std::pair<std::string, std::string>> env = {
      {"OMP_NUM_THREADS", t}, {"OPENBLAS_NUM_THREADS", t}, {"MKL_NUM_THREADS", t}};

  std::cout << fmt::format("dlcbench worker, torch, {} threads, {} runs x {} measured batches (synthetic data)\n",
                           threads, runs, iters);
  std::cout << fmt::format("{:<10} {:>6} {:>13} {:>13} {:>8} {:>20} {:>14} {:>12}\n", "network", "batch",
                           "without s/b", "with s/b", "ratio", "95% CI (Fieller)", "own calls ms", "of a batch");
  for (const auto& name : split_list(workload_list)) {
    const WorkloadInfo* w = find_workload(name);
    if (!w) throw std::runtime_error("unknown workload " + name);
    const int b = batch > 0 ? batch : w->model.default_batch("cpu");
    std::vector<std::string> with = {DLCBENCH_BINARY, "worker", "--workload", name, "--backend", "torch",
                                     "--batch", std::to_string(b), "--warmup", std::to_string(warmup),
                                     "--iters", std::to_string(iters), "--threads", t, "--data", "synthetic"};
    std::vector<std::string> without = with;
    without.push_back("--no-accounting");
    std::vector<double> on, off, own;
    for (int round = 0; round < runs; ++round) {
      for (bool first_on : {round % 2 == 0, round % 2 != 0}) {
        const Launch l = run_worker(first_on ? with : without, env);
        (first_on ? on : off).push_back(l.mean_seconds);
        if (first_on) own.push_back(l.accounting_seconds);
      }
      std::cerr << fmt::format("{} round {}/{}: with {:.5f}  without {:.5f} s/batch, own calls {:.2f} ms\n", name,
                               round + 1, runs, on.back(), off.back(), 1e3 * own.back());
    }
    const RatioEstimate r = ratio_of_means(on, off);
    std::cout << fmt::format("{:<10} {:>6} {:>13.5f} {:>13.5f} {:>8.4f} {:>20} {:>14.2f} {:>11.3f}%\n", name, b,
                             mean(off), mean(on), r.ratio, fmt::format("{:.4f} .. {:.4f}", r.ci95_low, r.ci95_high),
                             1e3 * mean(own), 100 * mean(own) / mean(on));
  }
  return 0;
}
