// The answer first (issue 37): the main job's console, its default suite
// (fcn5 and startup) on 7 environments, read from records as a run writes
// them, fits in 30 lines of at most 100 columns and still shows every case
// and environment's figure, overhead with its interval and verdict; and
// start-up is said in milliseconds added, never as a percentage or ratio.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/analysis.h"
#include "report/answer.h"
#include "report/console.h"
#include "report/html.h"
#include "report/markdown.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

const char* kDefaultTraining = "fcn5/torch/cpu/b64";
const std::vector<std::string> kEnvs = {"host", "docker", "podman", "runc", "crun", "runsc", "charliecloud"};

json recorded_case(const std::string& id, const std::string& workload) {
  return {{"id", id},        {"workload", workload}, {"backend", workload == "startup" ? "none" : "torch"},
          {"device", "cpu"}, {"batch", 64},          {"warmup", 5},
          {"iters", 20},     {"threads", 2},         {"input", "memory"}};
}

json default_suite_manifest(int rounds) {
  return {{"run_id", "20261207-000000-abcd"},
          {"status", "completed"},
          {"plan",
           {{"baseline", "host"},
            {"environments", kEnvs},
            {"runs", rounds},
            {"cases", {recorded_case(kDefaultTraining, "fcn5"), recorded_case("startup", "startup")}}}}};
}

// A deterministic wobble of about +-2%, different per environment and round.
double wobble(std::size_t env, int round, int i) {
  return 1 + 0.02 * std::sin(1.7 * static_cast<double>(env) + 2.3 * round + 0.9 * i);
}

void add_suite_launch(std::vector<json>& r, const std::string& case_id, const std::string& env, int round,
                const std::vector<double>& seconds) {
  r.push_back({{"type", "fingerprint"}, {"env", env}, {"round", round}, {"case", case_id},
               {"blas", {{"core", "Zen"}, {"threads", 2}}}, {"dataset", {{"name", "synthetic"}}}});
  for (std::size_t i = 0; i < seconds.size(); ++i)
    r.push_back({{"type", "sample"}, {"env", env}, {"round", round}, {"case", case_id}, {"phase", "measured"},
                 {"iter", i}, {"seconds", seconds[i]}});
  r.push_back({{"type", "launch"}, {"env", env}, {"round", round}, {"case", case_id}, {"ok", true}});
}

// fcn5 about as the issue measured it (runsc twice the host's time, the
// rest within a few percent); start-up a fraction of a millisecond on the
// host and hundreds in the engines.
Analysis default_suite(int rounds) {
  const std::vector<double> batch = {0.056, 0.0566, 0.0561, 0.0571, 0.0560, 0.1147, 0.0562};
  const std::vector<double> start = {0.00055, 0.2610, 0.3480, 0.0410, 0.0330, 0.5100, 0.0120};
  std::vector<json> records;
  for (int round = 1; round <= rounds; ++round)
    for (std::size_t e = 0; e < kEnvs.size(); ++e) {
      std::vector<double> batches, starts;
      for (int i = 0; i < 5; ++i) batches.push_back(batch[e] * wobble(e, round, i));
      for (int i = 0; i < 3; ++i) starts.push_back(start[e] * wobble(e + 3, round, i));
      add_suite_launch(records, kDefaultTraining, kEnvs[e], round, batches);
      add_suite_launch(records, "startup", kEnvs[e], round, starts);
    }
  return analyze(default_suite_manifest(rounds), records);
}

std::vector<std::string> answer_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The lines of the block that starts with `title` and ends at a blank line.
std::vector<std::string> case_block(const std::vector<std::string>& lines, const std::string& title) {
  std::vector<std::string> out;
  bool in = false;
  for (const auto& line : lines) {
    if (line.rfind(title, 0) == 0) in = true;
    else if (in && line.empty()) break;
    if (in) out.push_back(line);
  }
  return out;
}

TEST(Answer, TheDefaultSuiteOnSevenEnvironmentsFitsThirtyLinesOfAHundredColumns) {
  const Analysis a = default_suite(20);
  const std::string console = render_answer(a, "dlcbench report results/20261207-000000-abcd --details");
  const auto lines = answer_lines(console);
  EXPECT_LE(lines.size(), 30u) << console;
  for (const auto& line : lines) {
    EXPECT_LE(line.size(), kAnswerWidth) << line;
    EXPECT_TRUE(line.empty() || line.back() != ' ') << "padding left over: " << line;
  }

  // Every case x environment: its figure, the overhead with its interval
  // and the verdict (the baseline says it is one).
  const std::regex row(R"(^  (\S+)\s+([0-9]+\.[0-9]+)  (.+?)(?:  (\S.*))?$)");
  for (const auto& [title, per_case] : {std::pair{std::string(kDefaultTraining), 0}, std::pair{std::string("startup"), 1}}) {
    const auto rows = case_block(lines, title);
    ASSERT_EQ(rows.size() >= kEnvs.size() + 2, true) << console;
    for (const auto& env : kEnvs) {
      const auto found = std::find_if(rows.begin() + 2, rows.end(),
                                      [&](const std::string& l) { return l.rfind("  " + env + " ", 0) == 0; });
      ASSERT_NE(found, rows.end()) << env << " in " << title << ":\n" << console;
      std::smatch m;
      ASSERT_TRUE(std::regex_match(*found, m, row)) << *found;
      if (env == "host") {
        EXPECT_EQ(m[3].str(), "baseline") << *found;
        continue;
      }
      EXPECT_THAT(m[3].str(), HasSubstr(" .. ")) << "the overhead's interval: " << *found;
      EXPECT_FALSE(m[4].str().empty()) << "the verdict: " << *found;
      const Overhead& o = *std::find_if(a.cases[per_case].overheads.begin(), a.cases[per_case].overheads.end(),
                                        [&](const Overhead& x) { return x.env == env; });
      EXPECT_EQ(m[4].str(), short_verdict_words(o, ComparisonWording::overhead));
    }
  }
  // runsc's doubling is found, in words a user reads.
  EXPECT_THAT(console, HasSubstr("slower by"));
  EXPECT_THAT(console, HasSubstr("--details"));
}

