#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "analysis/analysis.h"
#include "report/backend_comparison.h"
#include "report/console.h"
#include "report/csv.h"
#include "report/html.h"
#include "report/json_report.h"
#include "report/markdown.h"
#include "report/figures.h"
#include "report/report_model.h"
#include "report/svg.h"
#include "workloads/command_metric.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

const char* kFcn = "fcn5/torch/cpu/b64";
const char* kAlex = "alexnet/torch/cpu/b64";
const char* kFixHaswell = "set OPENBLAS_CORETYPE before `dlcbench run`";

EnvironmentStats env_stats(const std::string& name, std::vector<double> runs, int failed = 0) {
  EnvironmentStats e;
  e.env = name;
  e.run_values = std::move(runs);
  for (double r : e.run_values)
    for (double d : {-0.01, 0.0, 0.01}) e.batch_seconds.push_back(r + d);
  e.warmup_seconds = {9.0, 8.0};
  e.runs = summarize(e.run_values);
  e.batches = summarize(e.batch_seconds);
  e.warmup = summarize(e.warmup_seconds);
  e.outlier_runs = outlier_indices(e.run_values);
  e.outliers_assessed = e.run_values.size() >= kMinOutlierSample;
  e.failed_launches = failed;
  for (int i = 0; i < failed; ++i) e.failures.push_back("round 9: worker killed by signal 9 (Killed)");
  e.dataset = "synthetic";
  e.fingerprint = json{{"type", "fingerprint"}, {"env", name}};
  e.in_container = name != "host";
  return e;
}

// The overhead of every non-baseline environment with data, as analyze() makes it.
void add_overheads(CaseAnalysis& c, const std::string& baseline) {
  const EnvironmentStats* base = nullptr;
  for (const auto& e : c.envs)
    if (e.env == baseline) base = &e;
  if (!base || base->run_values.empty()) return;
  for (const auto& e : c.envs) {
    if (e.env == baseline || e.run_values.empty()) continue;
    c.overheads.push_back(compare_figures(e.env, {e.run_values, {}}, {base->run_values, {}}, ComparisonWording::overhead,
                                          kDefaultEquivalenceMargin, figure_terms(c)));
  }
}

CaseAnalysis training_case(const std::string& id, const std::vector<std::string>& envs, double scale = 1.0) {
  CaseAnalysis c;
  c.case_id = id;
  // The spec the id names: workload/backend/device/bN.
  std::vector<std::string> parts;
  std::stringstream in(id);
  for (std::string part; std::getline(in, part, '/');) parts.push_back(part);
  if (parts.size() == 4) {
    c.workload = c.spec.workload = parts[0];
    c.spec.backend = parts[1];
    c.spec.device = parts[2];
    c.spec.batch = std::stoi(parts[3].substr(1));
  } else {
    c.spec.workload = id;  // a made-up id: a network of its own
  }
  double shift = 0;
  for (const auto& e : envs) {
    c.envs.push_back(env_stats(e, {scale * (1.0 + shift), scale * (1.1 + shift), scale * (1.2 + shift)}));
    shift += 0.1;
  }
  return c;
}

CaseAnalysis case_of(const std::string& id, std::vector<EnvironmentStats> envs, bool startup = false) {
  CaseAnalysis c;
  c.case_id = id;
  c.startup = startup;
  if (startup) c.unit = "s/start", c.run_statistic = "median";
  c.envs = std::move(envs);
  return c;
}

CaseAnalysis startup_case(const std::vector<std::string>& envs) {
  CaseAnalysis c;
  c.case_id = "startup";
  c.startup = true;
  c.unit = "s/start";
  c.run_statistic = "median";
  double base = 0.01;
  for (const auto& e : envs) {
    c.envs.push_back(env_stats(e, {base, base * 1.2, base * 0.9}));
    base *= 10;
  }
  return c;
}

Analysis analysis_of(std::vector<CaseAnalysis> cases, const std::string& baseline = "host") {
  Analysis a;
  a.baseline = baseline;
  for (auto& c : cases) {
    add_overheads(c, baseline);
    a.cases.push_back(std::move(c));
  }
  return a;
}

Analysis two_cases_and_startup() {
  return analysis_of({training_case(kFcn, {"host", "docker"}), training_case(kAlex, {"host", "docker"}, 0.1),
                      startup_case({"host", "docker"})});
}

