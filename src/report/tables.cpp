// The tables of report_model.h: every column of every report is added here.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/words.h"
#include "report/backend_comparison.h"
#include "report/figures.h"
#include "report/report_model.h"

namespace dlcbench {

Cell phrases_cell(const std::vector<Phrase>& phrases) {
  Cell cell;
  for (const auto& p : phrases) {
    if (!cell.text.empty()) {
      cell.text += p.separator;
      if (!p.separator.empty() && p.separator.back() == ' ') cell.breaks.push_back(cell.text.size() - 1);
    }
    cell.text += p.text;
  }
  return cell;
}

namespace {

// The verdict's figure and interval, then the mean's: "+3.1% (95% CI +1.2%
// .. +5.0%); mean +3.4% (95% CI +0.9% .. +6.0%)", or "not compared".
// Both as changes of the case's own figure (a rate's: fewer per second is
// -), the first the headline every format shows (analysis/overhead.h).
std::vector<Phrase> overhead_phrases(const Overhead& o) {
  if (!o.compared) return {{"", "not compared"}};
  // Where too few rounds bound the robust interval, the headline is the
  // means': the first figure is then the mean's, beside "no 95% CI".
  const FigureTerms& t = o.headline.terms;
  return {{"", fmt::format("{} ({})", format_change(o.headline.change()), robust_interval_words(o.robust, t))},
          {"; ", fmt::format("mean {} ({})", format_change(figure_change(o.estimate.ratio, t)),
                             ratio_interval_words(o.estimate, t))}};
}

Cell overhead_cell(const Overhead& o) { return phrases_cell(overhead_phrases(o)); }

Cell verdict_cell(const Overhead& o) {
  if (!o.compared) return {"NOT COMPARED: not like for like", CellStyle::not_compared};
  const std::string v = short_verdict_words(o, ComparisonWording::overhead);
  if (o.mismatch_allowed) return {"MISMATCH ALLOWED: " + v, CellStyle::mismatch_allowed};
  return v;
}

// "+3.1%*" for the paper-style tables: the change, "*" where significant;
// "+283.1 ms*" where the headline is the time added.
std::string percent_mark(const Overhead& o) {
  const std::string change = o.headline.form == Headline::Form::time_added
                                 ? o.headline.terms.added(o.added.difference)
                                 : format_change(o.headline.change());
  return fmt::format("{}{}", change, is_significant(o.verdict) ? "*" : "");
}

// Environments of the cases of one kind, in the plan's order.
std::vector<std::string> environments_of(const Analysis& a, CaseKind kind) {
  std::vector<std::string> envs;
  for (const auto& c : a.cases) {
    if (kind_of(c) != kind) continue;
    for (const auto& e : c.envs)
      if (std::find(envs.begin(), envs.end(), e.env) == envs.end()) envs.push_back(e.env);
  }
  return envs;
}

// The summary row's last two cells: the overhead and the verdict (the
// baseline is named as such; an environment without runs says why).
std::vector<Cell> comparison_cells(const Analysis& analysis, const CaseAnalysis& c, const EnvironmentStats& e) {
  if (e.env == analysis.baseline) return {"baseline", ""};
  if (const Overhead* o = c.overhead_of(e.env)) {
    // A near-zero baseline (start-up) is said in time added alone: its share is noise.
    if (o->headline.form == Headline::Form::time_added)
      return {phrases_cell({{"", added_time_words(*o)}}), verdict_cell(*o)};
    return {overhead_cell(*o), verdict_cell(*o)};
  }
  const EnvironmentStats* base = find_environment(c, analysis.baseline);
  if (!base || base->run_values.empty()) return {"n/a", fmt::format("no data for {}", analysis.baseline)};
  if (e.failed_launches)
    return {"n/a", fmt::format("no data: {}", counted(static_cast<std::size_t>(e.failed_launches), "failed launch",
                                                       "failed launches"))};
  return {"n/a", "no data"};
}

// "none", "not assessed (fewer than 5 runs)", or the flagged run values by
// round order: "0.31234 0.29911" (a micro-benchmark's as its figures).
std::string outliers(const CaseAnalysis& c, const EnvironmentStats& e) {
  if (!e.outliers_assessed) return fmt::format("not assessed (fewer than {} runs)", kMinOutlierSample);
  if (e.outlier_runs.empty()) return "none";
  const int d = figure_decimals(figure_of(c, e.runs.mean));
  std::vector<std::string> values;
  for (auto i : e.outlier_runs)
    if (i < e.run_values.size()) values.push_back(format_case_value(c, e.run_values[i], d));
  return fmt::format("{}", fmt::join(values, " "));
}

std::string container_words(const EnvironmentStats& e) { return e.in_container ? "in container" : "not in container"; }

// The file system is worth a column for the I/O benchmarks only.
bool shows_file_system(const CaseAnalysis& c) {
  return c.workload.starts_with("io-") ||
         std::any_of(c.envs.begin(), c.envs.end(), [](const auto& e) { return !e.fs_type.empty(); });
}

// Appends a column to a table being built.
void add_column(Table& t, std::string header, bool numeric) {
  t.header.push_back(std::move(header));
  t.numeric.push_back(numeric);
}

// The loader's: how much of the time the training step waited for its
// batches, the figure that says whether the workers keep up.
bool shows_data_wait(const CaseAnalysis& c) {
  return std::any_of(c.envs.begin(), c.envs.end(), [](const auto& e) { return e.data_wait_share.has_value(); });
}

Table micro_detail_columns(const CaseAnalysis& c) {
  Table t;
  const std::string& u = c.figure_unit;
  t.header = {"env", "runs", "operations per run", "mean " + u, "median " + u, "best " + u, "worst " + u, "CV",
              "95% CI of mean"};
  t.numeric = {false, true, true, true, true, true, true, true, true};
  if (!c.figure_is_rate) {
    // The run values are medians: the tail shows only over all operations.
    add_column(t, "mean " + u + ", all operations", true);
    add_column(t, "p99 " + u + ", all operations", true);
  }
  add_column(t, "warm-up operations", true);
  add_column(t, "warm-up mean " + u, true);
  add_column(t, "failed launches", true);
  add_column(t, "outlier runs (kept)", false);
  if (shows_file_system(c)) add_column(t, "file system", false);
  if (std::any_of(c.envs.begin(), c.envs.end(), [](const auto& e) { return e.estimated_limit; }))
    add_column(t, "mean of estimated limit", true);
  if (shows_data_wait(c)) add_column(t, "waiting for data", true);
  add_column(t, "data", false);
  return t;
}

std::vector<Cell> micro_detail_row(const CaseAnalysis& c, const EnvironmentStats& e) {
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
  std::vector<Cell> row = {e.env,        std::to_string(f.n), per_run,         fig(f.mean), fig(f.median),
                           fig(f.best), fig(f.worst),        format_cv(e.runs), ci};
  if (!c.figure_is_rate) {
    const bool any = !e.batch_seconds.empty();
    row.emplace_back(any ? format_figure(figure_of(c, e.batches.mean), d) : "n/a");
    row.emplace_back(any ? format_figure(figure_of(c, e.p99_seconds), d) : "n/a");
  }
  row.insert(row.end(), {std::to_string(e.warmup_seconds.size()),
                         e.warmup.n ? format_figure(figure_of(c, e.warmup.mean), d) : "n/a",
                         std::to_string(e.failed_launches), outliers(c, e)});
  if (shows_file_system(c)) row.emplace_back(e.fs_type.empty() ? "n/a" : e.fs_type);
  if (std::any_of(c.envs.begin(), c.envs.end(), [](const auto& x) { return x.estimated_limit; })) {
    const double of_limit = fraction_of_limit(c, e);
    row.emplace_back(std::isfinite(of_limit) ? fmt::format("{:.1f}% of {:.0f}", 100 * of_limit, *e.estimated_limit)
                                             : "n/a");
  }
  if (shows_data_wait(c))
    row.emplace_back(e.data_wait_share ? fmt::format("{:.1f}% of the time", 100 * *e.data_wait_share) : "n/a");
  row.emplace_back(e.fingerprint ? container_words(e) : "n/a");
  return row;
}

// Training and start-up: the data set and where the worker ran.
std::string data_words(const EnvironmentStats& e) {
  std::string data = e.dataset;
  if (e.fingerprint) {
    if (!data.empty()) data += ", ";
    data += container_words(e);
  }
  return data.empty() ? "n/a" : data;
}

std::string seconds_ci(const Summary& s) {
  return std::isfinite(s.ci95_low) && std::isfinite(s.ci95_high)
             ? fmt::format("{} .. {}", format_seconds(s.ci95_low), format_seconds(s.ci95_high))
             : "n/a";
}

// The console's last column: the data, and what a reader should know of the runs.
std::string console_notes(const EnvironmentStats& e) {
  std::vector<std::string> notes;
  if (!e.dataset.empty()) notes.push_back(e.dataset);
  if (e.fingerprint) notes.push_back(container_words(e));
  if (e.failed_launches)
    notes.push_back(counted(static_cast<std::size_t>(e.failed_launches), "failed launch", "failed launches"));
  if (e.runs.n > 1 && !e.outliers_assessed)
    notes.push_back(fmt::format("outliers not assessed (fewer than {} runs)", kMinOutlierSample));
  if (!e.outlier_runs.empty()) {
    std::vector<std::string> values;
    for (auto i : e.outlier_runs) values.push_back(fmt::format("{:.5f}", e.run_values[i]));
    notes.push_back(fmt::format("outlier runs {} (kept)", fmt::join(values, " ")));
  }
  return fmt::format("{}", fmt::join(notes, ", "));
}

// A user's command with --metric: its start-up (to the end of its last
// warm-up iteration) in a column before the last, as "mean (95% CI)".
void add_startup_column(Table& t, const CaseAnalysis& c) {
  if (!c.command || std::none_of(c.envs.begin(), c.envs.end(), [](const auto& e) { return e.startup.n > 0; }))
    return;
  const auto at = t.header.size() - 1;
  t.header.insert(t.header.begin() + static_cast<std::ptrdiff_t>(at), "start-up s (95% CI)");
  if (!t.numeric.empty()) t.numeric.insert(t.numeric.begin() + static_cast<std::ptrdiff_t>(at), true);
  if (!t.min_width.empty()) t.min_width.insert(t.min_width.begin() + static_cast<std::ptrdiff_t>(at), 0);
  if (!t.gap.empty()) t.gap.insert(t.gap.begin() + static_cast<std::ptrdiff_t>(at), 2);
  for (std::size_t i = 0; i < t.rows.size() && i < c.envs.size(); ++i) {
    const Summary& s = c.envs[i].startup;
    t.rows[i].insert(t.rows[i].begin() + static_cast<std::ptrdiff_t>(at),
                     s.n ? Cell(fmt::format("{} ({})", format_seconds(s.mean), seconds_ci(s))) : Cell("n/a"));
  }
}

}  // namespace

Table summary_table(const Analysis& analysis, CaseKind kind) {
  // One row per case and environment, whatever the number of environments:
  // a column per environment (the paper's layout, kept in the console) grew
  // past a page's width at four runtimes.
  Table t;
  t.header = {"case", "environment",
              kind == CaseKind::micro || kind == CaseKind::command ? std::string("mean, in the case's unit (95% CI)")
              : kind == CaseKind::startup                          ? std::string("mean s/start (95% CI)")
                                                                   : std::string("mean s/batch (95% CI)"),
              fmt::format("change vs {} (95% CI)", analysis.baseline), "verdict"};
  t.numeric = {false, false, true, true, false};
  for (const auto& c : analysis.cases) {
    if (kind_of(c) != kind) continue;
    bool first = true;
    for (const auto& e : c.envs) {
      // A command's unit is its own (a rate's cell names it already).
      const std::string label = c.command && !c.micro ? fmt::format("{} ({})", c.case_id, c.unit) : c.case_id;
      std::vector<Cell> row = {first ? label : "", e.env, format_case_mean_ci(c, e.runs)};
      first = false;
      for (auto& cell : comparison_cells(analysis, c, e)) row.push_back(std::move(cell));
      t.rows.push_back(std::move(row));
    }
  }
  return t;
}

Table console_summary_table(const Analysis& analysis, CaseKind kind) {
  Table t;
  const auto envs = environments_of(analysis, kind);
  t.header = {"case"};
  t.header.insert(t.header.end(), envs.begin(), envs.end());
  t.numeric.assign(t.header.size(), false);
  t.min_width.assign(t.header.size(), 0);
  t.min_width[0] = 4;
  t.pad_last = true;
  for (const auto& c : analysis.cases) {
    if (kind_of(c) != kind) continue;
    std::vector<Cell> row{c.micro || c.command ? fmt::format("{} ({})", c.case_id, figure_terms(c).unit) : c.case_id};
    for (const auto& name : envs) {
      std::string cell = "n/a";
      if (const EnvironmentStats* e = find_environment(c, name); e && e->runs.n) {
        const FigureSummary f = figure_summary(c, e->runs);
        cell = c.micro ? format_figure(f.mean, figure_decimals(f.mean)) : format_seconds(e->runs.mean);
      }
      if (const Overhead* o = c.overhead_of(name)) {
        // Appended piece by piece: GCC 12's -Wrestrict misreads `" " + std::string&&` (its bug 105329).
        cell += ' ';
        cell += !o->compared ? std::string("not compared") : percent_mark(*o);
      }
      row.emplace_back(std::move(cell));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table detail_table(const CaseAnalysis& c) {
  if (c.micro) {
    Table t = micro_detail_columns(c);
    for (const auto& e : c.envs) t.rows.push_back(micro_detail_row(c, e));
    add_startup_column(t, c);
    return t;
  }
  Table t;
  const std::string batches = c.startup ? "starts" : "batches";
  t.header = {"env", "runs", batches, "mean", "median", "stddev", "min", "max", "CV", "95% CI of mean",
              "warm-up " + batches, "warm-up mean", "failed launches", "outlier runs (kept)", "data"};
  t.numeric = {false, true, true, true, true, true, true, true, true, true, true, true, true, false, false};
  for (const auto& e : c.envs) {
    const Summary& s = e.runs;
    auto seconds = [&](double v) { return s.n ? format_seconds(v) : std::string("n/a"); };
    t.rows.push_back({e.env, std::to_string(s.n), std::to_string(e.batch_seconds.size()), seconds(s.mean),
                      seconds(s.median), seconds(s.stddev), seconds(s.min), seconds(s.max), format_cv(s),
                      seconds_ci(s), std::to_string(e.warmup_seconds.size()),
                      e.warmup.n ? format_seconds(e.warmup.mean) : "n/a", std::to_string(e.failed_launches),
                      outliers(c, e), data_words(e)});
  }
  add_startup_column(t, c);
  return t;
}

Table console_case_table(const CaseAnalysis& c) {
  if (c.micro) return detail_table(c);
  Table t;
  t.header = {"env", "runs", c.startup ? "starts" : "batches", "mean", "median", "stddev", "95% CI of mean",
              "CV",  "warm-up", "data"};
  t.numeric = {false, true, true, true, true, true, true, true, true, false};
  t.min_width = {10, 5, 8, 10, 10, 10, 22, 7, 10, 0};
  t.gap = {2, 1, 1, 1, 1, 1, 1, 1, 1, 2};
  for (const auto& e : c.envs) {
    const Summary& s = e.runs;
    t.rows.push_back({e.env, std::to_string(s.n), std::to_string(e.batch_seconds.size()), format_seconds(s.mean),
                      format_seconds(s.median), format_seconds(s.stddev),
                      std::isfinite(s.ci95_low) ? seconds_ci(s) : "n/a", format_cv(s),
                      e.warmup.n ? format_seconds(e.warmup.mean) : "n/a", console_notes(e)});
  }
  add_startup_column(t, c);
  return t;
}

Table backend_table(const Analysis& analysis) {
  Table t;
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
      std::vector<Cell> row = {g.network, r.analysis->spec.backend, format_seconds(r.baseline_seconds),
                               r.vs_fastest > 0 ? fmt::format("{:.2f}x", r.vs_fastest) : "n/a"};
      for (const auto& e : envs) {
        const Overhead* o = r.analysis->overhead_of(e);
        row.push_back(o ? overhead_cell(*o) : Cell("n/a"));
      }
      t.rows.push_back(std::move(row));
    }
  return t;
}

Table console_backend_table(const Analysis& analysis) {
  Table t;
  const auto groups = backend_groups(analysis);
  if (groups.empty()) return t;
  std::vector<std::string> envs;
  for (const auto& g : groups)
    for (const auto& r : g.rows)
      for (const auto& o : r.analysis->overheads)
        if (std::find(envs.begin(), envs.end(), o.env) == envs.end()) envs.push_back(o.env);
  t.header = {"network", "back end", fmt::format("s/batch on {}", analysis.baseline), "vs fastest"};
  t.numeric = {false, false, true, true};
  for (const auto& e : envs) add_column(t, e + " vs " + analysis.baseline, false);
  for (const auto& g : groups)
    for (std::size_t i = 0; i < g.rows.size(); ++i) {
      const auto& r = g.rows[i];
      std::vector<Cell> row = {i == 0 ? g.network : "", r.analysis->spec.backend,
                               r.baseline_seconds > 0 ? format_seconds(r.baseline_seconds) : "n/a",
                               r.vs_fastest > 0 ? fmt::format("{:.2f}x", r.vs_fastest) : "n/a"};
      for (const auto& e : envs) {
        const Overhead* o = r.analysis->overhead_of(e);
        row.emplace_back(o && o->compared ? percent_mark(*o) : "n/a");
      }
      t.rows.push_back(std::move(row));
    }
  return t;
}

}  // namespace dlcbench

namespace dlcbench {
namespace {

// "12.3 ms", "4,512", "41%": a counter's value per batch.
std::string counter_value(Counter c, double v) {
  const std::string unit = counter_unit(c);
  if (unit == "ms") return fmt::format("{:.2f} ms", v);
  if (unit == "%") return fmt::format("{:.1f}%", v);
  return std::fabs(v) >= 1e4 ? fmt::format("{:.4g}", v) : fmt::format("{:.1f}", v);
}

// "1.02 (0.95 .. 1.10)": the ratio to the baseline with Fieller's interval.
std::string counter_ratio(const CounterComparison& cc) {
  if (!cc.ratio && cc.baseline_mean == 0 && cc.mean == 0) return "same (0)";
  // Against a baseline of zero no ratio exists: the difference, with Welch's interval.
  if (!cc.ratio && cc.baseline_mean == 0 && std::isfinite(cc.difference.ci95_low))
    return fmt::format("{:+.3g} ({:+.3g} .. {:+.3g}){}", cc.difference.difference, cc.difference.ci95_low,
                       cc.difference.ci95_high, std::string(counter_unit(cc.counter)) == "ms" ? " ms" : "");
  if (!cc.ratio) return "n/a";
  const RatioEstimate& r = *cc.ratio;
  if (r.interval != RatioInterval::bounded) return fmt::format("{:.3g} (CI unbounded)", r.ratio);
  return fmt::format("{:.3g} ({:.3g} .. {:.3g})", r.ratio, r.ci95_low, r.ci95_high);
}

}  // namespace

Table counters_table(const CaseAnalysis& c, const std::string& baseline) {
  Table t;
  if (c.explanations.empty()) return t;
  add_column(t, fmt::format("per {}", c.micro ? "operation" : "batch"), false);
  add_column(t, baseline, true);
  for (const auto& e : c.explanations) {
    add_column(t, e.env, true);
    // Text, not a figure: the interval may wrap under the ratio, so a table
    // of many environments still fits a page.
    add_column(t, fmt::format("{} / {} (95% CI)", e.env, baseline), false);
  }
  for (Counter counter : kCounters) {
    std::vector<Cell> row = {counter_label(counter), ""};
    bool any = false;
    for (const auto& e : c.explanations) {
      const auto it = std::find_if(e.counters.begin(), e.counters.end(),
                                   [&](const CounterComparison& cc) { return cc.counter == counter; });
      if (it == e.counters.end()) {
        row.insert(row.end(), {"", ""});
        continue;
      }
      any = true;
      if (row[1].text.empty() && it->baseline_runs > 0) row[1] = counter_value(counter, it->baseline_mean);
      if (!it->unavailable.empty()) {
        row.insert(row.end(), {it->runs > 0 ? counter_value(counter, it->mean) : "n/a", ""});
        continue;
      }
      row.insert(row.end(), {counter_value(counter, it->mean), counter_ratio(*it)});
    }
    if (!any) continue;
    if (row[1].text.empty()) row[1] = "n/a";
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::vector<std::string> counter_notes(const CaseAnalysis& c) {
  // "docker: page faults (perf), context switches (perf): perf_event_open ...":
  // counters with the same reason are named together.
  std::vector<std::string> notes;
  for (const auto& e : c.explanations) {
    // (environment, why) -> the counters it leaves out
    std::vector<std::pair<std::pair<std::string, std::string>, std::vector<std::string>>> by_reason;
    for (const auto& cc : e.counters) {
      if (cc.unavailable.empty()) continue;
      const std::pair<std::string, std::string> reason{cc.unavailable_in, cc.unavailable};
      auto it = std::find_if(by_reason.begin(), by_reason.end(), [&](const auto& p) { return p.first == reason; });
      if (it == by_reason.end()) by_reason.push_back({reason, {counter_label(cc.counter)}});
      else it->second.push_back(counter_label(cc.counter));
    }
    for (const auto& [reason, counters] : by_reason)
      notes.push_back(fmt::format("n/a in {}: {} ({})", reason.first, reason.second, fmt::join(counters, ", ")));
  }
  std::sort(notes.begin(), notes.end());
  notes.erase(std::unique(notes.begin(), notes.end()), notes.end());
  return notes;
}

}  // namespace dlcbench

namespace dlcbench {
namespace {

std::string ablation_ms(double seconds) {
  return std::isfinite(seconds) ? fmt::format("{:+.3g}", 1000 * seconds) : "n/a";
}

std::string ablation_percent(double share) {
  return std::isfinite(share) ? fmt::format("{:.0f}%", 100 * share) : "n/a";
}

}  // namespace

Table ablation_table(const CaseAnalysis& c) {
  Table t;
  const std::string per = c.startup ? "start" : c.micro ? "operation" : "batch";
  const bool shapley = c.ablation && c.ablation->residual;
  t.header = {"feature", "variant", "change", fmt::format("saved ms/{}", per), "95% CI", "share of overhead",
              "95% CI", "fingerprint"};
  t.numeric = {false, false, false, true, false, true, false, false};
  if (shapley) {
    // A full factorial: each feature's Shapley share beside what it saves alone.
    t.header = {"feature", "variant", "change", fmt::format("saved alone ms/{}", per), "95% CI",
                fmt::format("Shapley ms/{}", per), "Shapley share", "95% CI", "fingerprint"};
    t.numeric = {false, false, false, true, false, true, true, false, false};
  }
  if (!c.ablation) return t;
  auto interval = [](const std::string& low, const std::string& high) { return fmt::format("{} .. {}", low, high); };
  for (const auto& e : c.ablation->effects) {
    std::string fingerprint = e.fields.empty() ? "no field shows it"
                              : !e.measured    ? "n/a"
                              : e.fields_changed ? "changed"
                                                 : "NOT CHANGED";
    std::vector<Cell> row = {ablation_feature_name(e.feature), e.env, e.change};
    if (!e.measured)
      row.insert(row.end(), {"n/a", "not measured"});
    else
      row.insert(row.end(), {ablation_ms(e.saved.difference),
                             interval(ablation_ms(e.saved.ci95_low), ablation_ms(e.saved.ci95_high))});
    if (shapley && e.shapley_seconds)
      row.insert(row.end(), {ablation_ms(e.shapley_seconds->difference), ablation_percent(e.shapley.share),
                             interval(ablation_percent(e.shapley.ci95_low), ablation_percent(e.shapley.ci95_high))});
    else if (shapley)
      row.insert(row.end(), {"n/a", "n/a", ""});
    else if (!e.measured)
      row.insert(row.end(), {"n/a", ""});
    else
      row.insert(row.end(), {ablation_percent(e.share.share),
                             interval(ablation_percent(e.share.ci95_low), ablation_percent(e.share.ci95_high))});
    row.push_back(fingerprint);
    t.rows.push_back(std::move(row));
  }
  if (shapley) {
    const AblationResidual& r = *c.ablation->residual;
    t.rows.push_back({"residual", r.env, fmt::format("every feature changed, against {}", c.ablation->baseline), "",
                      "", ablation_ms(r.seconds.difference), ablation_percent(r.share.share),
                      interval(ablation_percent(r.share.ci95_low), ablation_percent(r.share.ci95_high)), ""});
  } else if (c.ablation->measured) {
    t.rows.push_back({"together", "", "the measured variants' shares summed", "", "",
                      ablation_percent(c.ablation->together.share),
                      interval(ablation_percent(c.ablation->together.ci95_low),
                               ablation_percent(c.ablation->together.ci95_high)),
                      ""});
  }
  return t;
}

Table latency_table(const CaseAnalysis& c, const std::string& baseline) {
  Table t;
  if (!c.serves()) return t;
  t.header = {"quantile", "environment", "path", "requests/s", "ms", "runs' range", "vs " + baseline + " (95% CI)",
              "verdict"};
  t.numeric = {false, false, false, true, true, false, false, false};
  for (std::size_t q = 0; q < std::size(kLatencyQuantiles); ++q)
    for (const auto& e : c.envs) {
      if (e.latency_runs.size() <= q || e.latency_runs[q].empty()) continue;
      const auto& runs = e.latency_runs[q];
      const auto [low, high] = std::minmax_element(runs.begin(), runs.end());
      std::vector<Cell> row = {kLatencyQuantiles[q].name, e.env, e.serve_path,
                               e.achieved_rate() ? fmt::format("{:.1f}", *e.achieved_rate()) : "n/a",
                               fmt::format("{:.3f}", 1e3 * median(runs)),
                               fmt::format("{:.3f} .. {:.3f}", 1e3 * *low, 1e3 * *high)};
      const auto compared = c.latency.find(e.env);
      if (e.env == baseline) {
        row.insert(row.end(), {"baseline", ""});
      } else if (compared == c.latency.end() || compared->second.size() <= q) {
        row.insert(row.end(), {"n/a", ""});
      } else {
        const Overhead& o = compared->second[q].comparison;
        row.push_back(headline_short_words(o));
        row.push_back(verdict_cell(o));
      }
      t.rows.push_back(std::move(row));
    }
  return t;
}

Table call_cost_table(const CaseAnalysis& c, const std::string& baseline) {
  Table t;
  if (c.call_costs.empty()) return t;
  t.header = {"call", baseline + " (ns)"};
  std::vector<const EnvironmentStats*> others;
  for (const auto& e : c.envs)
    if (e.env != baseline && c.call_costs.count(e.env)) {
      others.push_back(&e);
      t.header.push_back(e.env + " (ns, ratio, 95% CI)");
    }
  t.numeric.assign(t.header.size(), true);
  t.numeric[0] = false;
  // The kinds in the order the analysis lists them (the table's own).
  std::vector<std::pair<std::string, double>> kinds;
  for (const auto& [env, list] : c.call_costs)
    for (const auto& k : list)
      if (std::none_of(kinds.begin(), kinds.end(), [&](const auto& seen) { return seen.first == k.kind; }))
        kinds.emplace_back(k.kind, k.baseline_ns);
  for (const auto& [kind, baseline_ns] : kinds) {
    std::vector<Cell> row = {kind, fmt::format("{:.0f}", baseline_ns)};
    for (const EnvironmentStats* e : others) {
      const auto& list = c.call_costs.at(e->env);
      // A copy to capture: Clang before 16 captures no structured binding.
      const std::string wanted = kind;
      const auto cost = std::find_if(list.begin(), list.end(), [&](const auto& k) { return k.kind == wanted; });
      if (cost == list.end()) {
        row.emplace_back("n/a");
        continue;
      }
      const RobustRatio& r = cost->comparison.robust;
      row.emplace_back(r.bounded() ? fmt::format("{:.0f} ({:.2f}x, {:.2f} .. {:.2f})", cost->ns, r.ratio, r.ci95_low,
                                                 r.ci95_high)
                                   : fmt::format("{:.0f} ({:.2f}x)", cost->ns, r.ratio));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace dlcbench
