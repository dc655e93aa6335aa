#include "report/markdown.h"

#include "core/words.h"
#include "report/backend_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <string_view>

namespace dlcbench {
namespace {

std::string text_of(const nlohmann::json& manifest, const char* key) {
  if (!manifest.is_object() || !manifest.contains(key)) return "?";
  const auto& v = manifest.at(key);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "?";
  return v.dump();
}

// One argument as a POSIX shell would need it to read it back.
std::string shell_quote(const std::string& arg) {
  if (arg.empty()) return "''";
  bool plain = true;
  for (char ch : arg) {
    const auto u = static_cast<unsigned char>(ch);
    if (!(std::isalnum(u) || std::string_view("-_./:=,+@%").find(ch) != std::string_view::npos)) plain = false;
  }
  if (plain) return arg;
  std::string out = "'";
  for (char ch : arg) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string command_line(const nlohmann::json& manifest) {
  if (!manifest.is_object() || !manifest.contains("command_line")) return "?";
  const auto& c = manifest.at("command_line");
  if (c.is_string()) return c.get<std::string>();
  if (!c.is_array()) return c.dump();
  std::string out;
  for (const auto& a : c) {
    if (!out.empty()) out += ' ';
    out += shell_quote(a.is_string() ? a.get<std::string>() : a.dump());
  }
  return out;
}

const Overhead* find_overhead(const CaseAnalysis& c, const std::string& env) {
  for (const auto& o : c.overheads)
    if (o.env == env) return &o;
  return nullptr;
}

std::string overhead_cell(const Overhead& o) {
  if (!o.compared) return "not compared";
  const auto& r = o.estimate;
  std::string out = format_percent_change(r.ratio) + " (" + ratio_interval_words(r);
  if (std::isfinite(r.test.p_value)) out += fmt::format(", p = {:.2g}", r.test.p_value);
  return out + ")";
}

std::string verdict_cell(const Overhead& o) {
  if (!o.compared) return "NOT COMPARED: not like for like";
  std::string v = short_verdict_words(o, ComparisonWording::overhead);
  if (o.mismatch_allowed) v = "MISMATCH ALLOWED: " + v;
  return v;
}

// ---- Markdown text ----------------------------------------------------------

// Escapes what Markdown (CommonMark, GitHub tables) would read as markup.
// An underscore inside a word (OMP_NUM_THREADS) is left alone: it cannot
// start emphasis there, and the raw text stays readable.
std::string md_escape(const std::string& s) {
  auto word = [&](std::size_t i) { return i < s.size() && std::isalnum(static_cast<unsigned char>(s[i])); };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (ch == '_' && i > 0 && word(i - 1) && word(i + 1)) {
      out += ch;
      continue;
    }
    switch (ch) {
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '<':
      case '>':
      case '|':
      case '#':
        out += '\\';
        out += ch;
        break;
      case '\n':
      case '\r':
        out += ' ';
        break;
      default:
        out += ch;
    }
  }
  return out;
}

// A code span that holds any text: fenced by more backticks than it contains.
std::string md_code(const std::string& s) {
  std::size_t longest = 0, run = 0;
  for (char ch : s) {
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string flat = s;
  for (char& ch : flat)
    if (ch == '\n' || ch == '\r') ch = ' ';
  const std::string fence(longest + 1, '`');
  const bool pad = !flat.empty() && (flat.front() == '`' || flat.back() == '`');
  return fence + (pad ? " " : "") + flat + (pad ? " " : "") + fence;
}

// fmt rather than " " + text: GCC 12 warns falsely (-Wrestrict) on that.
void md_table(std::string& out, const TextTable& t) {
  out += "|";
  for (const auto& h : t.header) out += fmt::format(" {} |", md_escape(h));
  out += "\n|";
  for (std::size_t i = 0; i < t.header.size(); ++i) out += i < t.numeric.size() && t.numeric[i] ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& cell : row) out += fmt::format(" {} |", md_escape(cell));
    out += "\n";
  }
}

}  // namespace