TEST(Answer, StartUpIsSaidInMillisecondsAddedNeverAsAPercentageOrARatio) {
  const Analysis a = default_suite(8);
  const auto startup_overheads = a.cases[1].overheads;
  ASSERT_FALSE(startup_overheads.empty());
  for (const auto& o : startup_overheads) EXPECT_EQ(o.headline.form, Headline::Form::time_added) << o.env;
  // A percentage or a ratio, once the intervals' "95% CI" is taken out.
  const std::regex percent_or_ratio(R"(%|ratio|\u00d7|\bx[0-9])");
  auto expect_none = [&](const std::vector<std::string>& lines, const std::string& where) {
    ASSERT_FALSE(lines.empty()) << where;
    for (const auto& line : lines) {
      const std::string figures = std::regex_replace(line, std::regex("95% CI"), "CI");
      EXPECT_FALSE(std::regex_search(figures, percent_or_ratio)) << where << ": " << line;
    }
  };
  const auto answer = answer_lines(render_answer(a, "details"));
  expect_none(case_block(answer, "startup"), "the answer");

  // The full console: start-up's table, comparisons and summary row.
  const auto details = answer_lines(render_console(a));
  std::vector<std::string> startup_lines;
  for (const auto& line : details)
    if (line.find(" vs host:") != std::string::npos && line.find("per start") != std::string::npos)
      startup_lines.push_back(line);
  EXPECT_EQ(startup_lines.size(), kEnvs.size() - 1);
  for (const auto& line : details)
    if (line.rfind("  startup ", 0) == 0) startup_lines.push_back(line);  // the summary's row
  expect_none(startup_lines, "the console's details");

  // The Markdown's start-up rows, and the HTML's answer for start-up.
  Manifest manifest = default_suite_manifest(8).get<Manifest>();
  std::vector<std::string> md_rows;
  for (const auto& line : answer_lines(render_markdown(a, manifest)))
    if (line.find("per start") != std::string::npos) md_rows.push_back(line);
  expect_none(md_rows, "the Markdown");
  const std::string html = render_html(a, manifest);
  const auto start = html.find("<h3>startup</h3>");
  ASSERT_NE(start, std::string::npos);
  const std::string startup_answer = html.substr(start, html.find("</div>\n</div>", start) - start);
  EXPECT_THAT(startup_answer, HasSubstr(" ms ("));
  expect_none({startup_answer}, "the HTML's answer");
}

TEST(Answer, ALongLabelIsShortenedKeepingItsStartAndEnd) {
  EXPECT_EQ(short_label("docker", 16), "docker");
  EXPECT_EQ(short_label("docker:cpus=1,memory=4g,shm=1g", 16), "docker:~g,shm=1g");
  EXPECT_EQ(short_label("docker:cpus=1,memory=4g,shm=1g", 16).size(), 16u);
}

