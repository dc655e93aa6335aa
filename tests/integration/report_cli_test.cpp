// `dlcbench report` and `dlcbench compare` on real and damaged result
// folders, adaptive repetition, and the same environment measured twice.
#include <cstdlib>
#include <fstream>
#include <iterator>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../unit/test_files.h"
#include "core/process.h"
#include "test_support.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;
using testing::run_dlcbench;
using testing::TempDir;

// A quick real run: the startup workload on the host, twice over.
std::filesystem::path startup_run(const TempDir& dir, const std::string& name, const std::string& seed = "7") {
  auto r = run_dlcbench({"run", "--workloads", "startup", "--envs", "host,host", "--runs", "3", "--starts", "3",
                         "--seed", seed, "--out", (dir / name).string()});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  return testing::only_run_dir(dir / name);
}

TEST(Report, TheSameEnvironmentTwiceIsMeasuredTwiceUnderTwoLabels) {
  TempDir dir;
  const auto run = startup_run(dir, "a");
  const auto manifest = json::parse(std::ifstream(run / "manifest.json"));
  EXPECT_EQ(manifest["plan"]["environments"], json({"host", "host#2"}));
  int measured_twice = 0;
  for (const auto& r : testing::read_records(run))
    measured_twice += r.value("env", "") == "host#2" && r.value("type", "") == "sample";
  EXPECT_EQ(measured_twice, 3 * 4);  // 3 rounds of one warm-up and 3 timed starts
  auto report = run_dlcbench({"report", run.string(), "--details"});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  // Start-up as the milliseconds a start adds with its interval (issue 18),
  // never as a ratio or percentage of a sub-millisecond start (issue 37).
  EXPECT_THAT(report.out, ::testing::ContainsRegex("host#2 vs host: [^\n]*[-+][0-9.]+ ms per start [^\n]*95% CI "
                                                   "[-+][0-9.]+ \\.\\. [-+][0-9.]+ ms"));
  EXPECT_THAT(report.out, Not(::testing::ContainsRegex("host#2 vs host: [^\n]*ratio")));
}

TEST(Report, EveryFormatFromTheFilesAlone) {
  TempDir dir;
  const auto run = startup_run(dir, "a");
  for (const std::string format : {"console", "md", "csv", "json", "html"}) {
    const auto file = dir / ("report." + format);
    auto r = run_dlcbench({"report", run.string(), "--format", format, "--output", file.string()});
    ASSERT_EQ(r.exit_code, 0) << format << ": " << r.err;
    std::ifstream in(file);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_FALSE(text.empty()) << format;
    if (format == "json") {
      EXPECT_EQ(json::parse(text)["cases"].size(), 1u);
    }
    if (format == "csv") {
      EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 2 * 3 * 4);
    }
    if (format == "html") {
      EXPECT_THAT(text, HasSubstr("<svg"));
    }
  }
  auto bad = run_dlcbench({"report", run.string(), "--format", "pdf"});
  EXPECT_NE(bad.exit_code, 0);
}

TEST(Report, AnInterruptedRunIsReportedAsSuch) {
  TempDir dir;
  const auto run = startup_run(dir, "a");
  auto manifest = json::parse(std::ifstream(run / "manifest.json"));
  manifest["status"] = "interrupted";
  std::ofstream(run / "manifest.json") << manifest.dump();
  // And its last line cut short, as a kill in the middle of a write leaves it.
  std::ofstream(run / "results.jsonl", std::ios::app) << R"({"type":"sample","env":"host","ro)";
  auto r = run_dlcbench({"report", run.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("(interrupted)"));
  EXPECT_THAT(r.out, HasSubstr("the run was interrupted"));
  EXPECT_THAT(r.out, HasSubstr("results.jsonl line"));
  EXPECT_THAT(r.out, HasSubstr("\n  host#2 "));  // everything readable is still reported
}