std::string format_seconds(double v) { return std::isfinite(v) ? fmt::format("{:.5f}", v) : "n/a"; }

std::string format_percent_change(double ratio) {
  if (!std::isfinite(ratio)) return "n/a";
  const double percent = 100 * (ratio - 1);
  return std::fabs(percent) < 0.05 ? "+0.0%" : fmt::format("{:+.1f}%", percent);  // never "-0.0%"
}

std::string format_mean_ci(const Summary& s) {
  if (s.n == 0 || !std::isfinite(s.mean)) return "n/a";
  if (!std::isfinite(s.ci95_low) || !std::isfinite(s.ci95_high)) return format_seconds(s.mean) + " (n/a)";
  return fmt::format("{} ({} .. {})", format_seconds(s.mean), format_seconds(s.ci95_low), format_seconds(s.ci95_high));
}

bool has_cases(const Analysis& analysis, CaseKind kind) {
  return std::any_of(analysis.cases.begin(), analysis.cases.end(),
                     [kind](const CaseAnalysis& c) { return kind_of(c) == kind; });
}

const char* kind_slug(CaseKind kind) {
  switch (kind) {
    case CaseKind::micro:
      return "micro";
    case CaseKind::startup:
      return "startup";
    case CaseKind::training:
      break;
  }
  return "training";
}

const char* kind_name(CaseKind kind) {
  switch (kind) {
    case CaseKind::micro:
      return "micro-benchmarks";
    case CaseKind::startup:
      return "container start-up";
    case CaseKind::training:
      break;
  }
  return "training";
}

std::string summary_caption(CaseKind kind) {
  switch (kind) {
    case CaseKind::micro:
      return "Each case in its own figure with its 95% CI per environment (GFLOP/s, GB/s, MB/s: the work over the "
             "mean time per operation, higher is better; ms: lower is better). Intervals, overheads and tests are "
             "computed on seconds per operation, so the overhead is the change of the mean time per operation "
             "against the baseline: + is slower, a lower rate or a longer latency.";
    case CaseKind::startup:
      return "Apart from training: a static program that exits at once, timed from the orchestrator; each run is "
             "the median of its starts. Each environment's start against the baseline's: the milliseconds it adds "
             "per start, and the ratio.";
    case CaseKind::training:
      break;
  }
  return "Mean seconds per batch with its 95% CI per environment; overhead = change of the mean against the baseline. "
         "No measurable overhead is claimed only where the whole interval lies within +-5%; a wider interval is "
         "inconclusive.";
}

double figure_of(const CaseAnalysis& c, double seconds) {
  if (!c.micro) return seconds;
  // Without the work of an operation (no sample carried it) there is no rate.
  if (c.figure_is_rate && !(c.work > 0)) return NAN;
  if (c.figure_is_rate && !(seconds > 0)) return std::isnan(seconds) ? seconds : INFINITY;
  return c.figure(seconds);
}

double fraction_of_peak(const CaseAnalysis& c, const EnvironmentStats& e) {
  if (!c.micro || c.figure_unit != "GFLOP/s" || !e.estimated_peak_gflops || e.runs.n == 0) return NAN;
  return figure_of(c, e.runs.mean) / *e.estimated_peak_gflops;
}

FigureSummary figure_summary(const CaseAnalysis& c, const Summary& seconds) {
  FigureSummary f;
  f.n = seconds.n;
  if (seconds.n == 0) return f;
  f.mean = figure_of(c, seconds.mean);
  f.median = figure_of(c, seconds.median);
  f.best = figure_of(c, seconds.min);
  f.worst = figure_of(c, seconds.max);
  const double a = figure_of(c, seconds.ci95_low), b = figure_of(c, seconds.ci95_high);
  // A rate falls as the time rises: the interval's ends, and min and max, swap.
  f.min = c.figure_is_rate ? f.worst : f.best;
  f.max = c.figure_is_rate ? f.best : f.worst;
  f.ci95_low = c.figure_is_rate ? b : a;
  f.ci95_high = c.figure_is_rate ? a : b;
  return f;
}