// serve (issue 38): a server whose median stays while its tail doubles is
// said as exactly that in the answer, and every report carries the quantile
// table and the latency chart.
TEST(Answer, AServersTailIsSaidAgainstItsMedianAndEveryReportHasTheQuantiles) {
  json spec = recorded_case("serve/fcn5/t2/r90", "serve");
  spec.update({{"variant", "fcn5"}, {"size", 1}, {"batch", 1}, {"workers", 2}, {"clients", 2}, {"rate", 90},
               {"block", 0}, {"io_mode", ""}, {"io_target", ""}, {"backend", "torch"}});
  const json manifest = {{"run_id", "20261207-000000-abcd"},
                         {"status", "completed"},
                         {"plan", {{"baseline", "host"}, {"environments", {"host", "docker:cpus=1.5"}}, {"runs", 8},
                                   {"cases", {spec}}}}};
  std::vector<json> records;
  for (int round = 1; round <= 8; ++round)
    for (std::size_t e = 0; e < 2; ++e) {
      const std::string env = e == 0 ? "host" : "docker:cpus=1.5";
      records.push_back({{"type", "listening"}, {"env", env}, {"round", round}, {"case", "serve/fcn5/t2/r90"},
                         {"path", e == 0 ? "host" : "veth"}});
      std::vector<double> latencies;
      for (int i = 0; i < 200; ++i)
        latencies.push_back(i % 50 == 0 ? 0.010 * static_cast<double>(e + 1) * wobble(e, round, i) : 0.005 * wobble(e, round, i));
      add_suite_launch(records, "serve/fcn5/t2/r90", env, round, latencies);
      // The server's accounting, before its launch record: the limited
      // one's cgroup throttled in a quarter of its periods.
      const json accounting = {{"type", "accounting"}, {"env", env}, {"round", round}, {"case", "serve/fcn5/t2/r90"},
                               {"batches", 200},
                               {"process", {{"user_seconds", 1.0}, {"system_seconds", 0.1}}},
                               {"cgroup", {{"periods", 100}, {"throttled_periods", e == 0 ? 0 : 25},
                                           {"throttled_seconds", e == 0 ? 0.0 : 0.2}}}};
      records.insert(records.end() - 1, accounting);
    }
  const Analysis a = analyze(manifest, records);
  const std::string answer = render_answer(a, "dlcbench report DIR --details");
  EXPECT_THAT(answer, HasSubstr("p99 latency in ms per run"));
  EXPECT_THAT(answer, HasSubstr("docker:cpus=1.5: the median does not change"));
  EXPECT_THAT(answer, ::testing::ContainsRegex("p99 is (1\\.9|2\\.0)[0-9]x"));
  EXPECT_THAT(answer, HasSubstr("its CPU quota throttled it in 25.0% of the periods"));
  const std::string details = render_console(a);
  EXPECT_THAT(details, HasSubstr("latency per quantile"));
  EXPECT_THAT(details, HasSubstr("p99.9"));
  EXPECT_THAT(details, HasSubstr("veth"));
  Manifest m = manifest.get<Manifest>();
  EXPECT_THAT(render_markdown(a, m), HasSubstr("| p99.9 |"));
  const std::string html = render_html(a, m);
  EXPECT_THAT(html, HasSubstr("class=\"chart latency\""));
  EXPECT_THAT(html, HasSubstr("data-quantile=\"p99.9\""));
}

// syscall/table (issue 39): the details, Markdown and HTML carry each kind's
// cost per environment, and the caption names the sandbox the figures hold for.
TEST(Answer, ACostTableIsInEveryDetailedReportWithTheSandboxNamed) {
  json spec = recorded_case("syscall/table/n11000", "syscall");
  spec.update({{"variant", "table"}, {"size", 11000}, {"backend", "none"}, {"batch", 0}});
  const json manifest = {{"run_id", "20261207-000000-abcd"},
                         {"status", "completed"},
                         {"environments",
                          {{"runsc", {{"program", "/usr/bin/runsc"}, {"version", "runsc version 0.0~20221219.0"},
                                      {"command", {"/usr/bin/runsc", "--platform=ptrace", "run"}}}}}},
                         {"plan", {{"baseline", "host"}, {"environments", {"host", "runsc"}}, {"runs", 6},
                                   {"cases", {spec}}}}};
  std::vector<json> records;
  for (int round = 1; round <= 6; ++round)
    for (std::size_t e = 0; e < 2; ++e) {
      const std::string env = e == 0 ? "host" : "runsc";
      const double null_ns = (e == 0 ? 140.0 : 74000.0) * wobble(e, round, 0);
      records.push_back({{"type", "sample"}, {"env", env}, {"round", round}, {"case", "syscall/table/n11000"},
                         {"phase", "measured"}, {"seconds", null_ns * 1.1e-5}, {"work", 11000},
                         {"detail", {{"ns_per_call", {{"null", null_ns}}}}}});
      records.push_back({{"type", "launch"}, {"env", env}, {"round", round}, {"case", "syscall/table/n11000"}, {"ok", true}});
    }
  const Analysis a = analyze(manifest, records);
  const std::string details = render_console(a);
  EXPECT_THAT(details, HasSubstr("What one call of each kind costs"));
  EXPECT_THAT(details, HasSubstr("runsc: gVisor, runsc version 0.0~20221219.0, ptrace platform"));
  EXPECT_THAT(details, ::testing::ContainsRegex("null +14[0-9] +74[0-9]{3} \\(52[0-9]\\.[0-9]{2}x, "));
  Manifest m = manifest.get<Manifest>();
  EXPECT_THAT(render_markdown(a, m), ::testing::ContainsRegex("\\| null \\| 14[0-9] \\| 74[0-9]{3} "));
  EXPECT_THAT(render_html(a, m), HasSubstr("call-costs"));
  // A call 500 times the host's is said as the nanoseconds it adds per call,
  // not as the milliseconds of an operation of 11,000 calls.
  EXPECT_THAT(render_answer(a, "details"), ::testing::ContainsRegex("\\+7[34][0-9]{3} ns"));
  EXPECT_THAT(details, HasSubstr("ns per call"));
  EXPECT_THAT(details, Not(HasSubstr("ms per operation")));
}

}  // namespace
}  // namespace dlcbench
