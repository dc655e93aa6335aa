#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "report/csv.h"
#include "report/html.h"
#include "report/json_report.h"
#include "report/markdown.h"

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
    Overhead o;
    o.env = e.env;
    o.estimate = ratio_of_means(e.run_values, base->run_values);
    o.verdict = e.run_values.size() < 2 || base->run_values.size() < 2
                    ? "+5.0%; too few runs for a confidence interval (use --runs 2 or more)"
                    : "slower by 9.1% (95% CI +1.0% .. +18.0%, p = 0.03)";
    c.overheads.push_back(std::move(o));
  }
}

CaseAnalysis training_case(const std::string& id, const std::vector<std::string>& envs, double scale = 1.0) {
  CaseAnalysis c;
  c.case_id = id;
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
                   {"input", "memory"}});
  cases.push_back({{"id", kAlex},
                   {"workload", "alexnet"},
                   {"backend", "torch"},
                   {"device", "cpu"},
                   {"batch", 64},
                   {"input", "disk"}});
  cases.push_back({{"id", "startup"},
                   {"workload", "startup"},
                   {"backend", "none"},
                   {"device", "cpu"},
                   {"batch", 0},
                   {"input", "memory"}});
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

TEST(MarkdownReport, SummaryHasARowPerCaseAndAColumnPerEnvironment) {
  const std::string md = render_markdown(two_cases_and_startup(), manifest());
  const auto rows = table_rows(section(md, "Summary: training"));
  ASSERT_EQ(rows.size(), 3u);  // header and two cases
  EXPECT_EQ(cells(rows[0]), (std::vector<std::string>{"case", "host, s/batch (95% CI)", "docker, s/batch (95% CI)",
                                                      "docker vs host: overhead (95% CI)", "docker vs host: verdict"}));
  EXPECT_EQ(cells(rows[1])[0], kFcn);
  EXPECT_EQ(cells(rows[2])[0], kAlex);
  EXPECT_EQ(cells(rows[1])[1], "1.10000 (0.85159 .. 1.34841)");  // mean and CI
  EXPECT_THAT(cells(rows[1])[3], HasSubstr("+9.1% (95% CI -10.5% .. +33.4%, p = 0.29)"));
  EXPECT_THAT(cells(rows[1])[3], HasSubstr("p = "));
  EXPECT_EQ(cells(rows[1])[4], "slower by 9.1%");
}

TEST(MarkdownReport, StartupHasATableOfItsOwn) {
  const std::string md = render_markdown(two_cases_and_startup(), manifest());
  for (const auto& row : table_rows(section(md, "Summary: training"))) EXPECT_THAT(row, Not(HasSubstr("startup")));
  const auto rows = table_rows(section(md, "Summary: container start-up"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(cells(rows[0])[1], "host, s/start (95% CI)");
  EXPECT_EQ(cells(rows[1])[0], "startup");
}

TEST(MarkdownReport, HeaderNamesTheRunAndTheMethods) {
  const std::string md = render_markdown(two_cases_and_startup(), manifest());
  EXPECT_THAT(md, HasSubstr("# dlcbench report: run 20261130-121703-07e3"));
  EXPECT_THAT(md, HasSubstr("- **Status:** completed"));
  EXPECT_THAT(md, HasSubstr("- **Started:** 2026-11-30T12:17:03Z"));
  EXPECT_THAT(md, HasSubstr("- **Ended:** 2026-11-30T12:41:37Z"));
  EXPECT_THAT(md, HasSubstr("- **Command:** `build/dlcbench run --envs host,docker`"));
  EXPECT_THAT(md, HasSubstr("- **Baseline:** host"));
  EXPECT_THAT(md, HasSubstr("Fieller 95% CI of the ratio of means; Welch's t-test"));
  EXPECT_THAT(md, Not(HasSubstr("INTERRUPTED")));
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
                                      "95% CI of mean", "warm-up batches", "failed launches", "outlier runs (kept)",
                                      "data"}));
  const auto docker = cells(rows[2]);
  EXPECT_EQ(docker[0], "docker");
  EXPECT_EQ(docker[1], "3");        // runs
  EXPECT_EQ(docker[2], "9");        // batches
  EXPECT_EQ(docker[3], "1.20000");  // mean
  EXPECT_EQ(docker[6], "1.10000");  // min
  EXPECT_EQ(docker[7], "1.30000");  // max
  EXPECT_EQ(docker[10], "2");       // warm-up batches
  EXPECT_EQ(docker[11], "1");
  EXPECT_EQ(docker[12], "none");  // outlier runs
  EXPECT_EQ(docker[13], "synthetic, in container");
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
  const auto row = cells(table_rows(section(md, "Summary: training"))[1]);
  EXPECT_EQ(row[5], "not compared");
  EXPECT_EQ(row[6], "NOT COMPARED: not like for like");
  EXPECT_EQ(row[8], "MISMATCH ALLOWED: slower by 9.1%");
}