json manifest(const std::string& status = "completed", std::vector<std::string> envs = {"host", "docker"}) {
  json cases = json::array();
  cases.push_back({{"id", kFcn},
                   {"workload", "fcn5"},
                   {"backend", "torch"},
                   {"device", "cpu"},
                   {"batch", 64},
                   {"input", "memory"},
                   {"warmup", 5},
                   {"iters", 20},
                   {"threads", 1}});
  cases.push_back({{"id", kAlex},
                   {"workload", "alexnet"},
                   {"backend", "torch"},
                   {"device", "cpu"},
                   {"batch", 64},
                   {"input", "disk"},
                   {"warmup", 5},
                   {"iters", 20},
                   {"threads", 1}});
  cases.push_back({{"id", "startup"},
                   {"workload", "startup"},
                   {"backend", "none"},
                   {"device", "cpu"},
                   {"batch", 0},
                   {"input", "memory"},
                   {"warmup", 5},
                   {"iters", 20},
                   {"threads", 1}});
  return {{"schema_version", 1},
          {"run_id", "20261130-121703-07e3"},
          {"status", status},
          {"started_at", "2026-11-30T12:17:03Z"},
          {"ended_at", "2026-11-30T12:41:37Z"},
          {"command_line", {"build/dlcbench", "run", "--envs", "host,docker"}},
          {"plan", {{"baseline", "host"}, {"environments", envs}, {"cases", cases}}}};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The lines of one "## " section of the Markdown, up to the next one.
std::vector<std::string> section(const std::string& markdown, const std::string& heading) {
  std::vector<std::string> out;
  bool inside = false;
  for (const auto& line : lines_of(markdown)) {
    if (line.rfind("## ", 0) == 0)
      inside = line == "## " + heading;
    else if (inside)
      out.push_back(line);
  }
  return out;
}

std::vector<std::string> table_rows(const std::vector<std::string>& lines) {
  std::vector<std::string> rows;
  for (const auto& l : lines)
    if (l.rfind("| ", 0) == 0) rows.push_back(l);
  return rows;
}

// Cells of a Markdown table row, split at the pipes that are not escaped.
std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::string cell;
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size()) {
      cell += row.substr(i, 2);
      ++i;
    } else if (row[i] == '|') {
      out.push_back(cell.substr(1, cell.size() >= 2 ? cell.size() - 2 : 0));
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  return out;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// `word` (lower case) in any case, not inside a longer word: "NaN", "-inf", not "dominant".
bool has_word(const std::string& text, const std::string& word) {
  std::string lower = text;
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  auto letter = [&](std::size_t i) { return i < lower.size() && std::isalpha(static_cast<unsigned char>(lower[i])); };
  for (auto at = lower.find(word); at != std::string::npos; at = lower.find(word, at + 1))
    if (!(at > 0 && letter(at - 1)) && !letter(at + word.size())) return true;
  return false;
}

// The SVG element with this class list ("chart bars"), or "".
std::string svg_with_class(const std::string& html, const std::string& cls, std::size_t nth = 0) {
  std::size_t at = 0;
  for (std::size_t i = 0; i <= nth; ++i) {
    at = html.find("class=\"" + cls + "\"", i ? at + 1 : 0);
    if (at == std::string::npos) return "";
  }
  const auto start = html.rfind("<svg", at), end = html.find("</svg>", at);
  return html.substr(start, end + 6 - start);
}

// ---- Markdown ----------------------------------------------------------------

// A table cell as the HTML report writes it: whole, or phrase by phrase.
// fmt, not ">" + ...: GCC 12 warns falsely (-Wrestrict) on that concatenation.
void expect_cell_in_html(const std::string& html, const Cell& cell) {
  if (cell.breaks.empty()) {
    EXPECT_THAT(html, HasSubstr(fmt::format(">{}</t", html_escape(cell.text))));
    return;
  }
  std::size_t from = 0;
  for (std::size_t at : cell.breaks) {
    EXPECT_THAT(html, HasSubstr(fmt::format(">{}</span> ", html_escape(cell.text.substr(from, at - from)))));
    from = at + 1;
  }
  EXPECT_THAT(html, HasSubstr(fmt::format(">{}</span></td>", html_escape(cell.text.substr(from)))));
}

TEST(MarkdownReport, SummaryHasARowPerCaseAndEnvironment) {
  // Issue 18: a column per environment ran past a 1400 px page at four
  // runtimes; the rows grow with environments instead.
  const std::string md = render_markdown(two_cases_and_startup(), manifest());
  const auto rows = table_rows(section(md, "Summary: training"));
  ASSERT_EQ(rows.size(), 5u);  // header, and two environments of two cases
  EXPECT_EQ(cells(rows[0]), (std::vector<std::string>{"case", "environment", "mean s/batch (95% CI)",
                                                      "change vs host (95% CI)", "verdict"}));
  EXPECT_EQ(cells(rows[1])[0], kFcn);
  EXPECT_EQ(cells(rows[1])[1], "host");
  EXPECT_EQ(cells(rows[1])[3], "baseline");
  EXPECT_EQ(cells(rows[2])[0], "");  // the same case
  EXPECT_EQ(cells(rows[2])[1], "docker");
  EXPECT_EQ(cells(rows[3])[0], kAlex);
  EXPECT_EQ(cells(rows[1])[2], "1.10000 (0.85159 .. 1.34841)");  // mean and CI
  // Three runs a side give no robust interval (six would); Fieller's for
  // the mean, with min(3, 3) - 1 = 2 degrees of freedom: t = 4.303.
  EXPECT_EQ(cells(rows[2])[3], "+9.1% (no 95% CI: too few runs); mean +9.1% (95% CI -19.9% .. +49.8%)");
  EXPECT_EQ(cells(rows[2])[4], "cannot tell yet: 3 runs; give --runs 6");
}

TEST(MarkdownReport, StartupHasATableOfItsOwn) {
  const std::string md = render_markdown(two_cases_and_startup(), manifest());
  for (const auto& row : table_rows(section(md, "Summary: training"))) EXPECT_THAT(row, Not(HasSubstr("startup")));
  const auto rows = table_rows(section(md, "Summary: container start-up"));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(cells(rows[0])[2], "mean s/start (95% CI)");
  EXPECT_EQ(cells(rows[1])[0], "startup");
  // Start-up as the time each start adds, beside the ratio (issue 18).
  EXPECT_THAT(cells(rows[2])[3], HasSubstr("ms per start (95% CI"));
}

TEST(MarkdownReport, HeaderNamesTheRunAndTheMethods) {
  const std::string md = render_markdown(two_cases_and_startup(), manifest());
  EXPECT_THAT(md, HasSubstr("# dlcbench report: run 20261130-121703-07e3"));
  EXPECT_THAT(md, HasSubstr("- **Status:** completed"));
  EXPECT_THAT(md, HasSubstr("- **Started:** 2026-11-30T12:17:03Z"));
  EXPECT_THAT(md, HasSubstr("- **Ended:** 2026-11-30T12:41:37Z"));
  EXPECT_THAT(md, HasSubstr("- **Command:** `build/dlcbench run --envs host,docker`"));
  EXPECT_THAT(md, HasSubstr("- **Baseline:** host"));
  EXPECT_THAT(md, HasSubstr("verdict: Hodges-Lehmann ratio of run values paired by round"));
  EXPECT_THAT(md, HasSubstr("the ratio of means with Fieller's 95% CI and Welch's t-test"));
  EXPECT_THAT(md, Not(HasSubstr("INTERRUPTED")));
}

TEST(MarkdownReport, NamesTheMachineAndWhetherItIsAGuest) {
  json m = manifest();
  EXPECT_THAT(render_markdown(two_cases_and_startup(), m), Not(HasSubstr("**Machine:**")));  // an older run
  m["orchestrator"] = {{"cpu", {{"model", "AMD EPYC"}, {"online", 16}}},
                       {"kernel", "6.18.44-fc-v236-gpu #1 SMP"},
                       {"machine", {{"kind", "virtual machine"}, {"detected_by", "the hypervisor flag"}}}};
  EXPECT_THAT(render_markdown(two_cases_and_startup(), m),
              HasSubstr("- **Machine:** AMD EPYC, 16 CPUs online, Linux 6.18.44-fc-v236-gpu; a virtual machine "
                        "(the hypervisor flag)"));
}

TEST(MarkdownReport, SaysClearlyThatARunWasInterrupted) {
  EXPECT_THAT(render_markdown(two_cases_and_startup(), manifest("interrupted")), HasSubstr("> **INTERRUPTED: "));
  EXPECT_THAT(render_markdown(two_cases_and_startup(), manifest("running")), HasSubstr("still says"));
}

TEST(MarkdownReport, DetailTableHasEveryStatisticPerEnvironment) {
  Analysis a = two_cases_and_startup();
  a.cases[0].envs[1].failed_launches = 1;
  a.cases[0].envs[1].failures = {"round 4: worker killed by signal 9 (Killed)"};
  const std::string md = render_markdown(a, manifest());
  const auto rows = table_rows(section(md, "Details"));
  ASSERT_GE(rows.size(), 3u);
  EXPECT_EQ(cells(rows[0]),
            (std::vector<std::string>{"env", "runs", "batches", "mean", "median", "stddev", "min", "max", "CV",
                                      "95% CI of mean", "warm-up batches", "warm-up mean", "failed launches",
                                      "outlier runs (kept)", "data"}));
  const auto docker = cells(rows[2]);
  EXPECT_EQ(docker[0], "docker");
  EXPECT_EQ(docker[1], "3");        // runs
  EXPECT_EQ(docker[2], "9");        // batches
  EXPECT_EQ(docker[3], "1.20000");  // mean
  EXPECT_EQ(docker[6], "1.10000");  // min
  EXPECT_EQ(docker[7], "1.30000");  // max
  EXPECT_EQ(docker[10], "2");        // warm-up batches
  EXPECT_EQ(docker[11], "8.50000");  // their mean (issue 18: shown in every human report)
  EXPECT_EQ(docker[12], "1");
  EXPECT_EQ(docker[13], "not assessed (fewer than 5 runs)");  // 3 runs: not "none" (issue 18)
  EXPECT_EQ(docker[14], "synthetic, in container");
  EXPECT_THAT(md, HasSubstr("- docker failed, round 4: worker killed by signal 9 (Killed)"));
  EXPECT_THAT(md, HasSubstr("warm-up starts"));  // the start-up case's own words
}

TEST(MarkdownReport, MismatchesInTheConsolesWords) {
  Analysis a = analysis_of({training_case(kFcn, {"host", "docker", "podman", "runc"})});
  Overhead& docker = a.cases[0].overheads[0];
  docker.compared = false;
  docker.mismatches = {{"blas/core", "Zen", "Haswell", false, true, kFixHaswell}};
  Overhead& podman = a.cases[0].overheads[1];
  podman.mismatch_allowed = true;
  podman.mismatches = {{"blas/core", "Zen", "Prescott", false, true, kFixHaswell}};
  a.cases[0].overheads[2].mismatches = {{"cgroup/cpu_quota", "none", "1.0", true, true, "give both cpus="}};
  const std::string md = render_markdown(a, manifest());
  EXPECT_THAT(md, HasSubstr("- docker vs host: NOT COMPARED, the environments did not run like for like:"));
  EXPECT_THAT(md,
              HasSubstr("  - blas/core: host has Zen, docker has Haswell (not asked for; fix: set OPENBLAS_CORETYPE "
                        "before \\`dlcbench run\\`)"));
  EXPECT_THAT(md, HasSubstr("MISMATCH ALLOWED: not like for like (--allow-mismatch)"));
  EXPECT_THAT(md, HasSubstr("cgroup/cpu_quota: host has none, runc has 1.0 (asked for)"));
  const auto rows = table_rows(section(md, "Summary: training"));
  EXPECT_EQ(cells(rows[2])[3], "not compared");
  EXPECT_EQ(cells(rows[2])[4], "NOT COMPARED: not like for like");
  EXPECT_EQ(cells(rows[3])[4], "MISMATCH ALLOWED: cannot tell yet: 3 runs; give --runs 6");
}

TEST(MarkdownReport, EscapesWhatMarkdownWouldReadAsMarkup) {
  Analysis a = analysis_of({training_case("a|b", {"host", "docker:x=<b>"})});
  const std::string md = render_markdown(a, manifest());
  EXPECT_THAT(md, HasSubstr("| a\\|b |"));
  EXPECT_THAT(md, HasSubstr("| docker:x=\\<b\\> |"));
  EXPECT_THAT(md, Not(HasSubstr("<b>")));
  EXPECT_EQ(cells(table_rows(section(md, "Summary: training"))[1]).size(), 5u);
}

TEST(ConsoleReport, WarmUpOneRunAndOneFailureReadRight) {
  // Issue 18: warm-up appeared in no human report; one run showed CV "0.0%";
  // "1 failed launches".
  Analysis a = analysis_of({case_of(kFcn, {env_stats("host", {1.0}), env_stats("docker", {1.05}, 1)})});
  const std::string console = render_console(a);
  EXPECT_THAT(console, HasSubstr("warm-up"));
  EXPECT_THAT(console, HasSubstr("8.50000"));  // the mean of the warm-up batches, 9 and 8
  EXPECT_THAT(console, Not(HasSubstr("0.0%")));
  EXPECT_THAT(console, HasSubstr("1 failed launch"));
  EXPECT_THAT(console, Not(HasSubstr("1 failed launches")));
}

// ---- CSV -----------------------------------------------------------------------

std::vector<json> sample_records() {
  return {{{"type", "round"}, {"round", 1}},
          {{"type", "fingerprint"}, {"case", kFcn}, {"env", "host"}, {"round", 1}},
          {{"type", "sample"},
           {"case", kFcn},
           {"env", "host"},
           {"round", 1},
           {"phase", "warmup"},
           {"iter", 0},
           {"seconds", 0.397088482},
           {"loss", 2.5}},
          {{"type", "sample"},
           {"case", kFcn},
           {"env", "host"},
           {"round", 1},
           {"phase", "measured"},
           {"iter", 0},
           {"seconds", 0.25},
           {"loss", 2.25}},
          {{"type", "sample"},
           {"case", kAlex},
           {"env", "docker:cpuset=0,1"},
           {"round", 2},
           {"phase", "measured"},
           {"iter", 3},
           {"seconds", 0.125},
           {"loss", 1.5},
           {"read_seconds", 0.001}},
          {{"type", "sample"},
           {"case", "startup"},
           {"env", "docker"},
           {"round", 1},
           {"phase", "measured"},
           {"iter", 0},
           {"seconds", 0.5}},
          {{"type", "launch"}, {"case", kFcn}, {"env", "host"}, {"round", 1}, {"ok", true}}};
}

TEST(SamplesCsv, HasAHeaderAndOneRowPerSample) {
  std::ostringstream out;
  write_samples_csv(out, manifest(), sample_records());
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0],
            "run_id,case,workload,backend,device,batch,input,env,round,phase,iter,seconds,loss,read_seconds,work,"
            "figure_unit,figure");
  // Training and start-up samples leave the micro-benchmark columns empty.
  EXPECT_EQ(lines[1],
            "20261130-121703-07e3,fcn5/torch/cpu/b64,fcn5,torch,cpu,64,memory,host,1,warmup,0,0.397088482,2.5,,,,");
  EXPECT_EQ(lines[2],
            "20261130-121703-07e3,fcn5/torch/cpu/b64,fcn5,torch,cpu,64,memory,host,1,measured,0,0.25,2.25,,,,");
  EXPECT_EQ(lines[3],
            "20261130-121703-07e3,alexnet/torch/cpu/b64,alexnet,torch,cpu,64,disk,\"docker:cpuset=0,1\",2,measured,3,"
            "0.125,1.5,0.001,,,");
  EXPECT_EQ(lines[4], "20261130-121703-07e3,startup,startup,none,cpu,0,memory,docker,1,measured,0,0.5,,,,,");
}

