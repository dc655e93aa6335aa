// Which interval should the verdict use? Candidate estimators of the ratio
// of one environment's time per batch to another's, evaluated on real runs:
//
//   - coverage in A/A: launches of the same environment (every label that
//     starts with "host", e.g. `--envs host,host,docker`) split at random
//     into two groups of RUNS; the true ratio is 1, so a 95% interval must
//     contain it in at least 95% of the splits;
//   - coverage in interleaved A/A: RUNS rounds drawn at random, host against
//     host#2 of the same rounds (the paired designs need this);
//   - width: the median half-width of the interval, in percent;
//   - power: the share of random splits in which a slowdown of PLANT
//     percent, planted by scaling every batch of one group, is found with
//     the right sign (the interval lies above 1);
//   - on each other environment against the host: the estimate and interval
//     over all rounds, and the median half-width of RUNS-round subsets;
//   - with several folders (independent runs such as null_experiment.sh's,
//     KEEP=FOLDER), whole-run A/A: each estimator's interval over all rounds
//     of host#2 against host in each folder, how many of them contain 1 and
//     their median half-width. The splits above reuse one run's launches;
//     these are independent of each other.
//
//   build/dlcbench run --workloads fcn5 --envs host,host,docker --runs 40 --out /tmp/est
//   build/bench/estimators /tmp/est/<run-id> [--runs 20] [--splits 1000] [--plant 3]
//   build/bench/estimators /work/null/* --splits 100
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "core/results_file.h"
#include "core/shift_estimates.h"
#include "core/statistics.h"

