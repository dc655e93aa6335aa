#include "report/html.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>

#include "report/answer.h"
#include "report/figures.h"
#include "report/report_model.h"

namespace dlcbench {
namespace {

// ---- HTML --------------------------------------------------------------------

constexpr const char* kStyle = R"css(
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: #1a1a1a; background: #ffffff; max-width: 1320px; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.2rem; margin: 2rem 0 .6rem; border-bottom: 2px solid #1a1a1a; padding-bottom: .2rem; }
h3 { font-size: 1.05rem; margin: 1.6rem 0 .3rem; font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: 0 0 1rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
code { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: .92em; }
.warning { border: 3px solid #1a1a1a; background: #fff4c2; padding: .6rem .9rem; font-weight: 600; margin: 0 0 1rem; }
.table-wrap { overflow-x: auto; margin: .4rem 0 1rem; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 13px; }
th, td { border: 1px solid #9a9a9a; padding: .25rem .5rem; vertical-align: top; }
thead th { background: #ececec; text-align: left; }
td.num { text-align: right; white-space: nowrap; }
td.num.phrases { white-space: normal; min-width: 16rem; }
span.phrase { white-space: nowrap; }
th[scope=row] { text-align: left; font-weight: 600; white-space: nowrap; }
.not-compared { font-weight: 700; text-decoration: underline; }
.mismatch-allowed { font-weight: 700; font-style: italic; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem 2rem; align-items: flex-start; }
figure { margin: .5rem 0; }
.charts figure { display: table; }  /* as wide as its chart: the caption wraps under it */
.charts figcaption { display: table-caption; caption-side: bottom; }
figcaption { font-size: 12px; color: #333333; max-width: 44rem; }
svg.chart { max-width: 100%; height: auto; display: block; }
svg.chart text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; fill: #1a1a1a; }
ul.comparisons li, ul.failures li, ul.notes li, ul.why li { margin: .2rem 0; }
.answer-case h3 { display: inline-block; margin: 1rem .6rem .3rem 0; }
p.caption, p.method { color: #333333; margin: .2rem 0 .5rem; }
.chart-missing { font-style: italic; }
footer { margin-top: 3rem; font-size: 12px; color: #444444; }
@media print {
  body { max-width: none; padding: 0; }
  section.case, figure { break-inside: avoid; }
  .table-wrap { overflow: visible; }
}
)css";

// The cell's text; one made of phrases may wrap between them, never inside
// a figure and its interval.
std::string html_cell_text(const Cell& cell) {
  if (cell.breaks.empty()) return html_escape(cell.text);
  std::string out;
  std::size_t from = 0;
  for (std::size_t at : cell.breaks) {
    out += fmt::format("<span class=\"phrase\">{}</span> ", html_escape(cell.text.substr(from, at - from)));
    from = at + 1;
  }
  out += fmt::format("<span class=\"phrase\">{}</span>", html_escape(cell.text.substr(from)));
  return out;
}

void html_table(std::string& out, const Table& t, const std::string& cls, const std::string& id) {
  out += fmt::format("<div class=\"table-wrap\"><table class=\"{}\" id=\"{}\">\n<thead><tr>", cls, html_escape(id));
  for (const auto& h : t.header) out += fmt::format("<th scope=\"col\">{}</th>", html_escape(h));
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i) {
      const Cell& cell = row[i];
      if (i == 0) {
        out += fmt::format("<th scope=\"row\">{}</th>", html_escape(cell.text));
        continue;
      }
      std::string cls_cell = i < t.numeric.size() && t.numeric[i] ? "num" : "text";
      if (!cell.breaks.empty()) cls_cell += " phrases";
      if (cell.style == CellStyle::not_compared) cls_cell += " not-compared";
      if (cell.style == CellStyle::mismatch_allowed) cls_cell += " mismatch-allowed";
      out += fmt::format("<td class=\"{}\">{}</td>", cls_cell, html_cell_text(cell));
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></div>\n";
}

std::string status_class(const Manifest& manifest) {
  switch (manifest.status) {
    case RunStatus::interrupted:
      return "interrupted";
    case RunStatus::running:
      return "running";
    case RunStatus::not_comparable:
      return "not-comparable";
    default:
      return "unknown";
  }
}


// The title and the run's status: the first lines, above the answer.
std::string html_title(const Report& report, const std::string& status) {
  std::string out = fmt::format("<h1>dlcbench report: run {}</h1>\n", html_escape(report.facts[0].second));
  if (!report.status_warning.empty())
    out += fmt::format("<p class=\"warning status {}\" id=\"status-warning\" role=\"alert\">{}</p>\n", status,
                       html_escape(report.status_warning));
  return out;
}

// The answer first (report/answer.h): per case its table and chart side by
// side, the why lines; then what every container shares and runs set aside.
std::string html_answer(const Answer& answer) {
  std::string out = "<section id=\"answer\">\n";
  for (std::size_t i = 0; i < answer.cases.size(); ++i) {
    const AnswerCase& c = answer.cases[i];
    out += fmt::format("<div class=\"answer-case\">\n<h3>{}</h3> <span class=\"caption\">{}</span>\n"
                       "<div class=\"charts\">\n<div>\n",
                       html_escape(c.title), html_escape(c.unit));
    html_table(out, c.table, "answer", fmt::format("answer-{}", i + 1));
    out += "</div>\n" + svg_answer_chart(c, fmt::format("answer-chart-{}", i + 1)) + "</div>\n";
    if (!c.why.empty() || !c.ablation.empty() || !c.failures.empty()) {
      out += "<ul class=\"why\">\n";
      for (const auto& why : c.why) out += fmt::format("<li>why {}</li>\n", html_escape(why));
      for (const auto& failed : c.failures) out += fmt::format("<li>{}</li>\n", html_escape(failed));
      if (!c.ablation.empty()) out += fmt::format("<li>explained: {}</li>\n", html_escape(c.ablation));
      out += "</ul>\n";
    }
    out += "</div>\n";
  }
  if (!answer.shared_differences.empty())
    out += fmt::format("<p class=\"caption\">Every container differs from {} in {} (possible causes, below under "
                       "Preflight differences).</p>\n",
                       html_escape(answer.baseline), html_escape(fmt::format("{}", fmt::join(answer.shared_differences, ", "))));
  if (!answer.disturbed.empty())
    out += fmt::format("<p class=\"caption\">Runs disturbed from outside: {}.</p>\n",
                       html_escape(fmt::format("{}", fmt::join(answer.disturbed, ", "))));
  if (!answer.notes.empty()) out += "<p class=\"caption\">Notes on the run's files: below, under Notes.</p>\n";
  return out + "</section>\n";
}

// The run's facts and what the preflight found.
std::string html_header(const Report& report) {
  std::string out = "<header id=\"run\">\n<dl class=\"facts\">\n";
  for (const auto& [key, value] : report.facts) {
    const std::string shown = key == "Command" ? "<code>" + html_escape(value) + "</code>" : html_escape(value);
    out += fmt::format("<dt>{}</dt><dd id=\"fact-{}\">{}</dd>\n", html_escape(key), html_escape(key), shown);
  }
  if (report.analysis->allow_mismatch)
    out +=
        "<dt>Allow mismatch</dt><dd>yes (--allow-mismatch): comparisons that are not like for like are marked</dd>\n";
  out += fmt::format("</dl>\n<p class=\"method\">{}</p>\n</header>\n", html_escape(kRunMethod));
  if (!report.preflight.empty()) {
    out += "<section id=\"preflight\">\n<h2>Preflight differences</h2>\n<ul class=\"preflight\">\n";
    for (const auto& l : report.preflight) out += fmt::format("<li>{}</li>\n", html_escape(l));
    out += "</ul>\n</section>\n";
  }
  return out;
}

// As in the Markdown: training always has its heading, the other sections
// appear when they have cases; then the back ends side by side.
std::string html_summaries(const Report& report) {
  std::string out = "<section id=\"summary\">\n";
  for (const auto& s : report.summaries) {
    out += fmt::format("<h2>{}</h2>\n<p class=\"{}\">{}</p>\n", s.heading, s.has_cases ? "caption" : "chart-missing",
                       html_escape(s.caption));
    if (s.has_cases)
      html_table(out, s.table, fmt::format("summary {}", kind_slug(s.kind)), fmt::format("summary-{}", kind_slug(s.kind)));
  }
  if (!report.backends.rows.empty()) {
    out += "<h2>Back ends side by side</h2>\n";
    out += fmt::format("<p class=\"caption\">{}</p>\n", html_escape(kBackendTableCaption));
    html_table(out, report.backends, "summary backends", "summary-backends");
  }
  return out + "</section>\n";
}

std::string html_overhead_charts(const Analysis& analysis) {
  std::string out = fmt::format("<section id=\"overhead\">\n<h2>Overhead against {}</h2>\n", html_escape(analysis.baseline));
  bool any_overhead = false;
  for (CaseKind kind : kCaseKinds) {
    // Start-up is said in milliseconds added (the answer's chart above): a
    // ratio of a near-zero start is noise.
    if (kind == CaseKind::startup) continue;
    const std::string chart = svg_overhead_chart(analysis, kind, fmt::format("overhead-{}", kind_slug(kind)));
    if (chart.empty()) continue;
    any_overhead = true;
    out += fmt::format(
        "<figure>\n{}<figcaption>{}: each environment's time {}over the baseline's (Hodges-Lehmann over "
        "rounds of the ratio of run values), with its 95% confidence interval, on which the verdict is taken; a line that "
        "excludes 1.0 is significant, one that crosses it is not (equivalence also needs the mean's interval, in "
        "the tooltip, within the margin). Hover a mark for its figures.</figcaption>\n</figure>\n",
        chart,
        kind == CaseKind::startup ? "Container start-up"
        : kind == CaseKind::micro ? "Micro-benchmarks"
                                  : "Training",
        kind == CaseKind::micro ? "time per operation (not the rate: right of 1.0 is slower) " : "");
  }
  if (!any_overhead)
    out += fmt::format(
        "<p class=\"chart-missing overhead\">No overhead to show: no environment besides {} has runs "
        "to compare in any case.</p>\n",
        html_escape(analysis.baseline));
  return out + "</section>\n";
}

std::string html_comparisons(const CaseSection& s) {
  if (s.comparisons.empty()) return "";
  std::string out = "<ul class=\"comparisons\">\n";
  for (const auto& l : s.comparisons) {
    const char* cls = !l.compared ? " class=\"not-compared\"" : l.mismatch_allowed ? " class=\"mismatch-allowed\"" : "";
    out += fmt::format("<li><span{}>{}</span>", cls, html_escape(l.headline));
    if (!l.explanation.empty())
      out += fmt::format("\n<p class=\"explanation\">{}</p>", html_escape(l.explanation));
    if (!l.details.empty()) {
      out += "\n<ul class=\"mismatches\">\n";
      for (const auto& d : l.details) out += fmt::format("<li>{}</li>\n", html_escape(d));
      out += "</ul>";
    }
    out += "</li>\n";
  }
  return out + "</ul>\n";
}

// One case: its caption, its two charts, its table, comparisons and failures.
std::string html_case_details(const CaseSection& s, std::size_t index) {
  const CaseAnalysis& c = *s.analysis;
  const std::string id = fmt::format("case-{}", index);
  std::string out = fmt::format("<section class=\"case{}\" id=\"{}\">\n<h3>{}</h3>\n<p class=\"caption\">{}</p>\n",
                                s.kind == CaseKind::training ? std::string() : fmt::format(" {}", kind_slug(s.kind)),
                                id, html_escape(c.case_id), html_escape(s.caption));
  out += "<div class=\"charts\">\n";
  out += fmt::format(
      "<figure>\n{}<figcaption>Mean {} per environment{}; the whisker is its 95% CI over "
      "runs.</figcaption>\n</figure>\n",
      svg_bar_chart(c, id + "-bars"), html_escape(c.micro ? c.figure_unit : c.unit),
      c.micro ? html_escape(fmt::format(" (of the mean time per operation), {}", better_words(c))) : "");
  out += fmt::format(
      "<figure>\n{}<figcaption>Run values: box from the first to the third quartile, thick line at "
      "the median, whiskers to the furthest run not flagged; every run a dot, filled where flagged as an "
      "outlier ({}).</figcaption>\n</figure>\n",
      svg_box_plot(c, id + "-box"), html_escape(kOutlierRule));
  out += "</div>\n";
  html_table(out, s.detail, "detail", id + "-detail");
  out += html_comparisons(s);
  if (const std::string chart = svg_prediction_chart(c, id + "-prediction", c.sample_noun_one());
      !chart.empty())
    out += fmt::format("<figure>\n{}<figcaption>Each overhead against what the environment's system calls predict "
                       "(calls counted per {} times what each costs more than on the baseline): grey the measured "
                       "overhead, below it the prediction split by operation, and outlined what it leaves "
                       "unexplained; whiskers are 95% CIs.</figcaption>\n</figure>\n",
                       chart, html_escape(c.sample_noun_one()));
  if (!s.latency.rows.empty()) {
    out += fmt::format("<figure>\n{}<figcaption>Latency per quantile: each environment's median over runs, the "
                       "whisker the runs' range.</figcaption>\n</figure>\n",
                       svg_latency_chart(c, id + "-latency-chart"));
    out += fmt::format("<p class=\"caption\">{}</p>\n", html_escape(s.latency_caption));
    html_table(out, s.latency, "latency", id + "-latency");
  }
  if (!s.call_costs.rows.empty()) {
    out += fmt::format("<p class=\"caption\">{}</p>\n", html_escape(s.call_cost_caption));
    html_table(out, s.call_costs, "call-costs", id + "-call-costs");
  }
  if (!s.counters.rows.empty()) {
    out += fmt::format("<p class=\"caption\">{}</p>\n", html_escape(s.counters_caption));
    html_table(out, s.counters, "counters", id + "-counters");
    if (!s.counter_notes.empty()) {
      out += "<ul class=\"notes\">\n";
      for (const auto& n : s.counter_notes) out += fmt::format("<li>{}</li>\n", html_escape(n));
      out += "</ul>\n";
    }
  }
  if (!s.ablation_outcome.empty()) {
    out += fmt::format("<p class=\"caption\">{}</p>\n", html_escape(s.ablation_caption));
    html_table(out, s.ablation, "ablation", id + "-ablation");
    out += "<ul class=\"notes\">\n";
    for (const auto& l : s.ablation_lines) out += fmt::format("<li>{}</li>\n", html_escape(l));
    out += fmt::format("<li><strong>{}</strong></li>\n</ul>\n", html_escape(s.ablation_outcome));
  }
  if (!s.failures.empty() || !s.disturbances.empty()) {
    out += "<ul class=\"failures\">\n";
    for (const auto& f : s.failures) out += fmt::format("<li>{}</li>\n", html_escape(f));
    for (const auto& d : s.disturbances) out += fmt::format("<li>{}</li>\n", html_escape(d));
    out += "</ul>\n";
  }
  return out + "</section>\n";
}

}  // namespace

std::string render_html(const Analysis& analysis, const Manifest& manifest) {
  const Report report = build_report(analysis, manifest);
  std::string out = html_page_start("dlcbench report: run " + report.facts[0].second);
  out += html_title(report, status_class(manifest));
  out += html_answer(build_answer(analysis));
  out += html_header(report);
  out += html_summaries(report);
  out += html_overhead_charts(analysis);
  out += "<section id=\"cases\">\n<h2>Details</h2>\n";
  if (report.cases.empty()) out += "<p class=\"chart-missing\">No cases in this run.</p>\n";
  for (std::size_t i = 0; i < report.cases.size(); ++i) out += html_case_details(report.cases[i], i + 1);
  out += "</section>\n";
  if (!analysis.notes.empty()) {
    out += "<section id=\"notes\">\n<h2>Notes</h2>\n<ul class=\"notes\">\n";
    for (const auto& n : analysis.notes) out += fmt::format("<li>{}</li>\n", html_escape(n));
    out += "</ul>\n</section>\n";
  }
  out +=
      "<footer>Made by dlcbench from the run's manifest.json and results.jsonl; every figure can be recomputed "
      "from those two files.</footer>\n</body>\n</html>\n";
  return out;
}

std::string html_page_start(const std::string& title) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n"
                     "<style>{}</style>\n</head>\n<body>\n",
                     html_escape(title), kStyle);
}
void render_html_table(std::string& out, const Table& table, const std::string& cls, const std::string& id) {
  html_table(out, table, cls, id);
}

}  // namespace dlcbench