// A user's command that prints a rate: sysbench's events per second.
CaseSpec sysbench_events_per_second() {
  CaseSpec spec;
  spec.workload = kCommandWorkload;
  spec.command.name = "sysbench";
  spec.command.argv = {"sysbench", "cpu", "run"};
  spec.command.metric = parse_metric("events per second: *([0-9.]+)", "events/s", true);
  return spec;
}

TEST(SamplesCsv, ACommandsSamplesCarryItsOwnUnitAndFigure) {
  // Issue 35 item 1: a command's figure and figure_unit were empty.
  const CaseSpec rate = sysbench_events_per_second();
  CaseSpec timed = rate;
  timed.command.name = "true";
  timed.command.argv = {"/bin/true"};
  timed.command.metric = MetricSpec{};
  json m = manifest();
  m["plan"]["cases"] = json::array({json(rate), json(timed)});
  std::ostringstream out;
  write_samples_csv(out, m,
                    {{{"type", "sample"}, {"case", rate.id()}, {"env", "host"}, {"round", 1}, {"phase", "measured"},
                      {"iter", 0}, {"seconds", 1 / 3869.8}, {"value", 3869.8}, {"work", 1.0}},
                     {{"type", "sample"}, {"case", timed.id()}, {"env", "host"}, {"round", 1}, {"phase", "measured"},
                      {"iter", 0}, {"seconds", 0.0009}}});
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_TRUE(lines[1].ends_with(",events/s,3869.8")) << lines[1];
  EXPECT_TRUE(lines[2].ends_with(",s/launch,0.0009")) << lines[2];
}

TEST(SamplesCsv, QuotesAsRfc4180Says) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field(""), "");
}

TEST(SamplesCsv, ACaseMissingFromThePlanLeavesItsCellsEmpty) {
  std::ostringstream out;
  write_samples_csv(out, json::object(),
                    {{{"type", "sample"}, {"case", "x\"y"}, {"env", "host"}, {"seconds", 1}, {"loss", nullptr}}});
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], ",\"x\"\"y\",,,,,,host,,,,1,,,,,");
}

// ---- JSON ----------------------------------------------------------------------

TEST(AnalysisJson, RoundTripsWithNullForNaN) {
  Analysis a = analysis_of({training_case(kFcn, {"host", "docker"})});
  a.cases[0].envs[1] = env_stats("docker", {1.5});  // one run: no CI
  a.cases[0].overheads.clear();
  add_overheads(a.cases[0], "host");
  a.notes = {"podman: not installed"};
  const json j = analysis_json(a, manifest("interrupted"));
  const std::string text = j.dump();
  EXPECT_THAT(text, Not(HasSubstr("NaN")));
  const json back = json::parse(text);
  EXPECT_EQ(back, j);
  EXPECT_EQ(back["schema_version"], kAnalysisJsonSchemaVersion);
  EXPECT_EQ(back["run_id"], "20261130-121703-07e3");
  EXPECT_EQ(back["status"], "interrupted");
  EXPECT_EQ(back["baseline"], "host");
  EXPECT_EQ(back["notes"], json({"podman: not installed"}));
  const json& docker = back["cases"][0]["envs"][1];
  EXPECT_EQ(docker["env"], "docker");
  EXPECT_EQ(docker["runs"]["n"], 1);
  EXPECT_DOUBLE_EQ(docker["runs"]["mean"].get<double>(), 1.5);
  EXPECT_TRUE(docker["runs"]["ci95_low"].is_null());
  EXPECT_TRUE(docker["runs"]["stddev"].is_null());
  EXPECT_EQ(docker["run_values"], json({1.5}));
  EXPECT_EQ(docker["warmup_count"], 2);
  const json& o = back["cases"][0]["overheads"][0];
  EXPECT_DOUBLE_EQ(o["ratio"].get<double>(), 1.5 / 1.1);
  EXPECT_TRUE(o["ci95_low"].is_null());
  EXPECT_TRUE(o["p_value"].is_null());
}

TEST(AnalysisJson, HasEveryOverheadFieldAndMismatch) {
  Analysis a = analysis_of({training_case(kFcn, {"host", "docker"}), startup_case({"host", "docker"})});
  a.cases[0].envs[1].failed_launches = 1;
  a.cases[0].envs[1].failures = {"round 2: killed"};
  Overhead& o = a.cases[0].overheads[0];
  o.mismatch_allowed = true;
  o.mismatches = {{"blas/core", "Zen", "Haswell", false, true, kFixHaswell}};
  const json j = analysis_json(a, manifest());
  const json& oj = j["cases"][0]["overheads"][0];
  EXPECT_EQ(oj["env"], "docker");
  EXPECT_NEAR(oj["ratio"].get<double>(), 1.2 / 1.1, 1e-12);
  EXPECT_NEAR(oj["percent"].get<double>(), 100 * (1.2 / 1.1 - 1), 1e-9);
  EXPECT_TRUE(oj["ci95_low"].is_number());
  EXPECT_TRUE(oj["percent_ci95_high"].is_number());
  EXPECT_TRUE(oj["p_value"].is_number());
  EXPECT_EQ(oj["verdict"], o.verdict_text);
  EXPECT_EQ(oj["compared"], true);
  EXPECT_EQ(oj["mismatch_allowed"], true);
  EXPECT_EQ(oj["mismatches"][0], json({{"field", "blas/core"},
                                       {"baseline_value", "Zen"},
                                       {"other_value", "Haswell"},
                                       {"requested", false},
                                       {"blocking", true},
                                       {"fix", kFixHaswell}}));
  EXPECT_EQ(j["cases"][0]["envs"][1]["failures"], json({"round 2: killed"}));
  EXPECT_EQ(j["cases"][0]["envs"][1]["failed_launches"], 1);
  EXPECT_EQ(j["cases"][1]["startup"], true);
  EXPECT_EQ(j["cases"][1]["unit"], "s/start");
  EXPECT_EQ(j["cases"][1]["run_statistic"], "median");
  EXPECT_EQ(j["methods"], kReportMethods);
}

// ---- HTML ----------------------------------------------------------------------

TEST(HtmlReport, HasTheAnswersChartsThenBarsBoxesAndOverheads) {
  const std::string html = render_html(two_cases_and_startup(), manifest());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count(html, "class=\"chart answer\""), 3u);  // the answer's, one per case, first
  EXPECT_LT(html.find("class=\"chart answer\""), html.find("class=\"chart bars\""));
  EXPECT_EQ(count(html, "class=\"chart bars\""), 3u);  // one per case
  EXPECT_EQ(count(html, "class=\"chart box\""), 3u);
  EXPECT_EQ(count(html, "class=\"chart overhead\""), 1u);  // training
  // Start-up's overhead is its answer chart, in milliseconds added: no ratio chart.
  EXPECT_EQ(count(html, "class=\"chart overhead startup\""), 0u);
  EXPECT_THAT(svg_with_class(html, "chart answer", 2), HasSubstr("milliseconds added per start"));
  EXPECT_EQ(count(html, "<svg"), count(html, "</svg>"));
  EXPECT_EQ(count(html, "<svg"), 10u);
  EXPECT_EQ(count(html, "<html"), count(html, "</html>"));
  EXPECT_EQ(count(html, "<section"), count(html, "</section>"));
  EXPECT_EQ(count(html, "<table"), count(html, "</table>"));
  EXPECT_EQ(count(svg_with_class(html, "chart overhead"), "class=\"mark ratio\""), 2u);
  EXPECT_THAT(svg_with_class(html, "chart bars", 2), HasSubstr("s/start"));
}

TEST(HtmlReport, AnOverheadCellWrapsBetweenItsFiguresNeverInsideOne) {
  // A training row: the verdict's change with its interval, then the mean's.
  const Analysis a = two_cases_and_startup();
  const Table t = summary_table(a, CaseKind::training);
  const Cell* overhead = nullptr;
  for (const auto& row : t.rows)
    if (row.size() > 3 && row[3].text != "baseline") overhead = &row[3];
  ASSERT_NE(overhead, nullptr);
  ASSERT_EQ(overhead->breaks.size(), 1u) << overhead->text;
  EXPECT_EQ(overhead->text.substr(overhead->breaks[0] - 1, 6), "; mean") << overhead->text;
  const std::string html = render_html(a, manifest());
  const std::string first = overhead->text.substr(0, overhead->breaks[0]);
  EXPECT_THAT(html, HasSubstr("<td class=\"num phrases\"><span class=\"phrase\">" + html_escape(first) + "</span> "));
  EXPECT_THAT(html, HasSubstr("span.phrase { white-space: nowrap; }"));
}

