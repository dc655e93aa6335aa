#include "report/history_report.h"

#include <cmath>

#include <fmt/format.h>

#include "report/console.h"
#include "report/html.h"
#include "report/markdown.h"
#include "report/svg.h"

namespace dlcbench {
namespace {

// An entry's overhead as every report says it: "+3.1% (+1.2 .. +5.0)", or
// the ratio where the form is the time added (start-up).
std::string overhead_text(const Headline& h) {
  if (h.form == Headline::Form::time_added) {
    if (!h.bounded()) return fmt::format("x{:.3g}", h.time_ratio);
    return fmt::format("x{:.3g} ({:.3g} .. {:.3g})", h.time_ratio, h.time_low, h.time_high);
  }
  if (!h.bounded()) return fmt::format("{:+.1f}% (no interval)", 100 * h.change());
  return fmt::format("{:+.1f}% ({:+.1f} .. {:+.1f})", 100 * h.change(), 100 * h.change_low(), 100 * h.change_high());
}

std::string facts_text(const std::vector<FactChange>& changed) {
  std::vector<std::string> parts;
  for (const auto& c : changed)
    parts.push_back(fmt::format("{} {} -> {}", c.name, c.before.empty() ? "(none)" : c.before,
                                c.after.empty() ? "(none)" : c.after));
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string step_text(const HistoryStep& st) {
  if (!st.tested) return "not tested (no interval)";
  std::string text = fmt::format("x{:.3f} (95% CI {:.3f} .. {:.3f}), p = {:.2g}", st.ratio, st.ratio_low,
                                 st.ratio_high, st.p_value);
  if (st.transient) text = "ONE RUN OFF " + text;
  else if (st.flagged) text = "CHANGE " + text;
  if ((st.flagged || st.transient) && !st.changed.empty()) text += "; with it: " + facts_text(st.changed);
  return text;
}

std::string series_title(const SeriesHistory& s) {
  return fmt::format("{}  {} against {} on {}", s.series.case_id, s.series.env, s.series.baseline, s.series.machine);
}

std::string drift_text(const SeriesHistory& s) {
  if (s.series.entries.size() < 2) return "one run so far: nothing to compare it with";
  return fmt::format("drift between runs {:.1f}%{}", 100 * (std::exp(s.drift) - 1),
                     s.drift_pooled ? " (of every series together: this one is too short for its own)" : "");
}

std::string summary_line(const History& h, const std::string& store) {
  return fmt::format("{}: {} series, {} neighbouring runs tested; false alarms held to {:.0f}% over all of them "
                     "(Holm)",
                     store, h.series.size(), h.tests, 100 * h.alpha);
}

}  // namespace

Table history_table(const SeriesHistory& s) {
  Table t;
  t.header = {"run", "ended (UTC)", "overhead (95% CI)", "change from the run before"};
  t.numeric = {false, false, true, false};
  for (std::size_t i = 0; i < s.series.entries.size(); ++i) {
    const auto& e = s.series.entries[i];
    const std::string run = e.calibration ? e.run_id + " (A/A)" : e.run_id;
    t.rows.push_back({run, e.ended_at, overhead_text(e.headline), i == 0 ? "" : step_text(s.steps[i - 1])});
  }
  return t;
}

std::vector<std::string> history_findings(const History& h) {
  std::vector<std::string> out;
  for (const auto& s : h.series)
    for (const auto& st : s.steps) {
      if (!st.flagged || (st.transient && std::log(st.ratio) < 0)) continue;  // a one-off is said once
      const auto& before = s.series.entries[st.to - 1];
      const auto& after = s.series.entries[st.to];
      out.push_back(fmt::format(
          "{} {} against {} on {}: {} at run {}: overhead {} -> {}, x{:.3f} (95% CI {:.3f} .. {:.3f}){}",
          s.series.case_id, s.series.env, s.series.baseline, s.series.machine,
          st.transient ? "one run off" : "changed", after.run_id, overhead_text(before.headline),
          overhead_text(after.headline), st.ratio, st.ratio_low, st.ratio_high,
          st.changed.empty() ? "; no stored fact changed with it" : "; with it: " + facts_text(st.changed)));
    }
  return out;
}

std::string render_history(const History& h, const std::string& store) {
  std::string out;
  const auto findings = history_findings(h);
  if (findings.empty()) out += "no change: every run's overhead is within its interval of the run before\n";
  for (const auto& f : findings) out += f + "\n";
  out += "\n" + summary_line(h, store) + "\n";
  for (const auto& s : h.series) {
    out += fmt::format("\n{}  ({})\n", series_title(s), drift_text(s));
    out += render_console_table(history_table(s));
  }
  return out;
}

std::string render_history_markdown(const History& h, const std::string& store) {
  std::string out = "# Overhead over time\n\n";
  const auto findings = history_findings(h);
  if (findings.empty()) out += "No change: every run's overhead is within its interval of the run before.\n";
  for (const auto& f : findings) out += "- " + f + "\n";
  out += "\n" + summary_line(h, store) + ".\n";
  for (const auto& s : h.series) {
    out += fmt::format("\n## {}\n\n{}.\n\n", series_title(s), drift_text(s));
    render_markdown_table(out, history_table(s));
  }
  return out;
}

std::string render_history_html(const History& h, const std::string& store) {
  std::string out = html_page_start("dlcbench history");
  out += "<h1>Overhead over time</h1>\n<ul class=\"answer\">\n";
  const auto findings = history_findings(h);
  if (findings.empty()) out += "<li>No change: every run's overhead is within its interval of the run before.</li>\n";
  for (const auto& f : findings) out += "<li>" + html_escape(f) + "</li>\n";
  out += "</ul>\n<p>" + html_escape(summary_line(h, store)) + ".</p>\n";
  for (std::size_t i = 0; i < h.series.size(); ++i) {
    const auto& s = h.series[i];
    const std::string id = fmt::format("series-{}", i + 1);
    out += fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n<p>{}.</p>\n", id, html_escape(series_title(s)),
                       html_escape(drift_text(s)));
    out += fmt::format("<figure>\n{}<figcaption>Each run's overhead with its 95% interval, oldest first; a change "
                       "point is marked where it starts.</figcaption>\n</figure>\n",
                       svg_trend_chart(s, id + "-trend"));
    render_html_table(out, history_table(s), "history", id + "-table");
    out += "</section>\n";
  }
  out += "</body>\n</html>\n";
  return out;
}

nlohmann::json history_json(const History& h, const std::string& store) {
  const auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  nlohmann::json series = nlohmann::json::array();
  for (const auto& s : h.series) {
    nlohmann::json entries = nlohmann::json::array();
    for (std::size_t i = 0; i < s.series.entries.size(); ++i) {
      const auto& e = s.series.entries[i];
      nlohmann::json j = {{"run_id", e.run_id},
                          {"ended_at", e.ended_at},
                          {"calibration", e.calibration},
                          {"time_ratio", number(e.headline.time_ratio)},
                          {"time_ratio_ci95", {number(e.headline.time_low), number(e.headline.time_high)}},
                          {"facts", e.facts}};
      if (i > 0) {
        const auto& st = s.steps[i - 1];
        nlohmann::json changed = nlohmann::json::array();
        for (const auto& c : st.changed) changed.push_back({{"name", c.name}, {"before", c.before}, {"after", c.after}});
        j["step"] = {{"tested", st.tested},
                     {"ratio", number(st.ratio)},
                     {"ratio_ci95", {number(st.ratio_low), number(st.ratio_high)}},
                     {"p_value", number(st.p_value)},
                     {"flagged", st.flagged},
                     {"transient", st.transient},
                     {"changed", changed}};
      }
      entries.push_back(std::move(j));
    }
    series.push_back({{"machine", s.series.machine},
                      {"case", s.series.case_id},
                      {"env", s.series.env},
                      {"baseline", s.series.baseline},
                      {"drift", number(s.drift)},
                      {"drift_pooled", s.drift_pooled},
                      {"entries", entries}});
  }
  return {{"store", store},
          {"alpha", h.alpha},
          {"tests", h.tests},
          {"change_points", h.flagged},
          {"transients", h.transients},
          {"series", series}};
}

}  // namespace dlcbench