TEST(Report, DamagedFoldersGetAClearError) {
  TempDir dir;
  auto missing = run_dlcbench({"report", (dir / "nowhere").string()});
  EXPECT_EQ(missing.exit_code, 2);  // bad input (issue 18: was 1)
  EXPECT_THAT(missing.err, HasSubstr("nowhere is not a folder"));

  std::filesystem::create_directories(dir / "empty");
  auto empty = run_dlcbench({"report", (dir / "empty").string()});
  EXPECT_THAT(empty.err, HasSubstr("manifest.json is missing"));

  const auto run = startup_run(dir, "a");
  auto manifest = json::parse(std::ifstream(run / "manifest.json"));
  manifest["schema_version"] = 99;
  std::ofstream(run / "manifest.json") << manifest.dump();
  auto newer = run_dlcbench({"report", run.string()});
  EXPECT_EQ(newer.exit_code, 2);  // not a run this dlcbench can report: bad input
  EXPECT_THAT(newer.err, HasSubstr("format version 99, newer than this dlcbench reads (2)"));

  manifest["schema_version"] = 1;
  std::ofstream(run / "manifest.json") << manifest.dump();
  std::ofstream(run / "results.jsonl", std::ios::app)
      << R"({"type":"sample","env":"host","round":1,"case":"vgg16/torch/cpu/b64","phase":"measured","seconds":1.0})"
      << "\n";
  auto unknown = run_dlcbench({"report", run.string()});
  EXPECT_EQ(unknown.exit_code, 0) << unknown.err;
  EXPECT_THAT(unknown.out, HasSubstr("1 sample(s) of cases or environments the manifest's plan does not list"));
  EXPECT_THAT(unknown.out, HasSubstr("case vgg16/torch/cpu/b64 in host"));
}

TEST(Report, ResultsLostAfterTheRunAreNamed) {
  // Issue 18: a manifest that says "completed" over an empty or half-gone
  // results.jsonl reported as complete, every cell n/a, exit 0.
  TempDir dir;
  const auto run = startup_run(dir, "a");
  const auto manifest = json::parse(std::ifstream(run / "manifest.json"));
  const int launches = manifest["launches"].get<int>();
  ASSERT_EQ(launches, 6);  // 3 rounds of host and host#2
  // Keep the lines up to the third launch record.
  std::ifstream in(run / "results.jsonl");
  std::string kept, line;
  for (int seen = 0; seen < 3 && std::getline(in, line);) {
    kept += line + "\n";
    seen += json::parse(line).value("type", "") == "launch";
  }
  in.close();
  std::ofstream(run / "results.jsonl", std::ios::trunc) << kept;
  auto half = run_dlcbench({"report", run.string()});
  EXPECT_EQ(half.exit_code, 0) << half.err;
  EXPECT_THAT(half.out, HasSubstr("the manifest records 6 launches; results.jsonl holds 3"));
  EXPECT_THAT(half.err, HasSubstr("warning: the manifest records 6 launches, results.jsonl holds 3"));
  std::ofstream(run / "results.jsonl", std::ios::trunc).close();
  auto none = run_dlcbench({"report", run.string()});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_THAT(none.err, HasSubstr("error: nothing measured is left in"));
  EXPECT_THAT(none.out, HasSubstr("everything it measured was lost"));
}