TEST(HtmlReport, FetchesNothing) {
  const std::string html = render_html(two_cases_and_startup(), manifest());
  for (const char* scheme : {"http://", "https://"}) {
    for (auto at = html.find(scheme); at != std::string::npos; at = html.find(scheme, at + 1)) {
      const std::string uri = html.substr(at, html.find('"', at) - at);
      EXPECT_TRUE(uri == "http://www.w3.org/2000/svg" || uri == "http://www.w3.org/1999/xhtml") << uri;
    }
  }
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("<link")));
  EXPECT_THAT(html, Not(HasSubstr("<img")));
  EXPECT_THAT(html, Not(HasSubstr("@import")));
  EXPECT_THAT(html, Not(HasSubstr("url(")));
  EXPECT_THAT(html, Not(HasSubstr("src=")));
}

TEST(HtmlReport, EscapesEveryLabelFromTheFiles) {
  Analysis a = analysis_of({training_case("<script>alert(1)</script>", {"host", "<script>"})});
  a.notes = {"x & y"};
  a.cases[0].overheads[0].mismatches = {{"f", "\"a\"", "'b'", false, false, "<fix>"}};
  json m = manifest();
  m["run_id"] = "<script>run</script>";
  m["command_line"] = {"dlcbench", "run", "--out", "</code><script>"};
  const std::string html = render_html(a, m);
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt; vs host"));
  EXPECT_THAT(html, HasSubstr("x &amp; y"));
  EXPECT_THAT(html, HasSubstr("&quot;a&quot;"));
  EXPECT_THAT(html, HasSubstr("&#39;b&#39;"));
  EXPECT_EQ(html_escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
}

TEST(HtmlReport, HasTheSummaryTableOfTheMarkdown) {
  const Analysis a = two_cases_and_startup();
  const std::string html = render_html(a, manifest());
  for (CaseKind kind : kCaseKinds) {
    if (!has_cases(a, kind)) continue;  // the section is left out
    const Table t = summary_table(a, kind);
    for (const auto& h : t.header) EXPECT_THAT(html, HasSubstr("<th scope=\"col\">" + html_escape(h) + "</th>"));
    for (const auto& row : t.rows)
      for (const auto& cell : row) expect_cell_in_html(html, cell);
  }
  EXPECT_THAT(html, HasSubstr("id=\"summary-training\""));
  EXPECT_THAT(html, HasSubstr("id=\"summary-startup\""));
  EXPECT_THAT(html, HasSubstr("the ratio of means with Fieller&#39;s 95% CI and Welch&#39;s t-test"));
}

TEST(HtmlReport, OverheadChartHasAPointPerComparisonAndAReferenceAtOne) {
  Analysis a = analysis_of(
      {training_case(kFcn, {"host", "docker", "podman"}), training_case(kAlex, {"host", "docker", "podman"})});
  a.cases[1].overheads[1].compared = false;
  const std::string chart = svg_overhead_chart(a, CaseKind::training, "o");
  EXPECT_EQ(count(chart, "class=\"mark ratio\""), 3u);
  EXPECT_EQ(count(chart, "class=\"mark not-compared\""), 1u);
  EXPECT_THAT(chart, HasSubstr("1.0 = no overhead"));
  EXPECT_THAT(chart, HasSubstr("class=\"reference\""));
  EXPECT_THAT(chart, HasSubstr("ratio of times, environment / host"));
  EXPECT_THAT(chart, HasSubstr("<title>fcn5/torch/cpu/b64, docker vs host: ratio 1.0909"));
  EXPECT_EQ(svg_overhead_chart(a, CaseKind::startup, "none"), "");  // no start-up case
  EXPECT_EQ(svg_overhead_chart(a, CaseKind::micro, "none"), "");    // nor a micro-benchmark
}

TEST(HtmlReport, BoxPlotDrawsEveryRunAsADot) {
  CaseAnalysis c = training_case(kFcn, {"host", "docker"});
  c.envs[1] = env_stats("docker", {1.0, 1.01, 1.02, 1.03, 1.04, 1.05, 5.0});
  const std::string box = svg_box_plot(c, "b");
  EXPECT_EQ(count(box, "<circle"), 10u);
  // One rule in tables and charts (issue 18): the modified z-score flags the
  // 5.0, and only its dot is filled.
  EXPECT_EQ(count(box, "class=\"run outlier\""), 1u);
  EXPECT_EQ(count(box, "(an outlier: modified z-score above 3.5)"), 1u);
  EXPECT_THAT(box, HasSubstr("outliers: 1 flagged"));
  EXPECT_THAT(box, HasSubstr("outliers: not assessed (fewer than 5 runs)"));  // host's 3 runs
  EXPECT_THAT(box, HasSubstr("docker, run 7 of 7: 5.00000 s/batch"));
  EXPECT_EQ(svg_box_plot(c, "b"), box);  // the jitter is the same every time
  const std::string bars = svg_bar_chart(c, "a");
  EXPECT_EQ(count(bars, "class=\"mark bar\""), 2u);
  EXPECT_THAT(bars, HasSubstr("mean s/batch (95% CI)"));
}

TEST(HtmlReport, SaysClearlyThatARunWasInterrupted) {
  const std::string html = render_html(two_cases_and_startup(), manifest("interrupted"));
  EXPECT_THAT(html,
              HasSubstr("<p class=\"warning status interrupted\" id=\"status-warning\" role=\"alert\">INTERRUPTED"));
  EXPECT_THAT(render_html(two_cases_and_startup(), manifest()), Not(HasSubstr("status-warning")));
}

// ---- Edge cases, every renderer ---------------------------------------------------

void expect_all_render(const Analysis& a, const json& m) {
  const std::string md = render_markdown(a, m);
  const std::string html = render_html(a, m);
  EXPECT_EQ(count(html, "<svg"), count(html, "</svg>"));
  EXPECT_THAT(html, HasSubstr("</html>"));
  // NaN and infinity never show as numbers: "n/a" instead.
  EXPECT_FALSE(has_word(md + html, "nan"));
  EXPECT_FALSE(has_word(md + html, "inf"));
  const json j = analysis_json(a, m);
  EXPECT_EQ(json::parse(j.dump()), j);
  std::ostringstream csv;
  write_samples_csv(csv, m, {});
  EXPECT_EQ(lines_of(csv.str()).size(), 1u);
}

TEST(ReportEdgeCases, NoCases) {
  const Analysis a = analysis_of({});
  expect_all_render(a, manifest("interrupted"));
  const std::string md = render_markdown(a, manifest());
  EXPECT_THAT(md, HasSubstr("No training cases in this run."));
  const std::string html = render_html(a, manifest());
  EXPECT_EQ(count(html, "<svg"), 0u);
  EXPECT_THAT(html, HasSubstr("No overhead to show"));
  EXPECT_EQ(analysis_json(a, manifest())["cases"], json::array());
}

TEST(ReportEdgeCases, AnEnvironmentWithNoData) {
  Analysis a = analysis_of({training_case(kFcn, {"host", "docker", "podman"})});
  a.cases[0].envs[1] = env_stats("docker", {}, 2);
  a.cases[0].overheads.clear();
  add_overheads(a.cases[0], "host");
  expect_all_render(a, manifest());
  const std::string md = render_markdown(a, manifest());
  const auto row = cells(table_rows(section(md, "Summary: training"))[2]);
  EXPECT_EQ(row[1], "docker");
  EXPECT_EQ(row[2], "n/a");
  EXPECT_EQ(row[3], "n/a");
  EXPECT_EQ(row[4], "no data: 2 failed launches");
  EXPECT_THAT(md, HasSubstr("| docker | 0 | 0 | n/a | n/a | n/a | n/a | n/a | n/a | n/a | 2 | 8.50000 | 2 |"));
  const std::string bars = svg_bar_chart(a.cases[0], "x");
  EXPECT_EQ(count(bars, "class=\"mark bar\""), 2u);
  EXPECT_THAT(bars, HasSubstr("docker: no run finished (2 failed launches)"));
  EXPECT_THAT(svg_box_plot(a.cases[0], "y"), HasSubstr("class=\"mark no-data\""));
  const json j = analysis_json(a, manifest());
  EXPECT_TRUE(j["cases"][0]["envs"][1]["runs"]["mean"].is_null());
}

TEST(ReportEdgeCases, OneRunHasNoConfidenceInterval) {
  Analysis a = analysis_of({case_of(kFcn, {env_stats("host", {1.0}), env_stats("docker", {1.05})})});
  expect_all_render(a, manifest());
  const std::string md = render_markdown(a, manifest());
  const auto rows = table_rows(section(md, "Summary: training"));
  EXPECT_EQ(cells(rows[1])[2], "1.00000 (n/a)");
  EXPECT_EQ(cells(rows[2])[3], "+5.0% (no 95% CI: too few runs); mean +5.0% (no 95% CI)");
  EXPECT_EQ(cells(rows[2])[4], "cannot tell yet: 1 run; give --runs 6");
  const std::string bars = svg_bar_chart(a.cases[0], "x");
  EXPECT_THAT(bars, HasSubstr("95% CI n/a, 1 run"));
  EXPECT_THAT(svg_overhead_chart(a, CaseKind::training, "o"), HasSubstr(">no CI</text>"));
}

TEST(ReportEdgeCases, EveryEnvironmentFailed) {
  Analysis a = analysis_of({case_of(kFcn, {env_stats("host", {}, 3), env_stats("docker", {}, 3)}),
                            case_of("startup", {env_stats("host", {}, 1), env_stats("docker", {}, 1)}, true)});
  expect_all_render(a, manifest("completed with failures"));
  const std::string md = render_markdown(a, manifest());
  EXPECT_THAT(md, HasSubstr("| fcn5/torch/cpu/b64 | host | n/a | baseline |  |"));
  EXPECT_THAT(md, HasSubstr("|  | docker | n/a | n/a | no data for host |"));
  EXPECT_EQ(count(md, "failed, round 9"), 8u);
  const std::string html = render_html(a, manifest());
  EXPECT_THAT(html, HasSubstr("class=\"chart bars\""));
  EXPECT_THAT(html, HasSubstr("No overhead to show"));
  EXPECT_EQ(count(html, "class=\"mark no-data\""), 8u);  // bars and boxes, both cases
}

TEST(ReportEdgeCases, AStoppedRunListsWhatThePreflightFound) {
  json m = manifest("not comparable");
  m["preflight"] = {{"docker",
                     {{{"field", "libraries/digest"},
                       {"baseline", "d25e"},
                       {"value", "4173"},
                       {"requested", false},
                       {"blocking", true}}}}};
  const Analysis a = analysis_of({training_case(kFcn, {"host", "docker"})});
  expect_all_render(a, m);
  EXPECT_THAT(render_markdown(a, m),
              HasSubstr("- docker: libraries/digest: host has d25e, docker has 4173 (not asked for)"));
  EXPECT_THAT(render_html(a, m), HasSubstr("NOT COMPARABLE"));
}

// ---- Micro-benchmarks, every renderer ---------------------------------------------

const char* kGemm = "gemm/sgemm/n4096";
const char* kIoLat = "io-lat/bs4K/64M@tmpfs";
constexpr double kGemmWork = 2.0 * 4096 * 4096 * 4096;  // flops of one SGEMM

// A micro-benchmark's environment as analyze() makes it: run values in
// seconds per operation; each run's operations at `spread` times its value.
EnvironmentStats micro_env(const std::string& name, std::vector<double> runs, double work,
                           const std::string& fs_type = "", std::vector<double> spread = {0.99, 1.0, 1.01}) {
  EnvironmentStats e;
  e.env = name;
  e.run_values = std::move(runs);
  for (double r : e.run_values)
    for (double f : spread) e.batch_seconds.push_back(r * f);
  if (!e.run_values.empty()) e.warmup_seconds = {e.run_values[0] * 2};
  e.runs = summarize(e.run_values);
  e.batches = summarize(e.batch_seconds);
  e.warmup = summarize(e.warmup_seconds);
  e.p99_seconds = percentile(e.batch_seconds, 0.99);
  e.fingerprint = json{{"type", "fingerprint"}, {"env", name}};
  e.in_container = name != "host";
  e.work = work;
  e.fs_type = fs_type;
  return e;
}

// As analyze() marks a micro-benchmark (see workloads/micro/micro_workloads.cpp).
CaseAnalysis micro_case(const std::string& id, const std::string& workload, const std::string& figure_unit,
                        bool rate, double scale, const std::string& statistic, double work,
                        std::vector<EnvironmentStats> envs) {
  CaseAnalysis c;
  c.case_id = id;
  c.workload = workload;
  c.micro = true;
  c.unit = "s/op";
  c.figure_unit = figure_unit;
  c.figure_is_rate = rate;
  c.figure_scale = scale;
  c.run_statistic = statistic;
  c.work = work;
  c.envs = std::move(envs);
  return c;
}

CaseAnalysis gemm_case() {
  return micro_case(kGemm, "gemm", "GFLOP/s", true, 1e9, "mean", kGemmWork,
                    {micro_env("host", {0.95, 1.0, 1.05}, kGemmWork), micro_env("docker", {1.0, 1.05, 1.1}, kGemmWork)});
}

// Run values are medians near 0.18 ms; one operation in four is four times
// slower, the tail that only the p99 over all operations shows.
CaseAnalysis io_lat_case() {
  const std::vector<double> spread = {0.9, 1.0, 1.1, 4.0};
  return micro_case(kIoLat, "io-lat", "ms", false, 1e3, "median", 4096,
                    {micro_env("host", {0.000180, 0.000182, 0.000184}, 4096, "tmpfs", spread),
                     micro_env("docker", {0.000200, 0.000202, 0.000204}, 4096, "overlay", spread)});
}

Analysis training_micro_and_startup() {
  return analysis_of({training_case(kFcn, {"host", "docker"}), gemm_case(), io_lat_case(),
                      startup_case({"host", "docker"})});
}

// The figure of a mean time with its CI, as the tests expect it: a rate's
// interval bounds are the rates of the time's upper and lower bounds.
std::string gemm_cell(const Summary& s) {
  return fmt::format("{:.1f} GFLOP/s ({:.1f} .. {:.1f})", kGemmWork / s.mean / 1e9, kGemmWork / s.ci95_high / 1e9,
                     kGemmWork / s.ci95_low / 1e9);
}

TEST(MicroReport, FigureIsWorkOverSecondsWithTheIntervalSwapped) {
  const CaseAnalysis c = gemm_case();
  const Summary& host = c.envs[0].runs;
  const FigureSummary f = figure_summary(c, host);
  EXPECT_DOUBLE_EQ(f.mean, kGemmWork / 1.0 / 1e9);
  EXPECT_DOUBLE_EQ(f.ci95_low, kGemmWork / host.ci95_high / 1e9);  // the slowest time: the lowest rate
  EXPECT_DOUBLE_EQ(f.ci95_high, kGemmWork / host.ci95_low / 1e9);
  EXPECT_LT(f.ci95_low, f.mean);
  EXPECT_GT(f.ci95_high, f.mean);
  EXPECT_DOUBLE_EQ(f.best, kGemmWork / 0.95 / 1e9);  // the fastest run
  EXPECT_DOUBLE_EQ(f.min, kGemmWork / 1.05 / 1e9);
  EXPECT_EQ(format_case_mean_ci(c, host), gemm_cell(host));
  EXPECT_EQ(format_case_mean_ci(c, host), "137.4 GFLOP/s (122.3 .. 156.9)");
  // A latency keeps the order: ms = seconds * 1000.
  const CaseAnalysis lat = io_lat_case();
  const FigureSummary l = figure_summary(lat, lat.envs[0].runs);
  EXPECT_DOUBLE_EQ(l.ci95_low, lat.envs[0].runs.ci95_low * 1e3);
  EXPECT_EQ(format_case_mean_ci(lat, lat.envs[0].runs),
            fmt::format("0.1820 ms ({:.4f} .. {:.4f})", lat.envs[0].runs.ci95_low * 1e3,
                        lat.envs[0].runs.ci95_high * 1e3));
}

TEST(MicroReport, MarkdownHasAMicroBenchmarkSectionInTheFiguresUnits) {
  const Analysis a = training_micro_and_startup();
  const std::string md = render_markdown(a, manifest());
  for (const auto& row : table_rows(section(md, "Summary: training"))) EXPECT_THAT(row, Not(HasSubstr("gemm")));
  const auto rows = table_rows(section(md, "Summary: micro-benchmarks"));
  ASSERT_EQ(rows.size(), 5u);  // header, gemm's and io-lat's two environments
  EXPECT_EQ(cells(rows[0]), (std::vector<std::string>{"case", "environment", "mean, in the case's unit (95% CI)",
                                                      "change vs host (95% CI)", "verdict"}));
  EXPECT_EQ(cells(rows[1])[0], kGemm);
  EXPECT_EQ(cells(rows[1])[2], gemm_cell(a.cases[1].envs[0].runs));
  EXPECT_EQ(cells(rows[2])[2], gemm_cell(a.cases[1].envs[1].runs));
  // docker takes 5% longer per operation: 4.8% fewer GFLOP/s, said in the figure's terms.
  EXPECT_THAT(cells(rows[2])[3], HasSubstr("mean -4.8% (95% CI "));
  EXPECT_EQ(cells(rows[3])[2].rfind("0.1820 ms (", 0), 0u);
  EXPECT_THAT(md, HasSubstr("higher is better"));
  // The start-up section is still apart, after the micro-benchmarks.
  EXPECT_EQ(table_rows(section(md, "Summary: container start-up")).size(), 3u);
  EXPECT_LT(md.find("## Summary: micro-benchmarks"), md.find("## Summary: container start-up"));
}

TEST(MicroReport, MarkdownDetailShowsFiguresOperationsAndFileSystem) {
  const Analysis a = training_micro_and_startup();
  const std::string md = render_markdown(a, manifest());
  EXPECT_THAT(md, HasSubstr("GFLOP/s, higher is better; one operation 137.4 GFLOP; statistics over runs, each run "
                            "the mean of its 3 operations"));
  EXPECT_THAT(md, HasSubstr("ms, lower is better; statistics over runs, each run the median of its 4 operations"));
  const Table gemm = detail_table(a.cases[1]);
  EXPECT_EQ(gemm.header, (std::vector<std::string>{"env", "runs", "operations per run", "mean GFLOP/s",
                                                   "median GFLOP/s", "best GFLOP/s", "worst GFLOP/s", "CV",
                                                   "95% CI of mean", "warm-up operations", "warm-up mean GFLOP/s",
                                                   "failed launches", "outlier runs (kept)", "data"}));
  const auto& host = gemm.rows[0];
  EXPECT_EQ(host[2], "3");
  EXPECT_EQ(host[3], "137.4");
  EXPECT_EQ(host[5], fmt::format("{:.1f}", kGemmWork / 0.95 / 1e9));  // best: the fastest run
  EXPECT_EQ(host[6], fmt::format("{:.1f}", kGemmWork / 1.05 / 1e9));
  EXPECT_EQ(host[8], "122.3 .. 156.9");
  EXPECT_EQ(host[9], "1");  // warm-up operations
  std::vector<std::string> host_cells;
  for (const auto& cell : host) host_cells.push_back(cell.text);
  EXPECT_THAT(md, HasSubstr(fmt::format("| {} |", fmt::join(host_cells, " | "))));

  const Table lat = detail_table(a.cases[2]);
  ASSERT_EQ(lat.header.size(), 17u);
  EXPECT_EQ(lat.header[9], "mean ms, all operations");
  EXPECT_EQ(lat.header[10], "p99 ms, all operations");
  EXPECT_EQ(lat.header[15], "file system");
  const EnvironmentStats& docker = a.cases[2].envs[1];
  EXPECT_EQ(lat.rows[1][3], "0.2020");
  EXPECT_EQ(lat.rows[1][10], fmt::format("{:.4f}", docker.p99_seconds * 1e3));
  EXPECT_GT(docker.p99_seconds, 3 * docker.runs.max);  // the tail the medians hide
  EXPECT_EQ(lat.rows[0][15], "tmpfs");
  EXPECT_EQ(lat.rows[1][15], "overlay");
  EXPECT_THAT(md, HasSubstr("| p99 ms, all operations |"));
  EXPECT_THAT(md, HasSubstr("| overlay |"));
}

TEST(MicroReport, StreamRunsAreTheBestOfTheirOperations) {
  const double bytes = 3 * 8 * 16777216.0;
  Analysis a = analysis_of({micro_case("stream/triad/n16777216", "stream", "GB/s", true, 1e9, "min", bytes,
                                       {micro_env("host", {0.040, 0.041}, bytes)})});
  EXPECT_EQ(case_caption(a.cases[0]),
            "GB/s, higher is better; one operation 0.4027 GB; statistics over runs, each run the best of its 3 "
            "operations, as STREAM reports; intervals and overheads are taken over seconds per operation");
  EXPECT_THAT(render_console(a), HasSubstr("each run the best of its 3 operations, as STREAM reports"));
}

TEST(MicroReport, ConsoleShowsTheMicroBenchmarksInTheirUnits) {
  const Analysis a = training_micro_and_startup();
  const std::string out = render_console(a);
  EXPECT_THAT(out, HasSubstr("\nMicro-benchmarks (each in its own figure"));
  EXPECT_THAT(out, HasSubstr("gemm/sgemm/n4096  (GFLOP/s, higher is better"));
  // The detail block: the mean and the CI as figures, bounds swapped.
  const auto lines = lines_of(out);
  auto line_with = [&](const std::string& a1, const std::string& a2) {
    for (const auto& l : lines)
      if (l.find(a1) != std::string::npos && l.find(a2) != std::string::npos) return l;
    return std::string();
  };
  const std::string host = line_with("  host ", "122.3 .. 156.9");
  EXPECT_THAT(host, HasSubstr(" 137.4 "));
  EXPECT_THAT(host, HasSubstr("not in container"));
  EXPECT_THAT(out, HasSubstr("docker vs host: time-per-operation ratio 1.0500"));
  // io-lat: medians in ms, and the mean and p99 over all operations.
  EXPECT_THAT(out, HasSubstr("p99 ms, all operations"));
  const EnvironmentStats& docker = a.cases[2].envs[1];
  const std::string lat = line_with(fmt::format("{:.4f}", docker.p99_seconds * 1e3), "overlay");
  EXPECT_THAT(lat, HasSubstr(" 0.2020 "));
  // The summary: one row per case with its unit, each environment's mean
  // figure, and the change of the figure (5% more time per operation is
  // 4.8% fewer GFLOP/s).
  EXPECT_THAT(out, HasSubstr("Summary: micro-benchmarks in their units"));
  const std::string summary = line_with("  gemm/sgemm/n4096 (GFLOP/s) ", "137.4");
  EXPECT_THAT(summary, HasSubstr("130.9 -4.8%"));
  // Three runs: significant by the means' interval (too few for the robust one).
  EXPECT_THAT(line_with("  io-lat/bs4K/64M@tmpfs (ms) ", "0.1820"), HasSubstr("0.2020 +11.0%*"));
  // Training keeps its seconds, start-up its section.
  EXPECT_THAT(out, HasSubstr("Summary: s/batch"));
  EXPECT_THAT(out, HasSubstr("Container start-up"));
}

// One Analysis, the same cells in every format (issue 19): each table is
// built once (report_model.h), and console, Markdown, HTML and JSON show
// what it holds.
TEST(CrossReporter, TheModelsCellsShowInEveryFormat) {
  Analysis a = training_micro_and_startup();
  a.cases[0].overheads[0].mismatch_allowed = true;
  const json m = manifest();
  const Report model = build_report(a, m);
  const std::string console = render_console(a), md = render_markdown(a, m), html = render_html(a, m);
  const json j = analysis_json(a, m);
  ASSERT_EQ(model.cases.size(), 4u);
  for (std::size_t c = 0; c < model.cases.size(); ++c) {
    const CaseSection& s = model.cases[c];
    for (const auto& row : s.detail.rows)
      for (const auto& cell : row) {
        EXPECT_THAT(md, HasSubstr(fmt::format("| {} |", cell.text))) << s.analysis->case_id;
        EXPECT_THAT(html, HasSubstr(fmt::format(">{}</t", html_escape(cell.text)))) << s.analysis->case_id;
      }
    for (const auto& row : s.console.rows)
      for (const auto& cell : row) EXPECT_THAT(console, HasSubstr(cell.text)) << s.analysis->case_id;
    for (const auto& l : s.comparisons) {
      EXPECT_THAT(console, HasSubstr(l.headline));
      EXPECT_THAT(md, HasSubstr(l.headline.substr(0, l.headline.find('['))));
      EXPECT_THAT(html, HasSubstr(html_escape(l.headline)));
    }
  }
  // The summary's verdicts are the JSON's judgements, and its means the JSON's.
  for (const auto& section : model.summaries)
    for (const auto& row : section.table.rows) {
      EXPECT_THAT(md, HasSubstr(fmt::format("| {} |", row[4].text)));
      EXPECT_THAT(html, HasSubstr(fmt::format(">{}</t", html_escape(row[4].text))));
    }
  const json& fcn = j["cases"][0];
  EXPECT_EQ(model.cases[0].detail.rows[1][3], format_seconds(fcn["envs"][1]["runs"]["mean"].get<double>()));
  const std::string verdict = model.summaries[0].table.rows[1][4].text;
  // Too few runs to tell: the JSON's judgement names the verdict, the cell says it in words.
  EXPECT_EQ(fcn["overheads"][0]["judgement"], "too few runs");
  EXPECT_EQ(verdict, "MISMATCH ALLOWED: cannot tell yet: 3 runs; give --runs 6");
  EXPECT_EQ(model.summaries[0].table.rows[1][4].style, CellStyle::mismatch_allowed);
  EXPECT_THAT(html, HasSubstr("<td class=\"text mismatch-allowed\">MISMATCH ALLOWED: "));
}

TEST(MicroReport, HtmlHasTheMicroTablesAndChartsInTheUnit) {
  const Analysis a = training_micro_and_startup();
  const std::string html = render_html(a, manifest());
  EXPECT_THAT(html, HasSubstr("<h2>Summary: micro-benchmarks</h2>"));
  EXPECT_THAT(html, HasSubstr("id=\"summary-micro\""));
  const Table t = summary_table(a, CaseKind::micro);
  for (const auto& row : t.rows)
    for (const auto& cell : row) expect_cell_in_html(html, cell);
  const Table lat = detail_table(a.cases[2]);
  for (const auto& cell : lat.rows[1]) expect_cell_in_html(html, cell);
  EXPECT_EQ(count(html, "class=\"chart bars\""), 4u);
  EXPECT_EQ(count(html, "class=\"chart overhead micro\""), 1u);
  EXPECT_EQ(count(svg_with_class(html, "chart overhead micro"), "class=\"mark ratio\""), 2u);
  EXPECT_THAT(svg_with_class(html, "chart overhead micro"), HasSubstr("ratio of time per operation"));
  EXPECT_THAT(html, HasSubstr("<section class=\"case micro\""));

  const std::string bars = svg_bar_chart(a.cases[1], "g");
  EXPECT_THAT(bars, HasSubstr("mean GFLOP/s (95% CI), higher is better"));
  EXPECT_THAT(bars, HasSubstr("host: mean 137.4 GFLOP/s, 95% CI 122.3 .. 156.9, 3 runs"));
  EXPECT_THAT(bars, HasSubstr(">137.4</text>"));
  EXPECT_THAT(bars, Not(HasSubstr("s/op")));
  const std::string box = svg_box_plot(a.cases[1], "b");
  EXPECT_THAT(box, HasSubstr("run value, GFLOP/s, higher is better"));
  EXPECT_THAT(box, HasSubstr(fmt::format("host, run 1 of 3: {:.1f} GFLOP/s", kGemmWork / 0.95 / 1e9)));
  EXPECT_THAT(svg_bar_chart(a.cases[2], "l"), HasSubstr("mean ms (95% CI), lower is better"));
  EXPECT_EQ(count(html, "<svg"), count(html, "</svg>"));
}

TEST(MicroReport, CsvCarriesTheFigureOfEverySample) {
  json m = manifest();
  m["plan"]["cases"].push_back({{"id", kGemm}, {"workload", "gemm"}, {"backend", "none"}, {"device", "cpu"},
                                {"batch", 0}, {"input", "memory"}, {"warmup", 1}, {"iters", 5}, {"threads", 1}});
  m["plan"]["cases"].push_back({{"id", kIoLat}, {"workload", "io-lat"}, {"backend", "none"}, {"device", "cpu"},
                                {"batch", 0}, {"input", "memory"}, {"warmup", 1}, {"iters", 5}, {"threads", 1}});
  std::ostringstream out;
  write_samples_csv(out, m,
                    {{{"type", "sample"}, {"case", kGemm}, {"env", "host"}, {"round", 1}, {"phase", "measured"},
                      {"iter", 0}, {"seconds", 0.5}, {"work", kGemmWork}},
                     {{"type", "sample"}, {"case", kIoLat}, {"env", "docker"}, {"round", 1}, {"phase", "measured"},
                      {"iter", 0}, {"seconds", 0.000244140625}, {"work", 4096}},
                     {{"type", "sample"}, {"case", kFcn}, {"env", "host"}, {"round", 1}, {"phase", "measured"},
                      {"iter", 0}, {"seconds", 0.25}}});
  const auto lines = lines_of(out.str());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1], fmt::format("20261130-121703-07e3,{},gemm,none,cpu,0,memory,host,1,measured,0,0.5,,,{},GFLOP/s,"
                                  "274.877906944",  // work / seconds / 1e9
                                  kGemm, json(kGemmWork).dump()));
  EXPECT_EQ(lines[2].substr(lines[2].find(",4096,")), ",4096,ms,0.244140625");  // seconds * 1000
  EXPECT_EQ(lines[3].substr(lines[3].size() - 4), ",,,,");  // training: no figure
}

