#include "report/markdown.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "report/report_model.h"

namespace dlcbench {
namespace {

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
void md_table(std::string& out, const Table& t) {
  out += "|";
  for (const auto& h : t.header) out += fmt::format(" {} |", md_escape(h));
  out += "\n|";
  for (std::size_t i = 0; i < t.header.size(); ++i) out += i < t.numeric.size() && t.numeric[i] ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& cell : row) out += fmt::format(" {} |", md_escape(cell.text));
    out += "\n";
  }
}


// The title, the run's facts, its status and what the preflight found.
std::string md_header(const Report& report) {
  std::string out = fmt::format("# dlcbench report: run {}\n\n", md_escape(report.facts[0].second));
  if (!report.status_warning.empty()) out += fmt::format("> **{}**\n\n", md_escape(report.status_warning));
  for (const auto& [key, value] : report.facts)
    out += fmt::format("- **{}:** {}\n", key, key == "Command" ? md_code(value) : md_escape(value));
  if (report.analysis->allow_mismatch)
    out += "- **Allow mismatch:** yes (--allow-mismatch): comparisons that are not like for like are marked\n";
  out += fmt::format("\n{}\n", kRunMethod);
  if (!report.preflight.empty()) {
    out += "\n## Preflight differences\n\n";
    for (const auto& l : report.preflight) out += fmt::format("- {}\n", md_escape(l));
  }
  return out;
}

// One case: its caption, its table, then its comparisons and failures as a list.
std::string md_case_details(const CaseSection& s) {
  std::string out = fmt::format("\n### {}\n\n{}\n\n", md_escape(s.analysis->case_id), md_escape(s.caption));
  md_table(out, s.detail);
  if (!s.comparisons.empty() || !s.failures.empty() || !s.disturbances.empty()) out += "\n";
  for (const auto& l : s.comparisons) {
    out += fmt::format("- {}\n", md_escape(l.headline));
    if (!l.explanation.empty()) out += fmt::format("  - **{}**\n", md_escape(l.explanation));
    for (const auto& d : l.details) out += fmt::format("  - {}\n", md_escape(d));
  }
  if (!s.latency.rows.empty()) {
    out += fmt::format("\n{}\n\n", md_escape(s.latency_caption));
    md_table(out, s.latency);
  }
  if (!s.call_costs.rows.empty()) {
    out += fmt::format("\n{}\n\n", md_escape(s.call_cost_caption));
    md_table(out, s.call_costs);
  }
  if (!s.counters.rows.empty()) {
    out += fmt::format("\n{}\n\n", md_escape(s.counters_caption));
    md_table(out, s.counters);
    if (!s.counter_notes.empty()) out += "\n";
    for (const auto& n : s.counter_notes) out += fmt::format("- {}\n", md_escape(n));
  }
  if (!s.ablation_outcome.empty()) {
    out += fmt::format("\n{}\n\n", md_escape(s.ablation_caption));
    md_table(out, s.ablation);
    out += "\n";
    for (const auto& l : s.ablation_lines) out += fmt::format("- {}\n", md_escape(l));
    out += fmt::format("- **{}**\n", md_escape(s.ablation_outcome));
  }
  for (const auto& f : s.failures) out += fmt::format("- {}\n", md_escape(f));
  for (const auto& d : s.disturbances) out += fmt::format("- {}\n", md_escape(d));
  return out;
}

}  // namespace

std::string render_markdown(const Analysis& analysis, const Manifest& manifest) {
  const Report report = build_report(analysis, manifest);
  std::string out = md_header(report);
  // Training always has its heading, so a run without it says so; the
  // other sections appear when they have cases.
  for (const auto& s : report.summaries) {
    out += fmt::format("\n## {}\n\n{}\n", s.heading, md_escape(s.caption));
    if (!s.has_cases) continue;
    out += "\n";
    md_table(out, s.table);
  }
  if (!report.backends.rows.empty()) {
    out += fmt::format("\n## Back ends side by side\n\n{}\n\n", kBackendTableCaption);
    md_table(out, report.backends);
  }
  if (!report.cases.empty()) out += "\n## Details\n";
  for (const auto& s : report.cases) out += md_case_details(s);
  if (!report.noise_floor.empty()) {
    out += "\n## Noise floor of this machine\n\n";
    for (const auto& line : report.noise_floor) out += fmt::format("- {}\n", md_escape(line));
  }
  if (!analysis.notes.empty()) {
    out += "\n## Notes\n\n";
    for (const auto& n : analysis.notes) out += fmt::format("- {}\n", md_escape(n));
  }
  return out;
}

void render_markdown_table(std::string& out, const Table& table) { md_table(out, table); }
std::string markdown_text(const std::string& text) { return md_escape(text); }

}  // namespace dlcbench
