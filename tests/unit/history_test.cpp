// Overhead over time (analysis/history.h): a lasting change is flagged at
// the run it starts with and nowhere else, a run that is off is told apart
// from a change, and histories of A/A runs with this machine's drift
// between runs raise a false alarm at most as often as alpha says.
#include "analysis/history.h"

#include "core/statistics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

namespace dlcbench {
namespace {


// An entry whose time ratio is `ratio` with a 95% interval of +-`half` (in
// log terms), and the facts given.
HistoryEntry entry(const std::string& id, double ratio, double half, std::map<std::string, std::string> facts = {}) {
  HistoryEntry e;
  e.run_id = id;
  e.ended_at = "2026-12-07T10:00:" + id;
  e.headline.form = Headline::Form::change;
  e.headline.basis = Headline::Basis::robust;
  e.headline.time_ratio = ratio;
  e.headline.time_low = ratio * std::exp(-half);
  e.headline.time_high = ratio * std::exp(half);
  e.facts = std::move(facts);
  return e;
}

HistorySeries series_of(std::vector<HistoryEntry> entries, const std::string& env = "docker") {
  HistorySeries s;
  s.machine = "vm";
  s.case_id = "fcn5/torch/cpu/b64";
  s.env = env;
  s.baseline = "host";
  s.entries = std::move(entries);
  return s;
}

TEST(History, ALastingChangeIsFlaggedAtItsFirstRunWithWhatChangedAndNowhereElse) {
  // Five runs of docker against the host; from the third on, cpus=1.5.
  const std::map<std::string, std::string> before = {{"runtime version", "20.10.24"}, {"options", ""}};
  const std::map<std::string, std::string> after = {{"runtime version", "20.10.24"}, {"options", "cpus=1.5"}};
  const History h = analyze_history({series_of({entry("1", 1.004, 0.02, before), entry("2", 0.995, 0.02, before),
                                                entry("3", 1.31, 0.03, after), entry("4", 1.29, 0.03, after),
                                                entry("5", 1.32, 0.03, after)})});
  ASSERT_EQ(h.series.size(), 1u);
  const auto& steps = h.series[0].steps;
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(h.tests, 4u);
  EXPECT_FALSE(steps[0].flagged);
  EXPECT_TRUE(steps[1].flagged);
  EXPECT_FALSE(steps[1].transient);
  EXPECT_FALSE(steps[2].flagged);
  EXPECT_FALSE(steps[3].flagged);
  EXPECT_EQ(h.flagged, 1u);
  EXPECT_EQ(steps[1].to, 2u);  // the third entry
  EXPECT_NEAR(steps[1].ratio, 1.31 / 0.995, 1e-9);
  EXPECT_LT(steps[1].ratio_low, steps[1].ratio);
  EXPECT_GT(steps[1].ratio_low, 1.1);
  ASSERT_EQ(steps[1].changed.size(), 1u);
  EXPECT_EQ(steps[1].changed[0].name, "options");
  EXPECT_EQ(steps[1].changed[0].after, "cpus=1.5");
}

TEST(History, ARunThatIsOffAndTheNextBackIsOneRunOffNotAChange) {
  std::vector<HistoryEntry> e;
  for (int i = 0; i < 6; ++i) e.push_back(entry(std::to_string(i), i == 3 ? 1.40 : 1.0 + 0.003 * (i % 2), 0.02));
  const History h = analyze_history({series_of(e)});
  EXPECT_EQ(h.flagged, 0u);
  EXPECT_EQ(h.transients, 1u);
  EXPECT_TRUE(h.series[0].steps[2].transient);
  EXPECT_TRUE(h.series[0].steps[3].transient);
}

TEST(History, AnEntryWithoutAnIntervalIsNotTested) {
  auto none = entry("2", 1.5, 0.02);
  none.headline.time_low = none.headline.time_high = std::nan("");
  const History h = analyze_history({series_of({entry("1", 1.0, 0.02), none, entry("3", 1.0, 0.02)})});
  EXPECT_EQ(h.tests, 0u);
  EXPECT_FALSE(h.series[0].steps[0].tested);
  EXPECT_EQ(h.flagged, 0u);
}

// Histories of runs with this machine's drift: each run's overhead wanders
// by `drift` (log sd) beyond what its own interval says, with intervals of
// +-`half`. Returns the share of histories with any flag.
double false_alarm_rate(int histories, int runs, int series_per_history, double drift, double half, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> z(0, 1);
  int alarmed = 0;
  for (int k = 0; k < histories; ++k) {
    std::vector<HistorySeries> all;
    for (int s = 0; s < series_per_history; ++s) {
      std::vector<HistoryEntry> e;
      for (int i = 0; i < runs; ++i) {
        // The run's true overhead drifts; its estimate scatters within its
        // interval around that.
        const double truth = drift * z(rng);
        const double estimate = truth + half / kNormalQuantile975 * z(rng);
        e.push_back(entry(std::to_string(i), std::exp(estimate), half));
      }
      all.push_back(series_of(std::move(e), "env" + std::to_string(s)));
    }
    alarmed += analyze_history(std::move(all)).flagged > 0 ? 1 : 0;
  }
  return static_cast<double>(alarmed) / histories;
}

TEST(History, AAHistoriesWithDriftBetweenRunsRaiseFewFalseAlarms) {
  // This machine: runs of one configuration differ by about 3% from one to
  // the next while each run's interval is +-2% (issue 40's fixed bands
  // fail exactly here). 300 histories of 12 runs in 4 series each.
  const double rate = false_alarm_rate(300, 12, 4, 0.03, 0.02, 40);
  RecordProperty("false_alarm_rate", std::to_string(rate));
  EXPECT_LE(rate, 0.08);  // alpha 5%, and the sampling error of 300 histories
  // Without the drift term the same histories would alarm in most of them:
  // the test is of the drift model, not of luck.
  std::mt19937 rng(41);
  std::normal_distribution<double> z(0, 1);
  std::vector<HistoryEntry> e;
  for (int i = 0; i < 12; ++i) e.push_back(entry(std::to_string(i), std::exp(0.03 * z(rng) + 0.02 / kNormalQuantile975 * z(rng)), 0.02));
  const History one = analyze_history({series_of(e)});
  EXPECT_GT(one.series[0].drift, 0.01);
}

// The share of 200 histories of 10 runs, with the drift above, in which a
// lasting change of `shift` from the sixth run on is flagged there.
double power(double shift, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> z(0, 1);
  int found = 0;
  constexpr int kHistories = 200;
  for (int k = 0; k < kHistories; ++k) {
    std::vector<HistoryEntry> e;
    for (int i = 0; i < 10; ++i) {
      const double truth = (i >= 5 ? std::log(1 + shift) : 0) + 0.03 * z(rng);
      e.push_back(entry(std::to_string(i), std::exp(truth + 0.02 / kNormalQuantile975 * z(rng)), 0.02));
    }
    const History h = analyze_history({series_of(e)});
    found += h.series[0].steps[4].flagged ? 1 : 0;
  }
  return static_cast<double>(found) / kHistories;
}

TEST(History, ALastingChangeIsFoundThroughTheDriftWhenItIsLargeAgainstIt) {
  // Against a drift of 3% between runs, estimated from the ten runs
  // themselves: a quarter more overhead is found about half the time (0.48
  // in these 200 histories), two fifths 4 times in 5 (0.80); 5% is within
  // the drift and not claimed. A drift estimated from few runs costs power:
  // the price of false alarms held to alpha.
  RecordProperty("power_25_percent", std::to_string(power(0.25, 7)));
  RecordProperty("power_40_percent", std::to_string(power(0.40, 8)));
  EXPECT_GE(power(0.25, 7), 0.4);
  EXPECT_GE(power(0.40, 8), 0.75);
  EXPECT_LE(power(0.05, 9), 0.1);
}

}  // namespace
}  // namespace dlcbench