TEST(MicroReport, JsonCarriesTheFigureWorkP99AndFileSystem) {
  const Analysis a = training_micro_and_startup();
  const json j = json::parse(analysis_json(a, manifest()).dump());
  EXPECT_EQ(j["cases"][0]["micro"], false);
  EXPECT_TRUE(j["cases"][0]["figure_unit"].is_null());
  const json& gemm = j["cases"][1];
  EXPECT_EQ(gemm["micro"], true);
  EXPECT_EQ(gemm["workload"], "gemm");
  EXPECT_EQ(gemm["figure_unit"], "GFLOP/s");
  EXPECT_DOUBLE_EQ(gemm["work"].get<double>(), kGemmWork);
  const Summary& host = a.cases[1].envs[0].runs;
  const json& f = gemm["envs"][0]["figure"];
  EXPECT_DOUBLE_EQ(f["mean"].get<double>(), kGemmWork / host.mean / 1e9);
  EXPECT_DOUBLE_EQ(f["ci95_low"].get<double>(), kGemmWork / host.ci95_high / 1e9);
  EXPECT_DOUBLE_EQ(f["ci95_high"].get<double>(), kGemmWork / host.ci95_low / 1e9);
  EXPECT_DOUBLE_EQ(f["max"].get<double>(), kGemmWork / host.min / 1e9);
  EXPECT_DOUBLE_EQ(gemm["envs"][0]["runs"]["mean"].get<double>(), 1.0);  // statistics stay in seconds
  const json& lat = j["cases"][2];
  EXPECT_EQ(lat["figure_unit"], "ms");
  EXPECT_EQ(lat["work"], 4096);
  EXPECT_EQ(lat["envs"][1]["fs_type"], "overlay");
  EXPECT_DOUBLE_EQ(lat["envs"][1]["p99_seconds"].get<double>(), a.cases[2].envs[1].p99_seconds);
  EXPECT_DOUBLE_EQ(lat["envs"][1]["figure"]["operations_p99"].get<double>(), a.cases[2].envs[1].p99_seconds * 1e3);
  EXPECT_DOUBLE_EQ(lat["envs"][1]["figure"]["median"].get<double>(), 0.000202 * 1e3);
}