TEST(MarkdownReport, EscapesWhatMarkdownWouldReadAsMarkup) {
  Analysis a = analysis_of({training_case("a|b", {"host", "docker:x=<b>"})});
  const std::string md = render_markdown(a, manifest());
  EXPECT_THAT(md, HasSubstr("| a\\|b |"));
  EXPECT_THAT(md, HasSubstr("docker:x=\\<b\\>, s/batch"));
  EXPECT_THAT(md, Not(HasSubstr("<b>")));
  EXPECT_EQ(cells(table_rows(section(md, "Summary: training"))[1]).size(), 5u);
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
  EXPECT_EQ(lines[0], "run_id,case,workload,backend,device,batch,input,env,round,phase,iter,seconds,loss,read_seconds");
  EXPECT_EQ(lines[1],
            "20261130-121703-07e3,fcn5/torch/cpu/b64,fcn5,torch,cpu,64,memory,host,1,warmup,0,0.397088482,2.5,");
  EXPECT_EQ(lines[2], "20261130-121703-07e3,fcn5/torch/cpu/b64,fcn5,torch,cpu,64,memory,host,1,measured,0,0.25,2.25,");
  EXPECT_EQ(lines[3],
            "20261130-121703-07e3,alexnet/torch/cpu/b64,alexnet,torch,cpu,64,disk,\"docker:cpuset=0,1\",2,measured,3,"
            "0.125,1.5,0.001");
  EXPECT_EQ(lines[4], "20261130-121703-07e3,startup,startup,none,cpu,0,memory,docker,1,measured,0,0.5,,");
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
  EXPECT_EQ(lines[1], ",\"x\"\"y\",,,,,,host,,,,1,,");
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
  EXPECT_EQ(back["schema_version"], 1);
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
  EXPECT_EQ(oj["verdict"], o.verdict);
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

TEST(HtmlReport, HasTheThreeKindsOfChart) {
  const std::string html = render_html(two_cases_and_startup(), manifest());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count(html, "class=\"chart bars\""), 3u);  // one per case
  EXPECT_EQ(count(html, "class=\"chart box\""), 3u);
  EXPECT_EQ(count(html, "class=\"chart overhead\""), 1u);          // training
  EXPECT_EQ(count(html, "class=\"chart overhead startup\""), 1u);  // start-up, apart
  EXPECT_EQ(count(html, "<svg"), count(html, "</svg>"));
  EXPECT_EQ(count(html, "<svg"), 8u);
  EXPECT_EQ(count(html, "<html"), count(html, "</html>"));
  EXPECT_EQ(count(html, "<section"), count(html, "</section>"));
  EXPECT_EQ(count(html, "<table"), count(html, "</table>"));
  EXPECT_EQ(count(svg_with_class(html, "chart overhead"), "class=\"mark ratio\""), 2u);
  EXPECT_EQ(count(svg_with_class(html, "chart overhead startup"), "class=\"mark ratio\""), 1u);
  EXPECT_THAT(svg_with_class(html, "chart bars", 2), HasSubstr("s/start"));
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
  for (bool startup : {false, true}) {
    const TextTable t = summary_table(a, startup);
    for (const auto& h : t.header) EXPECT_THAT(html, HasSubstr("<th scope=\"col\">" + html_escape(h) + "</th>"));
    for (const auto& row : t.rows)
      for (const auto& cell : row) {
        // fmt, not ">" + ...: GCC 12 warns falsely (-Wrestrict) on that concatenation.
        EXPECT_THAT(html, HasSubstr(fmt::format(">{}</t", html_escape(cell))));
      }
  }
  EXPECT_THAT(html, HasSubstr("id=\"summary-training\""));
  EXPECT_THAT(html, HasSubstr("id=\"summary-startup\""));
  EXPECT_THAT(html, HasSubstr("Fieller 95% CI of the ratio of means; Welch&#39;s t-test"));
}