const char* better_words(const CaseAnalysis& c) { return c.figure_is_rate ? "higher is better" : "lower is better"; }

std::string work_text(const CaseAnalysis& c) {
  if (!c.figure_is_rate || !(c.work > 0) || !std::isfinite(c.work)) return "";
  std::string unit = c.figure_unit;
  if (unit.size() > 2 && unit.ends_with("/s")) unit.resize(unit.size() - 2);
  const double v = c.work / c.figure_scale;
  return fmt::format("{} {}", format_figure(v, figure_decimals(v)), unit);
}

int figure_decimals(double typical) {
  if (!std::isfinite(typical) || typical == 0) return 1;
  const int digits = static_cast<int>(std::floor(std::log10(std::fabs(typical))));
  return std::clamp(3 - digits, 1, 9);
}

std::string format_figure(double v, int decimals) {
  if (!std::isfinite(v)) return "n/a";
  const std::string out = fmt::format("{:.{}f}", v, decimals);
  // Never "-0.0" for a figure that rounds to zero.
  return out.find_first_not_of("-0.") == std::string::npos && out.front() == '-' ? out.substr(1) : out;
}

std::string format_case_mean_ci(const CaseAnalysis& c, const Summary& s) {
  if (!c.micro) return format_mean_ci(s);
  const FigureSummary f = figure_summary(c, s);
  if (f.n == 0 || !std::isfinite(f.mean)) return "n/a";
  const int d = figure_decimals(f.mean);
  const std::string mean = fmt::format("{} {}", format_figure(f.mean, d), c.figure_unit);
  if (s.n < 2 || (!std::isfinite(f.ci95_low) && !std::isfinite(f.ci95_high))) return mean + " (n/a)";
  return fmt::format("{} ({} .. {})", mean, format_figure(f.ci95_low, d), format_figure(f.ci95_high, d));
}

std::string run_value_words(const CaseAnalysis& c) {
  if (c.startup) return fmt::format("{} of its measured starts", c.run_statistic);
  if (!c.micro) return fmt::format("{} of its measured batches", c.run_statistic);
  const std::size_t per_run = samples_per_run(c);
  const std::string its = per_run ? fmt::format("its {} operation{}", per_run, per_run == 1 ? "" : "s")
                                  : std::string("its operations");
  if (c.run_statistic == "min") return fmt::format("best of {}, as STREAM reports", its);
  return fmt::format("{} of {}", c.run_statistic, its);
}

std::size_t samples_per_run(const CaseAnalysis& c) {
  std::size_t per_run = 0;
  for (const auto& e : c.envs) {
    if (e.run_values.empty()) continue;
    if (e.batch_seconds.size() % e.run_values.size()) return 0;
    const std::size_t n = e.batch_seconds.size() / e.run_values.size();
    if (per_run && n != per_run) return 0;
    per_run = n;
  }
  return per_run;
}

std::string ratio_label(const CaseAnalysis& c) { return c.micro ? "time-per-operation ratio" : "ratio"; }

std::vector<std::pair<std::string, std::string>> run_facts(const Analysis& analysis, const nlohmann::json& manifest) {
  return {{"Run", text_of(manifest, "run_id")},
          {"Status", text_of(manifest, "status")},
          {"Started", text_of(manifest, "started_at")},
          {"Ended", text_of(manifest, "ended_at")},
          {"Command", command_line(manifest)},
          {"Baseline", analysis.baseline.empty() ? "?" : analysis.baseline},
          {"Methods", kReportMethods}};
}

std::string status_warning(const nlohmann::json& manifest) {
  const std::string status = text_of(manifest, "status");
  if (status == "interrupted")
    return "INTERRUPTED: the run was stopped before it finished. The figures use only the launches that "
           "completed; cases and environments may have fewer runs than planned, or none.";
  if (status == "running")
    return "The manifest still says \"running\": the run is going on, or was killed before it could record its "
           "end. The figures use only the launches that completed.";
  if (status == "not comparable")
    return "NOT COMPARABLE: the environments would not run like for like, so nothing was measured (the "
           "differences the preflight found are listed below).";
  if (status == "?") return "The manifest records no status.";
  return "";
}