// A real run kept as a fixture (tests/data/report-fixture: host, docker and
// runc; fcn5, SGEMM and start-up; three rounds; the host's allocator setting
// differing, measured with --allow-mismatch), reported in every format and
// compared byte for byte with the reports kept beside it. A change to any
// report shows here; DLCBENCH_UPDATE_FIXTURE=1 writes the new reports, for a
// change that is meant (review the diff).
// Run folders written by main, kept with their reports (tests/data/README.md
// says how each was made): whatever the code's shape, a run made before
// still reports the same. DLCBENCH_UPDATE_FIXTURE=1 writes them anew, for a
// change of the reports that is meant.
TEST(Report, TheFixtureRunsReportAsKeptInEveryFormat) {
  const char* update = std::getenv("DLCBENCH_UPDATE_FIXTURE");
  for (const std::string name :
       {"report-fixture", "command-fixture", "explain-fixture", "resumed-fixture", "cluster-fixture"}) {
    const std::filesystem::path fixture = std::filesystem::path(DLCBENCH_SOURCE_DIR) / "tests/data" / name;
    ASSERT_TRUE(std::filesystem::is_directory(fixture / "run")) << fixture;
    // The console's answer, and with --details everything it showed
    // before the answer came first (report.txt).
    for (const auto& [format, file] : std::vector<std::pair<std::string, std::string>>{
             {"console", "expected/answer.txt"}, {"details", "expected/report.txt"}, {"md", "expected/report.md"},
             {"csv", "expected/samples.csv"}, {"json", "expected/report.json"}}) {
      // A cluster run's samples are each node's: its CSV is one node's.
      const auto folder = name == "cluster-fixture" && format == "csv" ? fixture / "run/nodes/dlcnode1" : fixture / "run";
      std::vector<std::string> args = {"report", folder.string(), "--format", format == "details" ? "console" : format};
      if (format == "details") args.push_back("--details");
      auto r = run_dlcbench(args);
      EXPECT_EQ(r.exit_code, 0) << name << " " << format << ": " << r.err;
      // The answer names the folder for its details: the same file wherever the checkout is.
      for (std::size_t at; (at = r.out.find(folder.string())) != std::string::npos;)
        r.out.replace(at, folder.string().size(), "<run>");
      if (update && std::string(update) == "1") {
        std::filesystem::create_directories(fixture / "expected");
        std::ofstream(fixture / file, std::ios::binary) << r.out;
        continue;
      }
      std::ifstream in(fixture / file, std::ios::binary);
      const std::string kept((std::istreambuf_iterator<char>(in)), {});
      EXPECT_EQ(r.out, kept) << name << " " << format << " differs from " << (fixture / file);
    }
  }
}

// The JSON report follows its documented schema (docs/report.schema.json),
// checked by a real JSON Schema validator (Debian's python3-jsonschema).
TEST(Report, TheJsonReportFollowsItsDocumentedSchema) {
  const std::filesystem::path source = DLCBENCH_SOURCE_DIR;
  const std::string python = "/usr/bin/python3";
  if (!capture_output({python, "-c", "import jsonschema"}, 60).result.ok())
    GTEST_SKIP() << "python3-jsonschema is not installed (scripts/install-deps.sh installs it)";
  TempDir dir;
  const auto r = run_dlcbench({"report", (source / "tests/data/report-fixture/run").string(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ofstream(dir / "report.json") << r.out;
  auto validate = [&](const std::filesystem::path& document) {
    return capture_output({python, (source / "tests/tools/validate_json.py").string(),
                           (source / "docs/report.schema.json").string(), document.string()},
                          120);
  };
  const auto valid = validate(dir / "report.json");
  EXPECT_TRUE(valid.result.ok()) << valid.out << valid.result.stderr_tail;
  // And the check can fail: a judgement the schema does not know.
  json changed = json::parse(r.out);
  changed["cases"][0]["overheads"][0]["judgement"] = "maybe";
  std::ofstream(dir / "changed.json") << changed.dump();
  const auto invalid = validate(dir / "changed.json");
  EXPECT_FALSE(invalid.result.ok());
  EXPECT_THAT(invalid.out, HasSubstr("cases/0/overheads/0/judgement"));
}

TEST(Compare, TwoRunsCaseByCase) {
  TempDir dir;
  const auto a = startup_run(dir, "a", "1");
  const auto b = startup_run(dir, "b", "2");
  auto r = run_dlcbench({"compare", a.string(), b.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("B relative to A"));
  EXPECT_THAT(r.out, HasSubstr("startup"));
  EXPECT_THAT(r.out, HasSubstr("host#2"));
  // A first, as given; between two runs there is no "overhead" and no "baseline".
  EXPECT_LT(r.out.find("A = " + a.string()), r.out.find("B = " + b.string()));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("overhead")));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("baseline")));
  auto missing = run_dlcbench({"compare", a.string(), (dir / "nowhere").string()});
  EXPECT_EQ(missing.exit_code, 2);
}

