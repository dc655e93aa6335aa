// Is dlcbench's host figure the workload's own speed? Runs the minimal
// LibTorch loop (bench/fcn5_minimal.cpp) and `dlcbench worker` on the same
// case alternately, round by round (the order flipping each round so drift
// cancels), each a fresh process with the same thread settings, and prints
// both figures and their ratio with a 95% confidence interval.
//
//   fcn5_vs_minimal [--runs N] [--batch B] [--warmup W] [--iters I] [--threads T]
#include <cstdlib>
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/process.h"
#include "core/statistics.h"

using namespace dlcbench;

int main(int argc, char** argv) {
  int runs = 10, batch = 64, warmup = 5, iters = 20, threads = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int value = std::atoi(argv[i + 1]);
    if (flag == "--runs") runs = value;
    else if (flag == "--batch") batch = value;
    else if (flag == "--warmup") warmup = value;
    else if (flag == "--iters") iters = value;
    else if (flag == "--threads") threads = value;
    else {
      std::cerr << "unknown option " << flag << "\n";
      return 2;
    }
  }
  const std::string t = std::to_string(threads);
  const std::vector<std::pair<std::string, std::string>> env = {
      {"OMP_NUM_THREADS", t}, {"OPENBLAS_NUM_THREADS", t}, {"MKL_NUM_THREADS", t}};

  auto run_minimal = [&] {
    ProcessSpec spec{{FCN5_MINIMAL_BINARY, std::to_string(batch), std::to_string(warmup), std::to_string(iters), t},
                     env, 1800, nullptr};
    double mean = -1;
    auto r = run_process(spec, [&](std::string_view line) { mean = std::stod(std::string(line)); });
    if (!r.ok() || mean <= 0) throw std::runtime_error("fcn5_minimal " + r.describe() + "\n" + r.stderr_tail);
    return mean;
  };
  auto run_dlcbench = [&] {
    ProcessSpec spec{{DLCBENCH_BINARY, "worker", "--workload", "fcn5", "--backend", "torch", "--batch",
                      std::to_string(batch), "--warmup", std::to_string(warmup), "--iters", std::to_string(iters),
                      "--threads", t, "--data", "synthetic"},
                     env, 1800, nullptr};
    double mean = -1;
    auto r = run_process(spec, [&](std::string_view line) {
      auto j = nlohmann::json::parse(line);
      if (j.value("type", "") == "done") mean = j["mean_seconds"].get<double>();
    });
    if (!r.ok() || mean <= 0) throw std::runtime_error("dlcbench worker " + r.describe() + "\n" + r.stderr_tail);
    return mean;
  };

  std::vector<double> minimal, dlc;
  for (int round = 0; round < runs; ++round) {
    if (round % 2 == 0) {
      minimal.push_back(run_minimal());
      dlc.push_back(run_dlcbench());
    } else {
      dlc.push_back(run_dlcbench());
      minimal.push_back(run_minimal());
    }
    std::cerr << fmt::format("round {}/{}: minimal {:.5f}  dlcbench {:.5f} s/batch\n", round + 1, runs,
                             minimal.back(), dlc.back());
  }
  const Summary m = summarize(minimal), d = summarize(dlc);
  const RatioEstimate r = ratio_of_means(dlc, minimal);
  std::cout << fmt::format("FCN-5, LibTorch, batch {}, {} threads, {} runs x {} measured batches (synthetic data)\n",
                           batch, threads, runs, iters);
  std::cout << fmt::format("  minimal LibTorch loop   mean {:.5f} s/batch  median {:.5f}  CV {:.1f}%\n", m.mean,
                           m.median, 100 * m.cv);
  std::cout << fmt::format("  dlcbench worker (host)  mean {:.5f} s/batch  median {:.5f}  CV {:.1f}%\n", d.mean,
                           d.median, 100 * d.cv);
  std::cout << fmt::format("  dlcbench / minimal = {:.4f} (95% CI {:.4f} .. {:.4f}, Fieller; Welch p = {:.2g})\n",
                           r.ratio, r.ci95_low, r.ci95_high, r.test.p_value);
  const bool within = r.ratio >= 0.95 && r.ratio <= 1.05;
  std::cout << fmt::format("  target: within 5% -> {}\n", within ? "met" : "NOT met");
  return 0;
}