std::vector<std::string> preflight_lines(const nlohmann::json& manifest) {
  std::vector<std::string> lines;
  if (!manifest.is_object() || !manifest.contains("preflight") || !manifest.at("preflight").is_object()) return lines;
  const std::string baseline = manifest.value(nlohmann::json::json_pointer("/plan/baseline"), std::string("baseline"));
  auto str = [](const nlohmann::json& m, const char* key) {
    if (!m.contains(key)) return std::string("?");
    const auto& v = m.at(key);
    return v.is_string() ? v.get<std::string>() : v.dump();
  };
  for (const auto& [env, list] : manifest.at("preflight").items()) {
    if (!list.is_array()) continue;
    for (const auto& m : list) {
      if (!m.is_object()) continue;
      const bool requested = m.value("requested", false), blocking = m.value("blocking", true);
      const char* how = requested  ? "asked for"
                        : blocking ? "not asked for"
                                   : "not asked for, cannot change the speed by itself";
      lines.push_back(fmt::format("{}: {}: {} has {}, {} has {} ({})", env, str(m, "field"), baseline,
                                  str(m, "baseline"), env, str(m, "value"), how));
    }
  }
  return lines;
}

TextTable summary_table(const Analysis& analysis, CaseKind kind) {
  // One row per case and environment, whatever the number of environments:
  // a column per environment (the paper's layout, kept in the console) grew
  // past a page's width at four runtimes.
  TextTable t;
  t.header = {"case", "environment",
              kind == CaseKind::micro     ? std::string("mean (95% CI)")
              : kind == CaseKind::startup ? std::string("mean s/start (95% CI)")
                                          : std::string("mean s/batch (95% CI)"),
              fmt::format("{} vs {} (95% CI)", kind == CaseKind::micro ? "time per operation" : "overhead",
                          analysis.baseline),
              "verdict"};
  t.numeric = {false, false, true, true, false};
  for (const auto& c : analysis.cases) {
    if (kind_of(c) != kind) continue;
    const EnvironmentStats* base = find_environment(c, analysis.baseline);
    const bool base_has_data = base && !base->run_values.empty();
    bool first = true;
    for (const auto& e : c.envs) {
      std::vector<std::string> row = {first ? c.case_id : "", e.env, format_case_mean_ci(c, e.runs)};
      first = false;
      if (e.env == analysis.baseline) {
        row.insert(row.end(), {"baseline", ""});
      } else if (const Overhead* o = find_overhead(c, e.env)) {
        row.push_back(c.startup && o->compared ? added_time_words(*o, "start") + ", " + overhead_cell(*o)
                                               : overhead_cell(*o));
        row.push_back(verdict_cell(*o));
      } else {
        row.push_back("n/a");
        row.push_back(!base_has_data ? fmt::format("no data for {}", analysis.baseline)
                      : e.failed_launches
                          ? fmt::format("no data: {}", counted(static_cast<std::size_t>(e.failed_launches),
                                                               "failed launch", "failed launches"))
                          : "no data");
      }
      t.rows.push_back(std::move(row));
    }
  }
  return t;
}

// "none", or the flagged run values by round order: "0.31234 0.29911" (a
// micro-benchmark's as its figures: "131.2 158.0").
static std::string outliers(const CaseAnalysis& c, const EnvironmentStats& e) {
  if (!e.outliers_assessed) return fmt::format("not assessed (fewer than {} runs)", kMinOutlierSample);
  if (e.outlier_runs.empty()) return "none";
  const int d = figure_decimals(figure_of(c, e.runs.mean));
  std::vector<std::string> values;
  for (auto i : e.outlier_runs)
    if (i < e.run_values.size())
      values.push_back(c.micro ? format_figure(figure_of(c, e.run_values[i]), d) : format_seconds(e.run_values[i]));
  return fmt::format("{}", fmt::join(values, " "));
}

