// The framework comparison of issue 7 in one interleaved run: every back end
// compiled in trains every network (`dlcbench worker`, synthetic data, fresh
// process each time), in an order shuffled per round, next to the SGEMM
// peak measured in the same run (`dlcbench worker --workload gemm`). Prints
// seconds per batch, the achieved GFLOP/s (the network's FLOPs per batch,
// ModelSpec::training_flops_per_example x batch, over the time), the
// fraction of the GEMM peak, and each back end's ratio to the fastest.
//
//   backends_side_by_side [--backends torch,onednn,reference] [--workloads fcn5,alexnet,resnet56,lstm]
//                         [--runs N] [--batch B] [--warmup W] [--iters I] [--threads T] [--gemm-n N]
#include <algorithm>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "core/allocator.h"
#include "core/errors.h"
#include "core/process.h"
#include "core/statistics.h"
#include "orchestrator/plan.h"
#include "workloads/registry.h"

using namespace dlcbench;

namespace {

struct Settings {
  std::vector<std::string> backends = {"torch", "onednn", "reference"};
  std::vector<std::string> workloads = {"fcn5", "alexnet", "resnet56", "lstm"};
  int runs = 3, batch = 64, warmup = 3, iters = 10, threads = 2, gemm_n = 4096;
};

// The worker's "done" line: its mean seconds per step (or per GEMM).
double worker_mean(const std::vector<std::string>& args, const Settings& s) {
  const std::string t = std::to_string(s.threads);
  std::vector<std::string> argv = {DLCBENCH_BINARY, "worker"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--threads", t});
  ProcessSpec spec{argv,
                   {{"OMP_NUM_THREADS", t}, {"OPENBLAS_NUM_THREADS", t}},
                   3600, nullptr, {}, "", -1};
  double mean = -1;
  std::string error;
  auto r = run_process(spec, [&](std::string_view line) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) return;
    if (j.value("type", "") == "done") mean = j["mean_seconds"].get<double>();
    if (j.value("type", "") == "error") error = j.value("message", "");
  });
  if (!r.ok() || mean <= 0)
    throw std::runtime_error(fmt::format("worker {}: {} {}\n{}", fmt::join(args, " "), r.describe(), error,
                                         tail(r.stderr_tail, 2000)));
  return mean;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--backends") s.backends = split_list(value);
    else if (flag == "--workloads") s.workloads = split_list(value);
    else if (flag == "--runs") s.runs = std::stoi(value);
    else if (flag == "--batch") s.batch = std::stoi(value);
    else if (flag == "--warmup") s.warmup = std::stoi(value);
    else if (flag == "--iters") s.iters = std::stoi(value);
    else if (flag == "--threads") s.threads = std::stoi(value);
    else if (flag == "--gemm-n") s.gemm_n = std::stoi(value);
    else {
      std::cerr << "unknown option " << flag << "\n";
      return 2;
    }
  }
  // Back ends not compiled in are left out, saying so.
  std::vector<std::string> backends;
  for (const auto& b : s.backends) {
    try {
      make_backend(b, 1);
      backends.push_back(b);
    } catch (const UsageError& e) {
      std::cerr << "leaving out " << b << ": " << e.what() << "\n";
    }
  }

  struct Item {
    std::string workload, backend;  // backend empty: the GEMM peak
  };
  std::vector<Item> items = {{"gemm", ""}};
  for (const auto& w : s.workloads)
    for (const auto& b : backends) items.push_back({w, b});

  std::map<std::pair<std::string, std::string>, std::vector<double>> seconds;
  std::mt19937_64 rng(42);
  for (int round = 0; round < s.runs; ++round) {
    std::shuffle(items.begin(), items.end(), rng);
    for (const auto& item : items) {
      std::vector<std::string> args;
      if (item.backend.empty())
        args = {"--workload", "gemm", "--variant", "sgemm", "--size", std::to_string(s.gemm_n), "--warmup", "1",
                "--iters", "5"};
      else
        args = {"--workload", item.workload, "--backend", item.backend, "--batch", std::to_string(s.batch),
                "--warmup", std::to_string(s.warmup), "--iters", std::to_string(s.iters), "--data", "synthetic"};
      const double mean_seconds = worker_mean(args, s);
      seconds[{item.workload, item.backend}].push_back(mean_seconds);
      std::cerr << fmt::format("round {}/{}: {} {} {:.5f} s\n", round + 1, s.runs, item.workload,
                               item.backend.empty() ? "sgemm" : item.backend, mean_seconds);
    }
  }

  const double gemm_flops = 2.0 * s.gemm_n * s.gemm_n * s.gemm_n;
  const auto& gemm_times = seconds[{"gemm", ""}];
  const double peak = gemm_flops / mean(gemm_times) / 1e9;
  std::cout << fmt::format("SGEMM n={} (the peak measured in this run): {:.1f} GFLOP/s, {} threads, {} runs\n",
                           s.gemm_n, peak, s.threads, s.runs);
  std::cout << fmt::format("{:<9} {:<10} {:>6} {:>12} {:>18} {:>9} {:>8} {:>13}\n", "network", "back end", "batch",
                           "s/batch", "95% CI", "GFLOP/s", "of peak", "vs fastest");
  for (const auto& w : s.workloads) {
    const WorkloadInfo* info = find_workload(w);
    if (!info) throw std::runtime_error("unknown workload " + w);
    const double flops = info->model.training_flops_per_example() * s.batch;
    double fastest = 1e300;
    for (const auto& b : backends) fastest = std::min(fastest, mean(seconds[{w, b}]));
    for (const auto& b : backends) {
      const auto& xs = seconds[{w, b}];
      const Summary sum = summarize(xs);
      const double gflops = flops / sum.mean / 1e9;
      std::cout << fmt::format("{:<9} {:<10} {:>6} {:>12.5f} {:>18} {:>9.1f} {:>7.1f}% {:>12.2f}x\n", w, b, s.batch,
                               sum.mean,
                               xs.size() > 1 ? fmt::format("{:.5f}..{:.5f}", sum.ci95_low, sum.ci95_high) : "-",
                               gflops, 100 * gflops / peak, sum.mean / fastest);
    }
  }
  return 0;
}
