#include "report/console.h"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/answer.h"
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
      s.kind == CaseKind::startup   ? fmt::format("s/start (mean of runs), and the time a start adds against {}",
                                                  baseline)
      : s.kind == CaseKind::micro   ? fmt::format("micro-benchmarks in their units (mean of runs), and vs {} in percent",
                                                  baseline)
      : s.kind == CaseKind::command ? fmt::format("your commands in their units (mean of runs), and vs {} in percent",
                                                  baseline)
                                    : fmt::format("s/batch (mean of runs), and vs {} in percent", baseline);
  return fmt::format("\nSummary: {}; * = significant (the verdict's 95% CI excludes 1).{}\n", what,
                     s.kind == CaseKind::startup ? "" : std::string(" ") + kChangeConvention) +
         console_table(s.console);
}

// serve: the latency quantiles against the baseline.
std::string console_latency(const CaseSection& s) {
  if (s.latency.rows.empty()) return "";
  std::string out = "  latency per quantile, ms (median of runs), and the change against the baseline (95% CI):\n";
  Table t = s.latency;
  t.gap.assign(t.header.size(), 2);
  t.gap[0] = 4;
  return out + console_table(t);
}

// syscall/table: each kind of call's cost per environment.
std::string console_call_costs(const CaseSection& s) {
  if (s.call_costs.rows.empty()) return "";
  Table t = s.call_costs;
  t.gap.assign(t.header.size(), 2);
  t.gap[0] = 4;
  return fmt::format("  {}\n", s.call_cost_caption) + console_table(t);
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

// A line cut to the answer's width, without trailing spaces; the details
// keep it whole.
std::string fitted(std::string line) {
  if (line.size() > kAnswerWidth) line = line.substr(0, kAnswerWidth - 3) + "...";
  line.erase(line.find_last_not_of(' ') + 1);
  return line + "\n";
}

// Words of `text` in lines of at most `width` characters, broken at spaces
// (a word longer than the width gets a line of its own).
std::vector<std::string> cell_lines(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// The answer's table within the width. An environment's label keeps up to
// kAnswerLabelWidth characters ("podman:rootless=dlcbench-rootless" is
// shortened with a "~", a "!" mark kept); the last column, the verdict,
// goes on in continuation rows where it does not fit, rather than being cut.
constexpr std::size_t kAnswerLabelWidth = 26;
Table labels_within_width(Table t) {
  if (t.header.empty()) return t;
  std::size_t label_width = t.header[0].size();
  for (auto& row : t.rows) {
    std::string& label = row[0].text;
    const bool marked = !label.empty() && label.back() == '!';
    if (marked) label.pop_back();
    label = short_label(label, kAnswerLabelWidth - (marked ? 1 : 0)) + (marked ? "!" : "");
    label_width = std::max(label_width, label.size());
  }
  const std::size_t last = t.header.size() - 1;
  std::size_t others = 2 + label_width;  // the first column's indent and the labels
  for (std::size_t i = 1; i < last; ++i) {
    std::size_t widest = t.header[i].size();
    for (const auto& row : t.rows)
      if (i < row.size()) widest = std::max(widest, row[i].text.size());
    others += 2 + widest;
  }
  const std::size_t room = kAnswerWidth > others + 2 + 20 ? kAnswerWidth - others - 2 : 20;
  std::vector<std::vector<Cell>> rows;
  for (auto& row : t.rows) {
    if (row.size() <= last || row[last].text.size() <= room) {
      rows.push_back(std::move(row));
      continue;
    }
    const std::vector<std::string> lines = cell_lines(row[last].text, room);
    for (std::size_t l = 0; l < lines.size(); ++l) {
      std::vector<Cell> line = l == 0 ? row : std::vector<Cell>(row.size());
      line[last] = Cell(lines[l], row[last].style);
      rows.push_back(std::move(line));
    }
  }
  t.rows = std::move(rows);
  return t;
}

// Text in lines of at most the answer's width, broken at spaces; the lines
// after the first indented by `indent` spaces.
std::string wrapped(const std::string& text, std::size_t indent) {
  std::string out;
  std::size_t start = std::min(text.find_first_not_of(' '), text.size());
  std::string line = text.substr(0, start);  // the first line's own indent
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    const bool words_on_line = line.find_first_not_of(' ') != std::string::npos;
    if (words_on_line && line.size() + 1 + word.size() > kAnswerWidth) {
      out += fitted(line);
      line = std::string(indent, ' ');
    } else if (words_on_line) {
      line += ' ';
    }
    line += word;
    start = end + 1;
  }
  return line.empty() ? out : out + fitted(line);
}

// "a, b, c" with as many of `items` as fit `room` columns, then "and N more".
std::string listed_within(const std::vector<std::string>& items, std::size_t room) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string rest = fmt::format(", and {} more", items.size() - i);
    const std::string next = (i ? ", " : "") + items[i];
    if (out.size() + next.size() + (i + 1 < items.size() ? rest.size() : 0) > room)
      return out + (i ? rest : fmt::format("{} differences", items.size()));
    out += next;
  }
  return out;
}

std::string console_answer_case(const AnswerCase& c) {
  std::string out = fitted(fmt::format("{}  ({})", c.title, c.unit));
  const std::string table = console_table(labels_within_width(c.table));
  for (std::size_t start = 0; start < table.size();) {
    const std::size_t end = table.find('\n', start);
    out += fitted(table.substr(start, end - start));
    start = end + 1;
  }
  for (const auto& why : c.why) out += wrapped("  why " + why, 6);
  // A failure's cause is a message a user searches for: printed whole.
  for (const auto& failed : c.failures) out += "  " + failed + "\n";
  if (!c.ablation.empty()) out += wrapped("  explained: " + c.ablation, 6);
  return out;
}

}  // namespace

std::string render_answer(const Analysis& analysis, const std::string& details_command) {
  const Answer answer = build_answer(analysis);
  std::string out;
  for (const auto& c : answer.cases) {
    out += '\n';  // apart: GCC 12's -Wrestrict misreads `"\n" + std::string&&` (its bug 105329)
    out += console_answer_case(c);
  }
  if (!answer.noise_floor.empty()) {
    out += fitted(fmt::format("\nnoise floor ({} against itself):", answer.baseline));
    for (const auto& line : answer.noise_floor) out += fitted("  " + line);
  }
  out += "\n";
  if (!answer.shared_differences.empty()) {
    const std::string lead = fmt::format("every container differs from {} in ", answer.baseline);
    out += fitted(lead + listed_within(answer.shared_differences, kAnswerWidth - lead.size()));
  }
  if (!answer.mismatch_allowed.empty())
    out += fitted("! compared although settings differ that nobody asked for (--allow-mismatch)");
  if (!answer.disturbed.empty())
    out += wrapped(fmt::format("runs disturbed from outside: {}", fmt::join(answer.disturbed, ", ")), 6);
  for (const auto& note : answer.notes) out += "note: " + note + "\n";  // whole, as a failure's cause
  out += fitted(fmt::format("details: {}", details_command));
  return out;
}

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
               console_comparisons(s) + console_latency(s) + console_call_costs(s) + console_counters(s) + console_ablation(s);
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