static std::string cv_text(const Summary& s) {
  return s.n > 0 && std::isfinite(s.cv) ? fmt::format("{:.1f}%", 100 * s.cv) : "n/a";
}

// The file system is worth a column for the I/O benchmarks only.
static bool shows_file_system(const CaseAnalysis& c) {
  return c.workload.starts_with("io-") ||
         std::any_of(c.envs.begin(), c.envs.end(), [](const auto& e) { return !e.fs_type.empty(); });
}

static TextTable micro_detail_table(const CaseAnalysis& c) {
  TextTable t;
  const std::string& u = c.figure_unit;
  const bool latency = !c.figure_is_rate, io = shows_file_system(c);
  const bool peak = std::any_of(c.envs.begin(), c.envs.end(), [](const auto& e) { return e.estimated_peak_gflops; });
  t.header = {"env", "runs", "operations per run", "mean " + u, "median " + u, "best " + u, "worst " + u, "CV",
              "95% CI of mean"};
  t.numeric = {false, true, true, true, true, true, true, true, true};
  if (latency) {
    // The run values are medians: the tail shows only over all operations.
    t.header.insert(t.header.end(), {"mean " + u + ", all operations", "p99 " + u + ", all operations"});
    t.numeric.insert(t.numeric.end(), {true, true});
  }
  t.header.insert(t.header.end(),
                  {"warm-up operations", "warm-up mean " + u, "failed launches", "outlier runs (kept)"});
  t.numeric.insert(t.numeric.end(), {true, true, true, false});
  if (io) {
    t.header.push_back("file system");
    t.numeric.push_back(false);
  }
  if (peak) {
    t.header.push_back("mean of estimated peak");
    t.numeric.push_back(true);
  }
  t.header.push_back("data");
  t.numeric.push_back(false);
  for (const auto& e : c.envs) {
    const FigureSummary f = figure_summary(c, e.runs);
    const int d = figure_decimals(f.mean);
    auto fig = [&](double v) { return f.n ? format_figure(v, d) : std::string("n/a"); };
    const std::string per_run =
        e.run_values.empty() ? "n/a"
                             : fmt::format("{:g}", static_cast<double>(e.batch_seconds.size()) /
                                                       static_cast<double>(e.run_values.size()));
    const std::string ci = f.n > 1 && (std::isfinite(f.ci95_low) || std::isfinite(f.ci95_high))
                               ? fmt::format("{} .. {}", fig(f.ci95_low), fig(f.ci95_high))
                               : "n/a";
    std::vector<std::string> row = {e.env,        std::to_string(f.n), per_run,        fig(f.mean), fig(f.median),
                                    fig(f.best), fig(f.worst),        cv_text(e.runs), ci};
    if (latency) {
      const bool any = !e.batch_seconds.empty();
      row.push_back(any ? format_figure(figure_of(c, e.batches.mean), d) : "n/a");
      row.push_back(any ? format_figure(figure_of(c, e.p99_seconds), d) : "n/a");
    }
    row.insert(row.end(), {std::to_string(e.warmup_seconds.size()),
                           e.warmup.n ? format_figure(figure_of(c, e.warmup.mean), d) : "n/a",
                           std::to_string(e.failed_launches), outliers(c, e)});
    if (io) row.push_back(e.fs_type.empty() ? "n/a" : e.fs_type);
    if (peak) {
      const double of_peak = fraction_of_peak(c, e);
      row.push_back(std::isfinite(of_peak)
                        ? fmt::format("{:.1f}% of {:.0f}", 100 * of_peak, *e.estimated_peak_gflops)
                        : "n/a");
    }
    row.push_back(e.fingerprint ? (e.in_container ? "in container" : "not in container") : "n/a");
    t.rows.push_back(std::move(row));
  }
  return t;
}