TEST(MicroReport, LittleDataShowsNotANumber) {
  // Two runs far apart: the time's interval reaches below 0, so the rate's
  // upper bound is unbounded; one run: no interval; none: no figure.
  Analysis a = analysis_of({micro_case(kGemm, "gemm", "GFLOP/s", true, 1e9, "mean", kGemmWork,
                                       {micro_env("host", {0.1, 1.0}, kGemmWork), micro_env("docker", {0.5}, kGemmWork),
                                        micro_env("podman", {}, kGemmWork)})});
  a.cases[0].envs[2].failed_launches = 2;
  expect_all_render(a, manifest());
  const auto rows = summary_table(a, CaseKind::micro).rows;
  EXPECT_EQ(rows[0][2], fmt::format("{:.1f} GFLOP/s ({:.1f} .. n/a)", kGemmWork / 0.55 / 1e9,
                                    kGemmWork / a.cases[0].envs[0].runs.ci95_high / 1e9));
  EXPECT_EQ(rows[1][2], fmt::format("{:.1f} GFLOP/s (n/a)", kGemmWork / 0.5 / 1e9));
  EXPECT_EQ(rows[2][2], "n/a");
  const std::string console = render_console(a);
  EXPECT_FALSE(has_word(console, "nan"));
  EXPECT_FALSE(has_word(console, "inf"));
  EXPECT_THAT(svg_bar_chart(a.cases[0], "x"), HasSubstr("podman: no run finished (2 failed launches)"));
}