namespace {
using namespace dlcbench;

// One launch: its measured batches.
struct Launch {
  int round = 0;
  std::vector<double> batches;
};
// By case, then environment label.
using Launches = std::map<std::string, std::map<std::string, std::vector<Launch>>>;

Launches read_launches(const std::filesystem::path& folder) {
  const auto results = read_results(folder / "results.jsonl");
  std::map<std::tuple<std::string, std::string, int>, std::vector<double>> samples;
  Launches out;
  for (const auto& r : results.records) {
    const std::string type = r.value("type", "");
    if (!r.contains("case") || !r.contains("env")) continue;
    const auto key = std::make_tuple(r["case"].get<std::string>(), r["env"].get<std::string>(), r.value("round", 0));
    if (type == "sample" && r.value("phase", "") == "measured") samples[key].push_back(r.value("seconds", 0.0));
    if (type == "launch" && r.value("ok", false))
      out[std::get<0>(key)][std::get<1>(key)].push_back({std::get<2>(key), samples[key]});
  }
  return out;
}

// A launch's single figure.
using RunStatistic = std::function<double(const std::vector<double>&)>;

struct Interval {
  double ratio = NAN, low = NAN, high = NAN;
  bool bounded() const { return std::isfinite(low) && std::isfinite(high) && low > 0; }
};

enum class Method { fieller, hodges_lehmann, yuen, paired_hodges_lehmann, paired_t };

struct Estimator {
  std::string name;
  RunStatistic statistic;
  Method method;
  bool paired() const { return method == Method::paired_hodges_lehmann || method == Method::paired_t; }
};

std::vector<double> logs_of(const std::vector<double>& xs) {
  std::vector<double> out;
  for (double x : xs) out.push_back(std::log(x));
  return out;
}

// The ratio subject / baseline with its 95% interval. For the paired
// methods the two vectors are the same rounds, in the same order.
Interval estimate(const Estimator& e, const std::vector<double>& subject, const std::vector<double>& baseline) {
  switch (e.method) {
    case Method::fieller: {
      const RatioEstimate r = ratio_of_means(subject, baseline);
      return {r.ratio, r.interval == RatioInterval::bounded ? r.ci95_low : NAN,
              r.interval == RatioInterval::bounded ? r.ci95_high : NAN};
    }
    case Method::hodges_lehmann: {
      const ShiftEstimate s = hodges_lehmann_shift(logs_of(subject), logs_of(baseline));
      return {std::exp(s.shift), std::exp(s.ci95_low), std::exp(s.ci95_high)};
    }
    case Method::yuen: {
      const ShiftEstimate s = yuen_trimmed_difference(logs_of(subject), logs_of(baseline));
      return {std::exp(s.shift), std::exp(s.ci95_low), std::exp(s.ci95_high)};
    }
    case Method::paired_hodges_lehmann:
    case Method::paired_t: {
      std::vector<double> d;
      for (std::size_t i = 0; i < subject.size(); ++i) d.push_back(std::log(subject[i]) - std::log(baseline[i]));
      if (e.method == Method::paired_hodges_lehmann) {
        const ShiftEstimate s = hodges_lehmann_paired(d);
        return {std::exp(s.shift), std::exp(s.ci95_low), std::exp(s.ci95_high)};
      }
      const Summary s = summarize(d);
      return {std::exp(s.mean), std::exp(s.ci95_low), std::exp(s.ci95_high)};
    }
  }
  return {};
}

std::vector<Estimator> candidates() {
  const RunStatistic run_mean = [](const std::vector<double>& b) { return mean(b); };
  const RunStatistic run_median = [](const std::vector<double>& b) { return median(b); };
  const RunStatistic run_q1 = [](const std::vector<double>& b) { return percentile(b, 0.25); };
  const RunStatistic run_min = [](const std::vector<double>& b) { return *std::min_element(b.begin(), b.end()); };
  const RunStatistic run_log_trimmed = [](const std::vector<double>& b) {
    std::vector<double> l = logs_of(b);
    std::sort(l.begin(), l.end());
    const std::size_t g = l.size() / 5;
    double s = 0;
    for (std::size_t i = g; i < l.size() - g; ++i) s += l[i];
    return std::exp(s / static_cast<double>(l.size() - 2 * g));
  };
  return {
      {"run means, ratio of means, Fieller (today)", run_mean, Method::fieller},
      {"run medians, ratio of means, Fieller", run_median, Method::fieller},
      {"run means, HL on logs, Mann-Whitney CI", run_mean, Method::hodges_lehmann},
      {"run medians, HL on logs, Mann-Whitney CI", run_median, Method::hodges_lehmann},
      {"run lower quartiles, HL on logs, MW CI", run_q1, Method::hodges_lehmann},
      {"run minima, HL on logs, MW CI", run_min, Method::hodges_lehmann},
      {"run 20%-trimmed log means, HL, MW CI", run_log_trimmed, Method::hodges_lehmann},
      {"run means, Yuen 20% trimmed on logs", run_mean, Method::yuen},
      {"run medians, Yuen 20% trimmed on logs", run_median, Method::yuen},
      {"run means, paired rounds, signed-rank HL", run_mean, Method::paired_hodges_lehmann},
      {"run medians, paired rounds, signed-rank HL", run_median, Method::paired_hodges_lehmann},
      {"run means, paired rounds, t on log ratios", run_mean, Method::paired_t},
  };
}

struct Tally {
  int total = 0, covered = 0, unbounded = 0, found = 0;
  std::vector<double> half_widths;
  void add(const Interval& i, double truth) {
    ++total;
    if (!i.bounded()) {
      ++unbounded;
      return;
    }
    covered += i.low <= truth && truth <= i.high;
    half_widths.push_back(50 * (i.high - i.low));
  }
  std::string coverage() const { return fmt::format("{:5.1f}%", 100.0 * covered / std::max(total, 1)); }
  std::string width() const { return half_widths.empty() ? "n/a" : fmt::format("{:5.2f}%", median(half_widths)); }
  std::string power() const { return fmt::format("{:5.1f}%", 100.0 * found / std::max(total, 1)); }
};

std::vector<double> figures(const Estimator& e, const std::vector<const Launch*>& launches, double scale = 1) {
  std::vector<double> out;
  for (const Launch* l : launches) {
    std::vector<double> b = l->batches;
    for (double& x : b) x *= scale;
    out.push_back(e.statistic(b));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Candidate estimators of an overhead, evaluated on real runs (A/A coverage, width, power)"};
  std::vector<std::string> folders;
  std::size_t runs = 20;
  int splits = 1000;
  double plant = 3;
  app.add_option("folders", folders, "Run folders (results/<run-id>) with two or more host labels")->required();
  app.add_option("--runs", runs, "Runs a side in each split");
  app.add_option("--splits", splits, "Random splits (and round subsets) per folder");
  app.add_option("--plant", plant, "Planted slowdown in percent, for the power column");
  CLI11_PARSE(app, argc, argv);
  const auto estimators = candidates();
  std::vector<Tally> whole_runs(estimators.size());
  int whole_run_folders = 0;

  for (const auto& folder : folders) {
    for (const auto& [case_id, envs] : read_launches(folder)) {
      std::vector<const Launch*> pool;
      std::vector<std::string> hosts;
      for (const auto& [env, launches] : envs)
        if (env.rfind("host", 0) == 0) {
          hosts.push_back(env);
          for (const auto& l : launches) pool.push_back(&l);
        }
      fmt::print("\n{} {}: {} host launches ({}), {} a side\n", folder, case_id, pool.size(), fmt::join(hosts, ", "),
                 runs);
      if (pool.size() < 2 * runs) {
        fmt::print("  fewer than 2 x {} host launches: no A/A splits\n", runs);
        continue;
      }
      // Rounds with both of the first two host labels, for interleaved A/A.
      std::map<int, std::pair<const Launch*, const Launch*>> both;
      if (hosts.size() >= 2) {
        for (const auto& l : envs.at(hosts[0])) both[l.round].first = &l;
        for (const auto& l : envs.at(hosts[1])) both[l.round].second = &l;
      }
      std::vector<std::pair<const Launch*, const Launch*>> rounds;
      for (const auto& [round, pair] : both)
        if (pair.first && pair.second) rounds.push_back(pair);
      if (!rounds.empty()) {
        ++whole_run_folders;
        std::vector<const Launch*> first, second;
        for (const auto& [a, b] : rounds) {
          first.push_back(a);
          second.push_back(b);
        }
        for (std::size_t i = 0; i < estimators.size(); ++i)
          whole_runs[i].add(estimate(estimators[i], figures(estimators[i], second), figures(estimators[i], first)), 1);
      }

      fmt::print("  {:<46} {:>9} {:>8} {:>9} {:>10} {:>8}\n", "estimator", "A/A cover", "width", "power",
                 "interleaved", "width");
      for (const auto& e : estimators) {
        Tally split, interleaved;
        std::mt19937 rng(1);
        for (int s = 0; s < splits; ++s) {
          std::vector<const Launch*> shuffled = pool;
          std::shuffle(shuffled.begin(), shuffled.end(), rng);
          const std::vector<const Launch*> a(shuffled.begin(), shuffled.begin() + static_cast<long>(runs));
          const std::vector<const Launch*> b(shuffled.begin() + static_cast<long>(runs),
                                             shuffled.begin() + static_cast<long>(2 * runs));
          if (!e.paired()) {
            split.add(estimate(e, figures(e, b), figures(e, a)), 1);
            // The planted slowdown: found when its interval lies above 1.
            const Interval p = estimate(e, figures(e, b, 1 + plant / 100), figures(e, a));
            split.found += p.bounded() && p.low > 1;
          }
          if (rounds.size() >= runs) {
            std::vector<std::pair<const Launch*, const Launch*>> r = rounds;
            std::shuffle(r.begin(), r.end(), rng);
            std::vector<const Launch*> first, second;
            for (std::size_t i = 0; i < runs; ++i) {
              first.push_back(r[i].first);
              second.push_back(r[i].second);
            }
            interleaved.add(estimate(e, figures(e, second), figures(e, first)), 1);
          }
        }
        fmt::print("  {:<46} {:>9} {:>8} {:>9} {:>10} {:>8}\n", e.name, e.paired() ? "-" : split.coverage(),
                   e.paired() ? "-" : split.width(), e.paired() ? "-" : split.power(),
                   rounds.size() >= runs ? interleaved.coverage() : "-", interleaved.width());
      }
      // Every other environment against the first host label.
      for (const auto& [env, launches] : envs) {
        if (env.rfind("host", 0) == 0 || hosts.empty()) continue;
        std::map<int, const Launch*> base_by_round;
        for (const auto& l : envs.at(hosts[0])) base_by_round[l.round] = &l;
        std::vector<const Launch*> subject, baseline;
        for (const auto& l : launches)
          if (base_by_round.count(l.round)) {
            subject.push_back(&l);
            baseline.push_back(base_by_round[l.round]);
          }
        fmt::print("  {} vs {} ({} paired rounds):\n", env, hosts[0], subject.size());
        for (const auto& e : estimators) {
          const Interval all = estimate(e, figures(e, subject), figures(e, baseline));
          Tally subsets;
          std::mt19937 rng(2);
          std::vector<std::size_t> idx(subject.size());
          std::iota(idx.begin(), idx.end(), std::size_t{0});
          for (int s = 0; s < splits && subject.size() > runs; ++s) {
            std::shuffle(idx.begin(), idx.end(), rng);
            std::vector<const Launch*> sub, base;
            for (std::size_t i = 0; i < runs; ++i) {
              sub.push_back(subject[idx[i]]);
              base.push_back(baseline[idx[i]]);
            }
            subsets.add(estimate(e, figures(e, sub), figures(e, base)), all.ratio);
          }
          fmt::print("    {:<46} {:+6.2f}% [{:+6.2f}, {:+6.2f}]  {}-run half-width {}\n", e.name, 100 * (all.ratio - 1),
                     100 * (all.low - 1), 100 * (all.high - 1), runs, subsets.width());
        }
      }
    }
  }
  if (whole_run_folders > 1) {
    fmt::print("\nwhole-run A/A over {} run folders (host#2 against host, all rounds of each):\n", whole_run_folders);
    fmt::print("  {:<46} {:>9} {:>9} {:>10}\n", "estimator", "contain 1", "unbounded", "half-width");
    for (std::size_t i = 0; i < estimators.size(); ++i) {
      const Tally& t = whole_runs[i];
      fmt::print("  {:<46} {:>5}/{:<3} {:>9} {:>10}\n", estimators[i].name, t.covered, t.total, t.unbounded, t.width());
    }
  }
  return 0;
}