TextTable detail_table(const CaseAnalysis& c) {
  if (c.micro) return micro_detail_table(c);
  TextTable t;
  const std::string batches = c.startup ? "starts" : "batches";
  t.header = {"env",
              "runs",
              batches,
              "mean",
              "median",
              "stddev",
              "min",
              "max",
              "CV",
              "95% CI of mean",
              "warm-up " + batches,
              "warm-up mean",
              "failed launches",
              "outlier runs (kept)",
              "data"};
  t.numeric = {false, true, true, true, true, true, true, true, true, true, true, true, true, false, false};
  for (const auto& e : c.envs) {
    const Summary& s = e.runs;
    std::string data = e.dataset;
    if (e.fingerprint) {
      if (!data.empty()) data += ", ";
      data += e.in_container ? "in container" : "not in container";
    }
    const std::string ci = std::isfinite(s.ci95_low) && std::isfinite(s.ci95_high)
                               ? fmt::format("{} .. {}", format_seconds(s.ci95_low), format_seconds(s.ci95_high))
                               : "n/a";
    const std::string cv = cv_text(s);
    t.rows.push_back({e.env, std::to_string(s.n), std::to_string(e.batch_seconds.size()),
                      s.n ? format_seconds(s.mean) : "n/a", s.n ? format_seconds(s.median) : "n/a",
                      s.n ? format_seconds(s.stddev) : "n/a", s.n ? format_seconds(s.min) : "n/a",
                      s.n ? format_seconds(s.max) : "n/a", cv, ci, std::to_string(e.warmup_seconds.size()),
                      e.warmup.n ? format_seconds(e.warmup.mean) : "n/a", std::to_string(e.failed_launches),
                      outliers(c, e), data.empty() ? "n/a" : data});
  }
  return t;
}