namespace dlcbench {
namespace {

// Real A/A runs of this machine (`dlcbench calibrate --workloads fcn5`, ten
// of them, 2026-12-07), as `dlcbench history --format json` printed them from
// the store: history reads them without a flag.
TEST(History, StoredRealAARunsRaiseNoFlag) {
  const auto file = std::filesystem::path(DLCBENCH_SOURCE_DIR) / "tests" / "data" / "history-aa" / "history.json";
  std::ifstream in(file);
  ASSERT_TRUE(in) << file;
  const auto stored = nlohmann::json::parse(in);
  std::vector<HistorySeries> series;
  for (const auto& s : stored.at("series")) {
    HistorySeries hs;
    hs.machine = s.at("machine");
    hs.case_id = s.at("case");
    hs.env = s.at("env");
    hs.baseline = s.at("baseline");
    for (const auto& e : s.at("entries")) {
      HistoryEntry entry;
      entry.run_id = e.at("run_id");
      entry.ended_at = e.at("ended_at");
      entry.calibration = e.at("calibration");
      entry.headline.basis = Headline::Basis::robust;
      entry.headline.time_ratio = e.at("time_ratio");
      entry.headline.time_low = e.at("time_ratio_ci95").at(0);
      entry.headline.time_high = e.at("time_ratio_ci95").at(1);
      hs.entries.push_back(entry);
    }
    series.push_back(std::move(hs));
  }
  ASSERT_FALSE(series.empty());
  std::size_t runs = 0;
  for (const auto& s : series) runs = std::max(runs, s.entries.size());
  EXPECT_GE(runs, 10u);
  const History h = analyze_history(series);
  EXPECT_GT(h.tests, 8u);
  EXPECT_EQ(h.flagged, 0u);
}

}  // namespace
}  // namespace dlcbench