// Issue 35 items 1 and 4: sysbench's events/s, docker at 2126.9 against the
// host's 3869.8, read "2126.9 +82.7%*" under an s/batch header and "ratio
// 1.8266, slower by 81.9%": seconds per event, in two estimates. One
// headline, in the user's unit and sign, is now every format's.
TEST(Headline, ARateIsReportedInItsOwnUnitByOneFigureEverywhere) {
  const CaseSpec spec = sysbench_events_per_second();
  json m = manifest();
  m["plan"]["cases"] = json::array({json(spec)});
  std::vector<json> records;
  const std::map<std::string, std::vector<double>> rates = {
      {"host", {3869.8, 3901.2, 3850.4, 3877.0, 3860.1, 3889.5}},
      {"docker", {2126.9, 2140.3, 2119.8, 2131.2, 2124.4, 2135.0}}};
  for (int round = 1; round <= 6; ++round)
    for (const auto& [env, r] : rates) {
      const double rate = r[static_cast<std::size_t>(round - 1)];
      records.push_back({{"type", "sample"}, {"case", spec.id()}, {"env", env}, {"round", round}, {"phase", "measured"},
                         {"iter", 0}, {"seconds", 1 / rate}, {"value", rate}, {"work", 1.0}});
      records.push_back({{"type", "launch"}, {"case", spec.id()}, {"env", env}, {"round", round}, {"ok", true}});
    }
  const Analysis a = analyze(m, records);
  ASSERT_EQ(a.cases.size(), 1u);
  ASSERT_EQ(a.cases[0].overheads.size(), 1u);
  const Overhead& o = a.cases[0].overheads[0];
  EXPECT_EQ(o.verdict, Verdict::slower);
  EXPECT_EQ(o.headline.terms.unit, "events/s");
  EXPECT_NEAR(o.headline.change(), 2130.0 / 3875.0 - 1, 0.01);  // about 45% fewer events/s
  EXPECT_LT(o.headline.change_low(), o.headline.change());
  EXPECT_GT(o.headline.change_high(), o.headline.change());
  const std::string fewer = fmt::format("{:.1f}% fewer events/s", -100 * o.headline.change());
  EXPECT_EQ(short_verdict_words(o, ComparisonWording::overhead), fewer);
  EXPECT_THAT(o.verdict_text, HasSubstr(fewer + " (95% CI -"));
  EXPECT_THAT(o.verdict_text, Not(HasSubstr("slower")));
  // The same figure in the console's summary, the comparison's line, the
  // Markdown table and the JSON.
  const std::string mark = fmt::format("{:+.1f}%*", 100 * o.headline.change());
  const std::string console = render_console(a);
  EXPECT_THAT(console, HasSubstr(mark));
  EXPECT_THAT(console, HasSubstr(fmt::format("ratio {:.4f}", o.headline.time_ratio)));
  EXPECT_THAT(console, HasSubstr("A percentage is the change of the case's own figure"));
  EXPECT_THAT(console, Not(HasSubstr("s/batch")));
  const std::string md = render_markdown(a, m);
  EXPECT_THAT(md, HasSubstr(fmt::format("{:+.1f}% (95% CI", 100 * o.headline.change())));
  EXPECT_THAT(md, HasSubstr("events/s"));
  const json j = analysis_json(a, m)["cases"][0]["overheads"][0]["headline"];
  EXPECT_EQ(j["unit"], "events/s");
  EXPECT_TRUE(j["rate"].get<bool>());
  EXPECT_EQ(j["basis"], "robust");
  EXPECT_NEAR(j["change_percent"].get<double>(), 100 * o.headline.change(), 1e-9);
}