std::vector<ComparisonLines> comparison_lines(const CaseAnalysis& c, const std::string& baseline) {
  std::vector<ComparisonLines> out;
  for (const auto& o : c.overheads) {
    ComparisonLines l;
    l.compared = o.compared;
    l.mismatch_allowed = o.mismatch_allowed;
    if (!o.compared) {
      l.headline = fmt::format("{} vs {}: NOT COMPARED, the environments did not run like for like:", o.env, baseline);
    } else {
      const std::string ratio = std::isfinite(o.estimate.ratio) ? fmt::format("{:.4f}", o.estimate.ratio) : "n/a";
      l.headline =
          fmt::format("{} vs {}: {}{} {}, {}  [Fieller CI, Welch t-test; Mann-Whitney p = {}]{}", o.env, baseline,
                      c.startup ? added_time_words(o, "start") + ", " : "", ratio_label(c), ratio, o.verdict_text,
                      std::isfinite(o.rank_test.p_value) ? fmt::format("{:.2g}", o.rank_test.p_value) : "n/a",
                      o.mismatch_allowed ? "  MISMATCH ALLOWED: not like for like (--allow-mismatch)" : "");
    }
    // The console's wording, one line per mismatch.
    std::istringstream lines(describe_mismatches(o.mismatches, baseline, o.env));
    for (std::string line; std::getline(lines, line);) {
      const auto start = line.find_first_not_of(' ');
      if (start != std::string::npos) l.details.push_back(line.substr(start));
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<std::string> failure_lines(const CaseAnalysis& c) {
  std::vector<std::string> out;
  for (const auto& e : c.envs)
    for (const auto& f : e.failures) out.push_back(fmt::format("{} failed, {}", e.env, f));
  return out;
}

std::string case_caption(const CaseAnalysis& c) {
  if (!c.micro) return fmt::format("{}; statistics over runs, each run the {}", c.unit, run_value_words(c));
  const std::string work = work_text(c);
  return fmt::format(
      "{}, {}{}; statistics over runs, each run the {}; intervals and overheads are taken over seconds per "
      "operation",
      c.figure_unit, better_words(c), work.empty() ? "" : fmt::format("; one operation {}", work),
      run_value_words(c));
}

TextTable backend_table(const Analysis& analysis) {
  TextTable t;
  const auto groups = backend_groups(analysis);
  if (groups.empty()) return t;
  t.header = {"network", "back end", fmt::format("s/batch ({})", analysis.baseline), "vs fastest"};
  std::vector<std::string> envs;
  for (const auto& g : groups)
    for (const auto& r : g.rows)
      for (const auto& o : r.analysis->overheads)
        if (std::find(envs.begin(), envs.end(), o.env) == envs.end()) envs.push_back(o.env);
  for (const auto& e : envs) t.header.push_back(fmt::format("{} vs {}", e, analysis.baseline));
  t.numeric.assign(t.header.size(), true);
  t.numeric[0] = t.numeric[1] = false;
  for (const auto& g : groups)
    for (const auto& r : g.rows) {
      std::vector<std::string> row = {g.network, r.analysis->spec.backend, format_seconds(r.baseline_seconds),
                                      r.vs_fastest > 0 ? fmt::format("{:.2f}x", r.vs_fastest) : "n/a"};
      for (const auto& e : envs) {
        std::string cell = "n/a";
        for (const auto& o : r.analysis->overheads)
          if (o.env == e) cell = overhead_cell(o);
        row.push_back(cell);
      }
      t.rows.push_back(std::move(row));
    }
  return t;
}

std::string render_markdown(const Analysis& analysis, const nlohmann::json& manifest) {
  std::string out;
  const auto facts = run_facts(analysis, manifest);
  out += fmt::format("# dlcbench report: run {}\n\n", md_escape(facts[0].second));
  const std::string warning = status_warning(manifest);
  if (!warning.empty()) out += fmt::format("> **{}**\n\n", md_escape(warning));
  for (const auto& [key, value] : facts) {
    if (key == "Command")
      out += fmt::format("- **{}:** {}\n", key, md_code(value));
    else
      out += fmt::format("- **{}:** {}\n", key, md_escape(value));
  }
  if (analysis.allow_mismatch)
    out += "- **Allow mismatch:** yes (--allow-mismatch): comparisons that are not like for like are marked\n";
  out += fmt::format("\n{}\n", kRunMethod);

  if (const auto preflight = preflight_lines(manifest); !preflight.empty()) {
    out += "\n## Preflight differences\n\n";
    for (const auto& l : preflight) out += fmt::format("- {}\n", md_escape(l));
  }

  // Training always has its heading, so a run without it says so; the
  // other sections appear when they have cases.
  for (CaseKind kind : kCaseKinds) {
    const bool any = has_cases(analysis, kind);
    if (!any && kind != CaseKind::training) continue;
    out += fmt::format("\n## Summary: {}\n\n", kind_name(kind));
    if (!any) {
      out += "No training cases in this run.\n";
      continue;
    }
    out += fmt::format("{}\n\n", md_escape(summary_caption(kind)));
    md_table(out, summary_table(analysis, kind));
  }

  if (const TextTable t = backend_table(analysis); !t.rows.empty()) {
    out += fmt::format("\n## Back ends side by side\n\n{}\n\n", kBackendTableCaption);
    md_table(out, t);
  }

  if (!analysis.cases.empty()) out += "\n## Details\n";
  for (CaseKind kind : kCaseKinds) {
    for (const auto& c : analysis.cases) {
      if (kind_of(c) != kind) continue;
      out += fmt::format("\n### {}\n\n{}\n\n", md_escape(c.case_id), md_escape(case_caption(c)));
      md_table(out, detail_table(c));
      const auto comparisons = comparison_lines(c, analysis.baseline);
      const auto failures = failure_lines(c);
      if (!comparisons.empty() || !failures.empty()) out += "\n";
      for (const auto& l : comparisons) {
        out += fmt::format("- {}\n", md_escape(l.headline));
        for (const auto& d : l.details) out += fmt::format("  - {}\n", md_escape(d));
      }
      for (const auto& f : failures) out += fmt::format("- {}\n", md_escape(f));
    }
  }

  if (!analysis.notes.empty()) {
    out += "\n## Notes\n\n";
    for (const auto& n : analysis.notes) out += fmt::format("- {}\n", md_escape(n));
  }
  return out;
}

}  // namespace dlcbench