// Issue 35, item 17: a run without a target said it stopped with "every
// target met".
TEST(Report, ARunWithoutATargetSaysItStoppedAtThePlannedRounds) {
  TempDir dir;
  auto r = run_dlcbench({"run", "--workloads", "startup", "--envs", "host", "--runs", "2", "--max-runs", "4",
                         "--starts", "2", "--out", dir.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto run = testing::only_run_dir(dir.path());
  EXPECT_EQ(json::parse(std::ifstream(run / "manifest.json"))["added_rounds"]["stopped"],
            "the planned rounds (--runs) done");
  auto report = run_dlcbench({"report", run.string(), "--format", "md"});
  EXPECT_THAT(report.out, ::testing::AllOf(HasSubstr("stopped: the planned rounds (--runs) done"),
                                           Not(HasSubstr("every target met"))));
}

// Issue 35, item 18: compare named what only A had, never what only B had,
// and had no --format.
TEST(Compare, NamesWhatOnlyOneRunHasAndWritesMarkdownAndJson) {
  TempDir dir;
  const auto a = startup_run(dir, "a", "1");
  auto made = run_dlcbench({"run", "--workloads", "startup", "--envs", "host,host,host", "--runs", "3", "--starts",
                            "3", "--seed", "2", "--out", (dir / "b").string()});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const auto b = testing::only_run_dir(dir / "b");
  const std::string only_in_b = "in host#3 is only in " + b.string();
  auto console = run_dlcbench({"compare", a.string(), b.string()});
  EXPECT_EQ(console.exit_code, 0) << console.err;
  EXPECT_THAT(console.out, HasSubstr(only_in_b));
  auto md = run_dlcbench({"compare", a.string(), b.string(), "--format", "md"});
  EXPECT_EQ(md.exit_code, 0) << md.err;
  EXPECT_THAT(md.out, ::testing::AllOf(HasSubstr("| case | env | A mean | B mean | unit | B vs A (95% CI) | verdict |"),
                                       HasSubstr("| host#2 |"), HasSubstr(only_in_b)));
  auto js = run_dlcbench({"compare", a.string(), b.string(), "--format", "json"});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const json j = json::parse(js.out);
  ASSERT_EQ(j["rows"].size(), 2u);  // host and host#2: in both
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["a"]["n"], 3) << row.dump();
    EXPECT_TRUE(row["change"].contains("judgement")) << row.dump();
  }
  EXPECT_THAT(j["notes"].dump(), HasSubstr(only_in_b));
}

TEST(UntilCv, AddsRoundsWhileTheSpreadIsAboveTheTargetUpToTheLimit) {
  TempDir dir;
  auto r = run_dlcbench({"run", "--workloads", "startup", "--envs", "host", "--runs", "2", "--starts", "2",
                         "--until-cv", "0.0001%", "--max-runs", "4", "--out", dir.path().string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("adding round 3"));
  EXPECT_THAT(r.err, HasSubstr("after 4 rounds (--max-runs) the highest CV"));
  const auto manifest = json::parse(std::ifstream(testing::only_run_dir(dir.path()) / "manifest.json"));
  EXPECT_EQ(manifest["rounds"], 4);
  EXPECT_EQ(manifest["round_orders"].size(), 4u);
  EXPECT_FALSE(manifest["until_cv"]["met"].get<bool>());

  auto bad = run_dlcbench({"run", "--envs", "host", "--until-cv", "lots", "--out", dir.path().string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--until-cv lots: give a coefficient of variation such as 2%"));
}

}  // namespace
}  // namespace dlcbench
