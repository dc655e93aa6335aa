#include "report/console.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "report/report_model.h"

namespace dlcbench {
namespace {

// A table in aligned columns (figures to the right), each column as wide as
// its widest cell or its least width, after its gap (two spaces by default).
std::string console_table(const Table& t) {
  const std::size_t n = t.header.size();
  std::vector<std::size_t> width(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    width[i] = std::max(t.header[i].size(), i < t.min_width.size() ? t.min_width[i] : 0);
  for (const auto& r : t.rows)
    for (std::size_t i = 0; i < r.size() && i < n; ++i) width[i] = std::max(width[i], r[i].text.size());
  auto line = [&](const auto& cells, auto text_of) {
    std::string out;
    for (std::size_t i = 0; i < cells.size() && i < n; ++i) {
      out.append(i < t.gap.size() ? t.gap[i] : 2, ' ');
      const std::string& text = text_of(cells[i]);
      const bool right = i < t.numeric.size() && t.numeric[i];
      const bool last = i + 1 == cells.size();
      out += right                   ? fmt::format("{:>{}}", text, width[i])
             : last && !t.pad_last ? text
                                     : fmt::format("{:<{}}", text, width[i]);
    }
    return out + "\n";
  };
  std::string out = line(t.header, [](const std::string& s) -> const std::string& { return s; });
  for (const auto& r : t.rows) out += line(r, [](const Cell& c) -> const std::string& { return c.text; });
  return out;
}

// The comparisons against the baseline and the failed launches, under a
// case's table.
std::string console_comparisons(const CaseSection& s) {
  std::string out;
  for (const auto& l : s.comparisons) {
    out += fmt::format("  {}\n", l.headline);
    if (!l.explanation.empty()) out += fmt::format("    {}\n", l.explanation);
    for (const auto& d : l.details) out += fmt::format("  {}\n", d);
  }
  for (const auto& f : s.failures) out += fmt::format("  {}\n", f);
  for (const auto& d : s.disturbances) out += fmt::format("  {}\n", d);
  return out;
}

// The paper's layout, per section: what the cells hold, then the table.
std::string console_summary(const SummarySection& s, const std::string& baseline) {
  if (!s.has_cases) return "";
  const std::string what =
      s.kind == CaseKind::startup   ? fmt::format("s/start (mean of runs), and vs {} in percent", baseline)
      : s.kind == CaseKind::micro   ? fmt::format("micro-benchmarks in their units (mean of runs), and vs {} in percent",
                                                  baseline)
      : s.kind == CaseKind::command ? fmt::format("your commands in their units (mean of runs), and vs {} in percent",
                                                  baseline)
                                    : fmt::format("s/batch (mean of runs), and vs {} in percent", baseline);
  return fmt::format("\nSummary: {}; * = significant (the verdict's 95% CI excludes 1). {}\n", what,
                     kChangeConvention) +
         console_table(s.console);
}

// The counters behind the explanations, with why any is n/a.
std::string console_counters(const CaseSection& s) {
  if (s.counters.rows.empty()) return "";
  std::string out = fmt::format("  counters per {}, mean of runs (ratio to the baseline, 95% CI):\n",
                                s.kind == CaseKind::micro ? "operation" : "batch");
  Table t = s.counters;
  t.gap.assign(t.header.size(), 2);
  t.gap[0] = 4;
  out += console_table(t);
  for (const auto& n : s.counter_notes) out += fmt::format("    {}\n", n);
  return out;
}

// `dlcbench explain`: each feature's share, then the outcome.
std::string console_ablation(const CaseSection& s) {
  if (s.ablation.rows.empty() && s.ablation_outcome.empty()) return "";
  std::string out = "  ablation, each feature changed alone (share of the overhead, bootstrap 95% CI):\n";
  for (const auto& line : s.ablation_lines) out += fmt::format("    - {}\n", line);
  return out + fmt::format("    => {}\n", s.ablation_outcome);
}

}  // namespace

std::string render_console(const Analysis& analysis) {
  const Report report = build_report(analysis, nlohmann::json::object());
  std::string out;
  for (CaseKind kind : kCaseKinds) {
    if (kind == CaseKind::command && has_cases(analysis, kind))
      out += "\nYour commands (run as given in every environment under dlcbench-probe)\n";
    if (kind == CaseKind::micro && has_cases(analysis, kind))
      out += "\nMicro-benchmarks (each in its own figure; statistics and overheads over seconds per operation)\n";
    if (kind == CaseKind::startup && has_cases(analysis, kind))
      out += "\nContainer start-up (apart from training: a static program that exits at once)\n";
    for (const auto& s : report.cases)
      if (s.kind == kind)
        out += fmt::format("\n{}  ({})\n", s.analysis->case_id, s.caption) + console_table(s.console) +
               console_comparisons(s) + console_counters(s) + console_ablation(s);
  }
  for (const auto& s : report.summaries) out += console_summary(s, analysis.baseline);
  if (!report.console_backends.rows.empty())
    out += "\nBack ends side by side (the same network trained by each; container overheads per back end; * = "
           "significant)\n" +
           console_table(report.console_backends);
  if (!report.noise_floor.empty()) {
    out += fmt::format("\nNoise floor of this machine ({} against itself, interleaved; Hodges-Lehmann over paired "
                       "rounds)\n",
                       analysis.baseline);
    for (const auto& line : report.noise_floor) out += fmt::format("  {}\n", line);
  }
  for (const auto& n : analysis.notes) out += fmt::format("note: {}\n", n);
  return out;
}

std::string render_console_table(const Table& table) { return console_table(table); }

}  // namespace dlcbench
