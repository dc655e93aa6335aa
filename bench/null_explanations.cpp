// The null experiment for explanations: how often a cause is claimed when
// there is no overhead. A run of host against host (`--envs host,host`)
// gives launches of one environment; this splits them at random, REPS
// times with seeds 1..REPS, into two groups of RUNS launches, compares the
// groups as dlcbench compares environments, and counts the splits in which
// the report would say "explained by". A 5% test makes about one in twenty
// significant by chance; a cause needs its own change to be significant too.
//
//   build/dlcbench run --workloads fcn5 --envs host,host --runs 30 --out /tmp/aa
//   build/bench/null_explanations /tmp/aa/<run-id> [REPS=20] [RUNS=20]
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/analysis.h"
#include "analysis/explanation.h"
#include "model/manifest.h"
#include "core/results_file.h"

int main(int argc, char** argv) {
  using namespace dlcbench;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s RUN_FOLDER [REPS=20] [RUNS=20]\n", argv[0]);
    return 2;
  }
  const std::filesystem::path folder = argv[1];
  const int reps = argc > 2 ? std::stoi(argv[2]) : 20;
  const std::size_t runs = argc > 3 ? static_cast<std::size_t>(std::stoi(argv[3])) : 20;
  const auto manifest = read_json_file(folder / "manifest.json");
  const auto results = read_results(folder / "results.jsonl");
  const Analysis a = analyze(manifest, results.records, results.line_numbers);
  int cases = 0;
  for (const auto& c : a.cases) {
    if (c.startup) continue;
    // Every launch of the host, whichever label it ran under.
    struct PooledRun {
      double value;
      LaunchCounters counters;
    };
    std::vector<PooledRun> pool;
    for (const auto& e : c.envs) {
      if (e.env.rfind("host", 0) != 0 || e.run_counters.size() != e.run_values.size()) continue;
      for (std::size_t i = 0; i < e.run_values.size(); ++i)
        pool.push_back({e.run_values[i], e.run_counters[i]});
    }
    if (pool.size() < 2 * runs) {
      fmt::print("{}: {} host launches with counters, fewer than 2 x {}: skipped\n", c.case_id, pool.size(), runs);
      continue;
    }
    ++cases;
    int significant = 0, claimed = 0;
    for (int seed = 1; seed <= reps; ++seed) {
      std::mt19937 rng(static_cast<unsigned>(seed));
      auto shuffled = pool;
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      std::vector<double> va, vb;
      std::vector<LaunchCounters> ca, cb;
      for (std::size_t i = 0; i < runs; ++i) {
        va.push_back(shuffled[i].value);
        ca.push_back(shuffled[i].counters);
        vb.push_back(shuffled[runs + i].value);
        cb.push_back(shuffled[runs + i].counters);
      }
      // A random split pairs no rounds: the two-sample form of the verdict.
      const Overhead o = compare_figures("B", {vb, {}}, {va, {}}, ComparisonWording::overhead);
      const Explanation e = explain_overhead(o, cb, ca, 0);
      significant += is_significant(o.verdict);
      claimed += e.status == ExplanationStatus::explained;
      const std::string words = explanation_words(e, "A");
      fmt::print("{} seed {:2}: {}{}\n", c.case_id, seed, short_verdict_words(o, ComparisonWording::overhead),
                 words.empty() ? "" : " - " + words);
    }
    fmt::print("{}: {} launches split {} times into 2 x {}: significant in {}, a cause claimed in {} (target: at "
               "most 3)\n",
               c.case_id, pool.size(), reps, runs, significant, claimed);
  }
  return cases ? 0 : 1;
}