TEST(MicroReport, RendersWhatAnalyzeMakesOfTheRecords) {
  json m = manifest();
  m["plan"]["cases"] = json::array({{{"id", kGemm}, {"workload", "gemm"}, {"backend", "none"}, {"device", "cpu"},
                                     {"batch", 0}, {"warmup", 1}, {"iters", 2}, {"threads", 1}, {"variant", "sgemm"},
                                     {"size", 4096}}});
  std::vector<json> records;
  const std::map<std::string, std::vector<double>> seconds = {{"host", {0.5, 0.5, 0.4, 0.4, 0.45, 0.45}},
                                                             {"docker", {0.5, 0.5, 0.5, 0.5, 0.5, 0.5}}};
  for (int round = 1; round <= 3; ++round)
    for (const auto& [env, s] : seconds) {
      records.push_back({{"type", "fingerprint"}, {"case", kGemm}, {"env", env}, {"round", round}});
      for (int i = 0; i < 2; ++i)
        records.push_back({{"type", "sample"}, {"case", kGemm}, {"env", env}, {"round", round},
                           {"phase", "measured"}, {"iter", i}, {"seconds", s[static_cast<std::size_t>(2 * round - 2 + i)]},
                           {"work", kGemmWork}});
      records.push_back({{"type", "launch"}, {"case", kGemm}, {"env", env}, {"round", round}, {"ok", true}});
    }
  const Analysis a = analyze(m, records);
  ASSERT_EQ(a.cases.size(), 1u);
  ASSERT_TRUE(a.cases[0].micro);
  const std::string cell = format_case_mean_ci(a.cases[0], a.cases[0].envs[0].runs);
  EXPECT_EQ(cell, gemm_cell(a.cases[0].envs[0].runs));
  EXPECT_EQ(cell.rfind(fmt::format("{:.1f} GFLOP/s (", kGemmWork / 0.45 / 1e9), 0), 0u);
  // The change is the headline's, in GFLOP/s: with 3 rounds the means' (+11.1% in time per operation).
  EXPECT_THAT(render_console(a), HasSubstr("  gemm/sgemm/n4096 (GFLOP/s)  305.4  274.9 -10.0%\n"));
  EXPECT_THAT(render_markdown(a, m), HasSubstr(cell));
  EXPECT_THAT(render_html(a, m), HasSubstr(cell));
}

// Two rounds of one micro-benchmark case (4096, the variant) in host and
// docker: two operations of 0.5 s each, with each environment's work per
// operation and what its fingerprint's "micro" says.
struct MicroRun {
  json manifest;
  std::vector<json> records;
};
MicroRun two_environment_micro_run(const std::string& id, const std::string& workload, const std::string& device,
                                   const std::string& variant, const std::map<std::string, double>& work,
                                   const std::map<std::string, json>& micro = {}) {
  MicroRun run{manifest(), {}};
  run.manifest["plan"]["cases"] =
      json::array({{{"id", id}, {"workload", workload}, {"backend", "none"}, {"device", device}, {"batch", 0},
                    {"warmup", 1}, {"iters", 2}, {"threads", 1}, {"variant", variant}, {"size", 4096}}});
  for (int round = 1; round <= 2; ++round)
    for (const std::string env : {"host", "docker"}) {
      json fingerprint = {{"type", "fingerprint"}, {"case", id}, {"env", env}, {"round", round}};
      if (micro.count(env)) fingerprint["micro"] = micro.at(env);
      run.records.push_back(fingerprint);
      for (int i = 0; i < 2; ++i)
        run.records.push_back({{"type", "sample"}, {"case", id}, {"env", env}, {"round", round},
                               {"phase", "measured"}, {"iter", i}, {"seconds", 0.5}, {"work", work.at(env)}});
      run.records.push_back({{"type", "launch"}, {"case", id}, {"env", env}, {"round", round}, {"ok", true}});
    }
  return run;
}

// Seconds per operation compare only when both environments did the same
// work per operation: otherwise the overhead is not a comparison.
TEST(MicroReport, OperationsOfDifferentWorkAreNotCompared) {
  const MicroRun run =
      two_environment_micro_run(kGemm, "gemm", "cpu", "sgemm", {{"host", kGemmWork}, {"docker", 2 * kGemmWork}});
  const Analysis a = analyze(run.manifest, run.records);
  ASSERT_EQ(a.cases[0].overheads.size(), 1u);
  const Overhead& o = a.cases[0].overheads[0];
  ASSERT_EQ(o.mismatches.size(), 1u);
  EXPECT_EQ(o.mismatches[0].field, "work of one operation");
  EXPECT_TRUE(o.mismatches[0].blocking);
  EXPECT_FALSE(o.compared) << o.verdict_text;
}

// gpu-gemm describes its GPU's estimated peak; the reports put each
// environment's mean against it (the "which fraction of peak").
TEST(MicroReport, GpuGemmShowsItsShareOfTheEstimatedPeak) {
  const MicroRun run = two_environment_micro_run("gpu-gemm/bf16/n4096", "gpu-gemm", "gpu", "bf16",
                                                 {{"host", kGemmWork}, {"docker", kGemmWork}},
                                                 {{"host", {{"estimated_peak_gflops", 1000.0}}}});
  const Analysis a = analyze(run.manifest, run.records);
  ASSERT_EQ(a.cases.size(), 1u);
  ASSERT_TRUE(a.cases[0].micro);
  const Table t = detail_table(a.cases[0]);
  const auto column = std::find(t.header.begin(), t.header.end(), "mean of estimated limit") - t.header.begin();
  ASSERT_LT(static_cast<std::size_t>(column), t.header.size());
  EXPECT_EQ(t.rows[0][static_cast<std::size_t>(column)], "27.5% of 1000");  // 274.9 GFLOP/s of 1000
  EXPECT_EQ(t.rows[1][static_cast<std::size_t>(column)], "n/a");          // its description gave none
  const json j = json::parse(analysis_json(a, run.manifest).dump());
  EXPECT_DOUBLE_EQ(j["cases"][0]["envs"][0]["fraction_of_limit"].get<double>(), kGemmWork / 0.5 / 1e9 / 1000);
  EXPECT_EQ(j["cases"][0]["envs"][0]["estimated_limit"], 1000.0);
  EXPECT_TRUE(j["cases"][0]["envs"][1]["fraction_of_limit"].is_null());
  // Benchmarks without a limit keep their columns.
  const Table cpu = detail_table(gemm_case());
  EXPECT_EQ(std::count(cpu.header.begin(), cpu.header.end(), "mean of estimated limit"), 0);
}

// gpu-copy describes its bandwidth limit in its own unit (GB copied per
// second): the same column and fields carry it.
TEST(MicroReport, GpuCopyShowsItsShareOfTheBandwidthLimit) {
  constexpr double kBytes = 1e9;  // 1 GB in 0.5 s: 2 GB/s
  const MicroRun run = two_environment_micro_run("gpu-copy/h2d-pinned/s1g", "gpu-copy", "gpu", "h2d-pinned",
                                                 {{"host", kBytes}, {"docker", kBytes}},
                                                 {{"host", {{"estimated_limit_gb_per_s", 63.0}}},
                                                  {"docker", {{"estimated_limit_gb_per_s", 63.0}}}});
  const Analysis a = analyze(run.manifest, run.records);
  ASSERT_EQ(a.cases.size(), 1u);
  const Table t = detail_table(a.cases[0]);
  const auto column = std::find(t.header.begin(), t.header.end(), "mean of estimated limit") - t.header.begin();
  ASSERT_LT(static_cast<std::size_t>(column), t.header.size());
  EXPECT_EQ(t.rows[0][static_cast<std::size_t>(column)], "3.2% of 63");
  const json j = json::parse(analysis_json(a, run.manifest).dump());
  EXPECT_DOUBLE_EQ(j["cases"][0]["envs"][1]["fraction_of_limit"].get<double>(), 2.0 / 63.0);
}

}  // namespace
}  // namespace dlcbench

namespace dlcbench {
namespace {

CaseAnalysis backend_case(const std::string& backend, double scale) {
  return training_case("fcn5/" + backend + "/cpu/b64", {"host", "docker"}, scale);
}

TEST(BackendComparison, GroupsTheBackEndsOfANetworkFastestFirst) {
  Analysis a = analysis_of({backend_case("torch", 1.0), backend_case("reference", 2.0), backend_case("onednn", 0.5),
                            training_case(kAlex, {"host", "docker"})});
  const auto groups = backend_groups(a);
  ASSERT_EQ(groups.size(), 1u);  // alexnet has one back end: no comparison
  EXPECT_EQ(groups[0].network, "fcn5/cpu/b64");
  ASSERT_EQ(groups[0].rows.size(), 3u);
  EXPECT_EQ(groups[0].rows[0].analysis->spec.backend, "onednn");
  EXPECT_EQ(groups[0].rows[2].analysis->spec.backend, "reference");
  EXPECT_DOUBLE_EQ(groups[0].rows[0].vs_fastest, 1.0);
  EXPECT_NEAR(groups[0].rows[2].vs_fastest, 4.0, 1e-12);

  const std::string console = render_console(a);
  EXPECT_THAT(console, HasSubstr("Back ends side by side"));
  EXPECT_THAT(console, HasSubstr("4.00x"));
  const std::string markdown = render_markdown(a, manifest());
  EXPECT_THAT(markdown, HasSubstr("## Back ends side by side"));
  EXPECT_THAT(markdown, HasSubstr("| fcn5/cpu/b64 | reference |"));
  EXPECT_THAT(render_html(a, manifest()), HasSubstr("id=\"summary-backends\""));
}

TEST(BackendComparison, OneBackEndGivesNoSection) {
  EXPECT_THAT(render_console(two_cases_and_startup()), Not(HasSubstr("Back ends side by side")));
}

// The README and docs/report.schema.json give the version the JSON report
// writes (the README said 2 while it wrote 3).
TEST(JsonReport, TheReadmeAndTheSchemaGiveTheVersionItWrites) {
  const std::filesystem::path source = DLCBENCH_SOURCE_DIR;
  std::ifstream readme_file(source / "README.md");
  const std::string readme{std::istreambuf_iterator<char>(readme_file), std::istreambuf_iterator<char>()};
  std::smatch said;
  ASSERT_TRUE(std::regex_search(readme, said, std::regex("`schema_version` \\(now ([0-9]+)\\)")));
  EXPECT_EQ(std::stoi(said[1].str()), kAnalysisJsonSchemaVersion);
  std::ifstream schema_file(source / "docs" / "report.schema.json");
  const json schema = json::parse(schema_file);
  EXPECT_EQ(schema.at("properties").at("schema_version").at("const").get<int>(), kAnalysisJsonSchemaVersion);
}

}  // namespace
}  // namespace dlcbench