TEST(HtmlReport, OverheadChartHasAPointPerComparisonAndAReferenceAtOne) {
  Analysis a = analysis_of(
      {training_case(kFcn, {"host", "docker", "podman"}), training_case(kAlex, {"host", "docker", "podman"})});
  a.cases[1].overheads[1].compared = false;
  const std::string chart = svg_overhead_chart(a, false, "o");
  EXPECT_EQ(count(chart, "class=\"mark ratio\""), 3u);
  EXPECT_EQ(count(chart, "class=\"mark not-compared\""), 1u);
  EXPECT_THAT(chart, HasSubstr("1.0 = no overhead"));
  EXPECT_THAT(chart, HasSubstr("class=\"reference\""));
  EXPECT_THAT(chart, HasSubstr("ratio of means, environment / host"));
  EXPECT_THAT(chart, HasSubstr("<title>fcn5/torch/cpu/b64, docker vs host: ratio 1.0909"));
  EXPECT_EQ(svg_overhead_chart(a, true, "none"), "");  // no start-up case
}

TEST(HtmlReport, BoxPlotDrawsEveryRunAsADot) {
  CaseAnalysis c = training_case(kFcn, {"host", "docker"});
  c.envs[1] = env_stats("docker", {1.0, 1.01, 1.02, 1.03, 1.04, 1.05, 5.0});
  const std::string box = svg_box_plot(c, "b");
  EXPECT_EQ(count(box, "<circle"), 10u);
  EXPECT_EQ(count(box, "(beyond the whiskers)"), 1u);  // the 5.0
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
  const auto row = cells(table_rows(section(md, "Summary: training"))[1]);
  EXPECT_EQ(row[2], "n/a");
  EXPECT_EQ(row[4], "n/a");
  EXPECT_EQ(row[5], "no data: 2 failed launches");
  EXPECT_THAT(md, HasSubstr("| docker | 0 | 0 | n/a | n/a | n/a | n/a | n/a | n/a | n/a | 2 | 2 |"));
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
  const auto row = cells(table_rows(section(md, "Summary: training"))[1]);
  EXPECT_EQ(row[1], "1.00000 (n/a)");
  EXPECT_EQ(row[3], "+5.0% (95% CI n/a)");
  EXPECT_THAT(row[4], HasSubstr("too few runs"));
  const std::string bars = svg_bar_chart(a.cases[0], "x");
  EXPECT_THAT(bars, HasSubstr("95% CI n/a, 1 run"));
  EXPECT_THAT(svg_overhead_chart(a, false, "o"), HasSubstr(">no CI</text>"));
}

TEST(ReportEdgeCases, EveryEnvironmentFailed) {
  Analysis a = analysis_of({case_of(kFcn, {env_stats("host", {}, 3), env_stats("docker", {}, 3)}),
                            case_of("startup", {env_stats("host", {}, 1), env_stats("docker", {}, 1)}, true)});
  expect_all_render(a, manifest("completed with failures"));
  const std::string md = render_markdown(a, manifest());
  EXPECT_THAT(md, HasSubstr("| fcn5/torch/cpu/b64 | n/a | n/a | n/a | no data for host |"));
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

}  // namespace
}  // namespace dlcbench
