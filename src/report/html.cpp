#include "report/html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include "report/markdown.h"

namespace dlcbench {
namespace {


// Coordinates with two decimals: exact enough on any screen, short in the file.
std::string px(double v) { return fmt::format("{:.2f}", v); }

// ---- Text ------------------------------------------------------------------

std::size_t code_points(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }));
}

// At most `max` characters (UTF-8 code points), the last one an ellipsis when cut.
std::string shorten(const std::string& s, std::size_t max) {
  if (code_points(s) <= max) return s;
  std::string out;
  std::size_t seen = 0;
  for (char ch : s) {
    const bool starts = (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
    if (starts && ++seen > max - 1) break;
    out += ch;
  }
  return out + "\u2026";
}

// Width of a label in pixels: a generous estimate for a sans-serif face.
double text_width(const std::string& s, double font_size) {
  return static_cast<double>(code_points(s)) * font_size * 0.58;
}

// ---- Scales, ticks, marks ---------------------------------------------------

// Fills by the environment's place in the plan. Dark and light alternate so
// that neighbours differ in greyscale too; every mark also has a dark outline
// and its own label or shape, so colour is never the only key.
constexpr const char* kFills[] = {"#253494", "#9ecae1", "#d95f02", "#fdd49e",
                                  "#54278f", "#a1d99b", "#636363", "#fcbba1"};
const char* fill_of(std::size_t i) { return kFills[i % std::size(kFills)]; }
constexpr const char* kInk = "#1a1a1a";
constexpr const char* kGrid = "#d9d9d9";
constexpr double kFont = 12;

struct Scale {
  double d0 = 0, d1 = 1;  // domain
  double r0 = 0, r1 = 1;  // range, pixels
  bool log = false;
  double operator()(double v) const {
    const double a = log ? std::log10(d0) : d0, b = log ? std::log10(d1) : d1, x = log ? std::log10(v) : v;
    if (!(b != a)) return (r0 + r1) / 2;
    return r0 + (x - a) / (b - a) * (r1 - r0);
  }
};

struct Ticks {
  std::vector<double> values;
  int decimals = -1;  // -1: shortest form ("%g")
  std::string label(double v) const {
    return decimals < 0 ? fmt::format("{:g}", v) : fmt::format("{:.{}f}", v, decimals);
  }
};

// Ticks at 1, 2 or 5 times a power of ten, about `target` of them across
// [lo, hi]; with `widen`, lo and hi move out to the ticks beside them.
Ticks linear_ticks(double& lo, double& hi, int target, bool widen) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double r = raw / magnitude;
  const double step = (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * magnitude;
  if (widen) {
    lo = std::floor(lo / step + 1e-9) * step;
    hi = std::ceil(hi / step - 1e-9) * step;
  }
  Ticks t;
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1) {
    const double v = k * step;
    t.values.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);  // never "-0.00"
  }
  t.decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  return t;
}

// 1, 2, 5, 10, 20, ... within [lo, hi] (both > 0); only the powers of ten
// when those would crowd the axis.
Ticks log_ticks(double lo, double hi) {
  const int first = static_cast<int>(std::floor(std::log10(lo))), last = static_cast<int>(std::ceil(std::log10(hi)));
  for (bool all : {true, false}) {
    Ticks t;
    for (int e = first; e <= last; ++e)
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = m * std::pow(10.0, e);
        if ((all || m == 1.0) && v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) t.values.push_back(v);
      }
    if (!all || t.values.size() <= 9) return t;
  }
  return {};
}

std::string svg_open(const std::string& kind, const std::string& id, double width, double height,
                     const std::string& title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart {0}\" id=\"{1}\" width=\"{2}\" height=\"{3}\" "
      "viewBox=\"0 0 {2} {3}\" role=\"img\" aria-labelledby=\"{1}-title\" font-size=\"{4}\">\n"
      "<title id=\"{1}-title\">{5}</title>\n"
      "<rect class=\"background\" x=\"0\" y=\"0\" width=\"{2}\" height=\"{3}\" fill=\"#ffffff\"/>\n",
      kind, html_escape(id), px(width), px(height), kFont, html_escape(title));
}

// Horizontal grid lines with their labels on the left, the axis line, and
// the axis title turned upright along it.
void y_axis(std::string& out, const Scale& y, const Ticks& ticks, double x0, double x1, const std::string& title) {
  out += "<g class=\"axis y\">\n";
  for (double v : ticks.values) {
    const double at = y(v);
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"/>", px(x0), px(at), px(x1), px(at),
                       kGrid);
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"/>", px(x0 - 5), px(at), px(x0),
                       px(at), kInk);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>\n",
                       px(x0 - 8), px(at), html_escape(ticks.label(v)));
  }
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>\n", px(x0), px(y.r0), px(y.r1),
                     kInk);
  const double mid = (y.r0 + y.r1) / 2;
  out += fmt::format(
      "<text class=\"axis-title\" x=\"14\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 14 "
      "{0})\">{1}</text>\n",
      px(mid), html_escape(title));
  out += "</g>\n";
}

// Environment names under their slots; turned when they do not fit.
struct CategoryAxis {
  std::vector<std::string> labels;  // shortened
  double slot = 0;
  bool turned = false;
  double height = 0;  // below the plot
};

CategoryAxis category_axis(const CaseAnalysis& c) {
  CategoryAxis a;
  double widest = 0;
  for (const auto& e : c.envs) {
    a.labels.push_back(shorten(e.env, 28));
    widest = std::max(widest, text_width(a.labels.back(), kFont));
  }
  a.slot = std::clamp(widest + 16, 72.0, 110.0);
  a.turned = widest > a.slot - 10;
  a.height = a.turned ? 20 + widest * 0.72 : 30;
  return a;
}

void draw_category_axis(std::string& out, const CaseAnalysis& c, const CategoryAxis& a, double left,
                        double baseline_y) {
  out += "<g class=\"axis x\">\n";
  out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"/>\n", px(left), px(baseline_y),
                     px(left + a.slot * static_cast<double>(c.envs.size())), px(baseline_y), kInk);
  for (std::size_t i = 0; i < c.envs.size(); ++i) {
    const double x = left + a.slot * (static_cast<double>(i) + 0.5), y = baseline_y + 16;
    if (a.turned)
      out += fmt::format(
          "<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\" transform=\"rotate(-40 {0} "
          "{1})\"><title>{2}</title>{3}</text>\n",
          px(x + 4), px(y - 4), html_escape(c.envs[i].env), html_escape(a.labels[i]));
    else
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\"><title>{}</title>{}</text>\n", px(x), px(y),
                         html_escape(c.envs[i].env), html_escape(a.labels[i]));
  }
  out += "</g>\n";
}

// An interval drawn over anything: a white halo under a dark line, with a
// cap at each end that is not cut off by the axis.
void whisker(std::string& out, double x, double y_lo, double y_hi, double cap, bool cap_lo = true, bool cap_hi = true) {
  std::string d = fmt::format("M{} {}V{}", px(x), px(y_lo), px(y_hi));
  if (cap_lo) d += fmt::format("M{} {}H{}", px(x - cap / 2), px(y_lo), px(x + cap / 2));
  if (cap_hi) d += fmt::format("M{} {}H{}", px(x - cap / 2), px(y_hi), px(x + cap / 2));
  out += fmt::format(
      "<path d=\"{0}\" stroke=\"#ffffff\" stroke-width=\"4\" fill=\"none\"/>"
      "<path d=\"{0}\" stroke=\"{1}\" stroke-width=\"1.6\" fill=\"none\"/>\n",
      d, kInk);
}

std::string no_data_reason(const EnvironmentStats& e) {
  if (e.failed_launches)
    return fmt::format("no run finished ({} failed launch{})", e.failed_launches, e.failed_launches == 1 ? "" : "es");
  return "no run finished";
}

// Marker shapes by the environment's place in the plan, so the overhead chart
// reads in greyscale.
std::string marker(std::size_t i, double x, double y, const std::string& fill, bool hollow) {
  const std::string paint =
      fmt::format("fill=\"{}\" stroke=\"{}\" stroke-width=\"1.4\"", hollow ? "#ffffff" : fill, kInk);
  const double r = 5.5;
  switch (i % 6) {
    case 0:
      return fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" {}/>", px(x), px(y), px(r), paint);
    case 1:
      return fmt::format("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{2}\" {3}/>", px(x - r * 0.9),
                         px(y - r * 0.9), px(r * 1.8), paint);
    case 2:
      return fmt::format("<path d=\"M{} {}L{} {}L{} {}Z\" {}/>", px(x), px(y - r * 1.1), px(x + r), px(y + r * 0.8),
                         px(x - r), px(y + r * 0.8), paint);
    case 3:
      return fmt::format("<path d=\"M{} {}L{} {}L{} {}L{} {}Z\" {}/>", px(x), px(y - r * 1.2), px(x + r * 1.2), px(y),
                         px(x), px(y + r * 1.2), px(x - r * 1.2), px(y), paint);
    case 4:
      return fmt::format("<path d=\"M{} {}L{} {}L{} {}Z\" {}/>", px(x), px(y + r * 1.1), px(x + r), px(y - r * 0.8),
                         px(x - r), px(y - r * 0.8), paint);
    default:
      return fmt::format("<path d=\"M{} {}L{} {}M{} {}L{} {}\" stroke=\"{}\" stroke-width=\"3\"/>", px(x - r),
                         px(y - r), px(x + r), px(y + r), px(x - r), px(y + r), px(x + r), px(y - r), kInk);
  }
}

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
ul.comparisons li, ul.failures li, ul.notes li { margin: .2rem 0; }
p.caption, p.method { color: #333333; margin: .2rem 0 .5rem; }
.chart-missing { font-style: italic; }
footer { margin-top: 3rem; font-size: 12px; color: #444444; }
@media print {
  body { max-width: none; padding: 0; }
  section.case, figure { break-inside: avoid; }
  .table-wrap { overflow: visible; }
}
)css";

void html_table(std::string& out, const TextTable& t, const std::string& cls, const std::string& id) {
  out += fmt::format("<div class=\"table-wrap\"><table class=\"{}\" id=\"{}\">\n<thead><tr>", cls, html_escape(id));
  for (const auto& h : t.header) out += fmt::format("<th scope=\"col\">{}</th>", html_escape(h));
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::string& cell = row[i];
      if (i == 0) {
        out += fmt::format("<th scope=\"row\">{}</th>", html_escape(cell));
        continue;
      }
      std::string cls_cell = i < t.numeric.size() && t.numeric[i] ? "num" : "text";
      if (cell.rfind("NOT COMPARED", 0) == 0) cls_cell += " not-compared";
      if (cell.rfind("MISMATCH ALLOWED", 0) == 0) cls_cell += " mismatch-allowed";
      out += fmt::format("<td class=\"{}\">{}</td>", cls_cell, html_escape(cell));
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></div>\n";
}

std::string status_class(const nlohmann::json& manifest) {
  const std::string status = manifest.is_object() ? manifest.value("status", std::string()) : std::string();
  if (status == "interrupted") return "interrupted";
  if (status == "running") return "running";
  if (status == "not comparable") return "not-comparable";
  return "unknown";
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

// What a case's charts show: seconds per batch (start), or a
// micro-benchmark's figure (GFLOP/s, ms, ...) with its unit.
struct Shown {
  const CaseAnalysis& c;
  std::string unit() const { return c.micro ? c.figure_unit : c.unit; }
  double operator()(double seconds) const { return c.micro ? figure_of(c, seconds) : seconds; }
  // The mean, the interval and the run count of an environment, in the unit
  // (a rate's interval bounds swapped by figure_summary).
  struct Mean {
    std::size_t n = 0;
    double mean = NAN, ci95_low = NAN, ci95_high = NAN;
  };
  Mean mean(const Summary& s) const {
    if (!c.micro) return {s.n, s.mean, s.ci95_low, s.ci95_high};
    const FigureSummary f = figure_summary(c, s);
    return {f.n, f.mean, f.ci95_low, f.ci95_high};
  }
  // Text of one value, with the decimals `typical` needs (a figure's).
  std::string text(double v, double typical) const {
    return c.micro ? format_figure(v, figure_decimals(typical)) : format_seconds(v);
  }
  // ", higher is better" for a rate, ", lower is better" for a latency, ""
  // for seconds.
  std::string better() const { return c.micro ? fmt::format(", {}", better_words(c)) : ""; }
};

std::string svg_bar_chart(const CaseAnalysis& c, const std::string& id) {
  const Shown shown{c};
  double top = 0;
  for (const auto& e : c.envs) {
    const auto m = shown.mean(e.runs);
    if (m.n == 0 || !std::isfinite(m.mean)) continue;
    top = std::max(top, m.mean);
    if (std::isfinite(m.ci95_high)) top = std::max(top, m.ci95_high);
  }
  double lo = 0, hi = top > 0 ? top * 1.04 : 1;
  const Ticks ticks = linear_ticks(lo, hi, 5, true);
  double tick_width = 0;
  for (double v : ticks.values) tick_width = std::max(tick_width, text_width(ticks.label(v), kFont));

  const CategoryAxis axis = category_axis(c);
  const double n = static_cast<double>(std::max<std::size_t>(c.envs.size(), 1));
  const double left = 30 + tick_width + 10, right = 16, top_margin = 22, plot_h = 220;
  const double width = left + axis.slot * n + right, height = top_margin + plot_h + axis.height;
  const Scale y{lo, hi, top_margin + plot_h, top_margin};

  std::string out = svg_open(
      "bars", id, width, height,
      fmt::format("{}: mean {} per environment with its 95% confidence interval{}", c.case_id, shown.unit(),
                  shown.better()));
  y_axis(out, y, ticks, left, left + axis.slot * n, fmt::format("mean {} (95% CI){}", shown.unit(), shown.better()));
  out += "<g class=\"marks\">\n";
  for (std::size_t i = 0; i < c.envs.size(); ++i) {
    const EnvironmentStats& e = c.envs[i];
    const auto s = shown.mean(e.runs);
    const double x = left + axis.slot * (static_cast<double>(i) + 0.5), bar = axis.slot * 0.56;
    if (s.n == 0 || !std::isfinite(s.mean)) {
      out += fmt::format(
          "<g class=\"mark no-data\"><title>{}: {}</title><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" "
          "font-style=\"italic\">no data</text></g>\n",
          html_escape(e.env), html_escape(no_data_reason(e)), px(x), px(y(0) - 8));
      continue;
    }
    // A rate's upper end is unbounded when the time's lower end reaches 0:
    // the whisker then runs to the top of the axis, without a cap.
    const bool has_ci = std::isfinite(s.ci95_low) && !std::isnan(s.ci95_high);
    const std::string tip = fmt::format(
        "{}: mean {} {}, 95% CI {}, {} run{}", e.env, shown.text(s.mean, s.mean), shown.unit(),
        has_ci ? shown.text(s.ci95_low, s.mean) + " .. " + shown.text(s.ci95_high, s.mean) : "n/a", s.n,
        s.n == 1 ? "" : "s");
    out += fmt::format("<g class=\"mark bar\" data-env=\"{}\"><title>{}</title>", html_escape(e.env), html_escape(tip));
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"{}\"/>",
                       px(x - bar / 2), px(y(s.mean)), px(bar), px(std::max(0.0, y(0) - y(s.mean))), fill_of(i), kInk);
    // A time cannot be negative: an interval reaching below 0 (two runs, wide
    // spread) stops at the axis, without a cap.
    if (has_ci)
      whisker(out, x, y(std::max(s.ci95_low, lo)), y(std::min(s.ci95_high, hi)), 12, s.ci95_low >= lo,
              s.ci95_high <= hi);
    const double label_at = y(has_ci ? std::min(std::max(s.mean, s.ci95_high), hi) : s.mean) - 6;
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\">{}</text></g>\n", px(x),
                       px(label_at), shown.text(s.mean, s.mean));
  }
  out += "</g>\n";
  draw_category_axis(out, c, axis, left, y(lo));
  out += "</svg>\n";
  return out;
}

std::string svg_box_plot(const CaseAnalysis& c, const std::string& id) {
  const Shown shown{c};
  // The run values in the unit shown: quartiles and whiskers are taken on
  // those, so a rate's box is a rate's.
  std::vector<std::vector<double>> values;
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& e : c.envs) {
    values.emplace_back();
    for (double v : e.run_values) {
      values.back().push_back(shown(v));
      if (std::isfinite(values.back().back())) lo = std::min(lo, values.back().back()), hi = std::max(hi, values.back().back());
    }
  }
  if (!(lo <= hi)) {
    lo = 0;
    hi = 1;
  } else {
    const double pad = hi > lo ? (hi - lo) * 0.06 : std::max(std::fabs(lo) * 0.05, 1e-6);
    const bool times = lo >= 0;
    lo -= pad;
    hi += pad;
    if (times) lo = std::max(lo, 0.0);  // no axis below 0 for times
  }
  const Ticks ticks = linear_ticks(lo, hi, 5, true);
  double tick_width = 0;
  for (double v : ticks.values) tick_width = std::max(tick_width, text_width(ticks.label(v), kFont));

  const CategoryAxis axis = category_axis(c);
  const double n = static_cast<double>(std::max<std::size_t>(c.envs.size(), 1));
  const double left = 30 + tick_width + 10, right = 16, top_margin = 14, plot_h = 228;
  const double width = left + axis.slot * n + right, height = top_margin + plot_h + axis.height;
  const Scale y{lo, hi, top_margin + plot_h, top_margin};

  std::string out = svg_open(
      "box", id, width, height,
      fmt::format("{}: the run values ({}) per environment: median, quartiles, whiskers to the furthest runs not "
                  "flagged, every run a dot, filled where flagged as an outlier ({})",
                  c.case_id, kOutlierRule,
                  c.micro ? fmt::format("in {}, each the {}", c.figure_unit, run_value_words(c))
                          : fmt::format("{} of one launch", c.unit)));
  y_axis(out, y, ticks, left, left + axis.slot * n,
         c.micro ? fmt::format("run value, {}{}", shown.unit(), shown.better())
                 : fmt::format("run {} ({})", c.run_statistic, c.unit));
  out += "<g class=\"marks\">\n";
  for (std::size_t i = 0; i < c.envs.size(); ++i) {
    const EnvironmentStats& e = c.envs[i];
    const double x = left + axis.slot * (static_cast<double>(i) + 0.5), box = axis.slot * 0.5;
    std::vector<double> v;
    for (double r : values[i])
      if (std::isfinite(r)) v.push_back(r);
    if (v.empty()) {
      out += fmt::format(
          "<g class=\"mark no-data\"><title>{}: {}</title><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" "
          "font-style=\"italic\">no data</text></g>\n",
          html_escape(e.env), html_escape(no_data_reason(e)), px(x), px((y.r0 + y.r1) / 2));
      continue;
    }
    const double q1 = percentile(v, 0.25), med = percentile(v, 0.5), q3 = percentile(v, 0.75);
    // One outlier rule in every report: the tables' modified z-score. The
    // whiskers reach the furthest runs it does not flag.
    auto flagged = [&](std::size_t run) {
      return std::find(e.outlier_runs.begin(), e.outlier_runs.end(), run) != e.outlier_runs.end();
    };
    double w_lo = q1, w_hi = q3;
    for (std::size_t k = 0; k < values[i].size(); ++k)
      if (std::isfinite(values[i][k]) && !flagged(k))
        w_lo = std::min(w_lo, values[i][k]), w_hi = std::max(w_hi, values[i][k]);
    auto text = [&](double value) { return shown.text(value, med); };
    const std::string tip = fmt::format(
        "{}: median {}, quartiles {} .. {}, whiskers {} .. {}, {} run{}; outliers: {}", e.env, text(med), text(q1),
        text(q3), text(w_lo), text(w_hi), v.size(), v.size() == 1 ? "" : "s",
        !e.outliers_assessed ? fmt::format("not assessed (fewer than {} runs)", kMinOutlierSample)
        : e.outlier_runs.empty() ? std::string("none")
                                 : fmt::format("{} flagged", e.outlier_runs.size()));
    out += fmt::format("<g class=\"mark boxplot\" data-env=\"{}\"><title>{}</title>", html_escape(e.env),
                       html_escape(tip));
    out += fmt::format(
        "<path d=\"M{0} {1}V{2}M{0} {3}V{4}M{5} {1}H{6}M{5} {4}H{6}\" stroke=\"{7}\" stroke-width=\"1.4\"/>", px(x),
        px(y(w_hi)), px(y(q3)), px(y(q1)), px(y(w_lo)), px(x - box / 4), px(x + box / 4), kInk);
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" fill-opacity=\"0.35\" stroke=\"{}\" "
        "stroke-width=\"1.4\"/>",
        px(x - box / 2), px(y(q3)), px(box), px(std::max(0.0, y(q1) - y(q3))), fill_of(i), kInk);
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"3\"/></g>\n",
                       px(x - box / 2), px(y(med)), px(x + box / 2), px(y(med)), kInk);
    // Every run as a dot, in the order measured, spread sideways by the
    // golden ratio: the same picture every time the report is made.
    out += fmt::format("<g class=\"runs\" data-env=\"{}\">", html_escape(e.env));
    for (std::size_t k = 0; k < values[i].size(); ++k) {
      const double r = values[i][k];
      if (!std::isfinite(r)) continue;
      const double spread = std::fmod(static_cast<double>(k + 1) * 0.6180339887498949, 1.0) - 0.5;
      const bool outlier = flagged(k);
      out += fmt::format(
          "<circle class=\"{}\" cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\" stroke=\"{}\" stroke-width=\"1\"><title>{}, "
          "run {} of {}: {} {}{}</title></circle>",
          outlier ? "run outlier" : "run", px(x + spread * box * 0.7), px(y(r)), outlier ? kInk : "#ffffff", kInk,
          html_escape(e.env), k + 1, e.run_values.size(), text(r), html_escape(shown.unit()),
          outlier ? " (an outlier: modified z-score above 3.5)" : "");
    }
    out += "</g>\n";
  }
  out += "</g>\n";
  draw_category_axis(out, c, axis, left, y.r0);
  out += "</svg>\n";
  return out;
}

std::string svg_overhead_chart(const Analysis& analysis, CaseKind kind, const std::string& id) {
  struct Row {
    const CaseAnalysis* c;
    const Overhead* o;
    std::size_t env_index;
    std::size_t group;
  };
  std::vector<Row> rows;
  std::vector<std::pair<std::string, std::size_t>> legend;  // env, place in the plan
  std::size_t group = 0;
  for (const auto& c : analysis.cases) {
    if (kind_of(c) != kind || c.overheads.empty()) continue;
    for (const auto& o : c.overheads) {
      std::size_t place = 0;
      while (place < c.envs.size() && c.envs[place].env != o.env) ++place;
      rows.push_back({&c, &o, place, group});
      if (std::none_of(legend.begin(), legend.end(), [&](const auto& l) { return l.first == o.env; }))
        legend.emplace_back(o.env, place);
    }
    ++group;
  }
  if (rows.empty()) return "";

  // The axis spans 1.0 and every ratio; intervals widen it, but only up to
  // twice that span on either side, so one very wide interval (few runs, a
  // noisy baseline) cannot squash the rest. An interval cut there ends in an
  // arrow; its tooltip keeps the figures.
  double r_lo = 1, r_hi = 1;
  for (const auto& r : rows)
    if (r.o->compared && std::isfinite(r.o->estimate.ratio) && r.o->estimate.ratio > 0)
      r_lo = std::min(r_lo, r.o->estimate.ratio), r_hi = std::max(r_hi, r.o->estimate.ratio);
  // Start-up and I/O can differ many times over between environments:
  // a log axis keeps every ratio readable there.
  const bool log = kind != CaseKind::training && r_hi / r_lo > 4;
  auto to_axis = [log](double v) { return log ? (v > 0 ? std::log10(v) : -INFINITY) : v; };
  const double core_lo = to_axis(r_lo), core_hi = to_axis(r_hi);
  const double reach = std::max(core_hi - core_lo, log ? 0.3 : 0.05) * (log ? 1 : 2);
  double a_lo = core_lo, a_hi = core_hi;
  for (const auto& r : rows) {
    if (!r.o->compared || !std::isfinite(r.o->estimate.ratio)) continue;
    const RatioEstimate& e = r.o->estimate;
    if (std::isnan(e.ci95_low) || std::isnan(e.ci95_high)) continue;
    // (On a log axis an end at or below 0 does not widen it: it has no place there.)
    if (const double t = to_axis(e.ci95_low); std::isfinite(t)) a_lo = std::min(a_lo, std::max(t, core_lo - reach));
    a_hi = std::max(a_hi, std::min(to_axis(e.ci95_high), core_hi + reach));
  }
  double lo = 0, hi = 0;
  Ticks ticks;
  if (log) {
    lo = std::pow(10.0, a_lo) / 1.15;
    hi = std::pow(10.0, a_hi) * 1.15;
    ticks = log_ticks(lo, hi);
  } else {
    const double pad = std::max((a_hi - a_lo) * 0.06, 0.01);
    lo = a_lo - pad;
    hi = a_hi + pad;
    ticks = linear_ticks(lo, hi, 6, true);
  }

  std::vector<std::string> labels;
  double label_width = 0;
  for (const auto& r : rows) {
    labels.push_back(shorten(r.c->case_id + " \u00b7 " + r.o->env, 52));
    label_width = std::max(label_width, text_width(labels.back(), kFont));
  }
  const double row_h = 24, top_margin = 26, axis_h = 46;
  const double left = std::clamp(label_width + 18, 120.0, 360.0);
  const double plot_w = 480, right = 24, width = left + plot_w + right;
  // The legend: one marker and name per environment, wrapped to the width.
  std::vector<std::pair<double, double>> legend_at;
  double lx = left, ly = top_margin + row_h * static_cast<double>(rows.size()) + axis_h + 4;
  for (const auto& [env, place] : legend) {
    const double w = 22 + text_width(shorten(env, 40), kFont) + 18;
    if (lx + w > width - right && lx > left) lx = left, ly += 20;
    legend_at.emplace_back(lx, ly);
    lx += w;
  }
  const double legend_note_y = ly + 22;
  const double height = legend_note_y + 26;
  const Scale x{lo, hi, left, left + plot_w, log};
  const double plot_top = top_margin, plot_bottom = top_margin + row_h * static_cast<double>(rows.size());

  const bool micro = kind == CaseKind::micro;
  std::string out =
      svg_open(kind == CaseKind::training ? std::string("overhead") : fmt::format("overhead {}", kind_slug(kind)), id,
               width, height,
               fmt::format("{}: ratio of {} against {} with its 95% CI (Fieller); 1.0 is no overhead",
                           kind == CaseKind::startup ? "Container start-up"
                           : micro                   ? "Micro-benchmarks"
                                                     : "Training",
                           micro ? "mean times per operation" : "means", analysis.baseline));

  // Bands: one per case, alternating, so the rows of a case read together.
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].group % 2) continue;
    out += fmt::format("<rect class=\"band\" x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#efefef\"/>",
                       px(plot_top + row_h * static_cast<double>(i)), px(width), px(row_h));
  }
  out += "\n<g class=\"axis x\">\n";
  for (double v : ticks.values) {
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>", px(x(v)), px(plot_top),
                       px(plot_bottom), kGrid);
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>", px(x(v)), px(plot_bottom),
                       px(plot_bottom + 5), kInk);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px(x(v)), px(plot_bottom + 18),
                       html_escape(ticks.label(v)));
  }
  out += fmt::format("<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"{3}\"/>\n", px(left),
                     px(left + plot_w), px(plot_bottom), kInk);
  out += fmt::format("<text class=\"axis-title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     px(left + plot_w / 2), px(plot_bottom + 38),
                     html_escape(fmt::format("ratio of {}, environment / {}{}: right of 1.0 is slower",
                                             micro ? "mean time per operation" : "means", analysis.baseline,
                                             log ? " (log scale)" : "")));
  out += "</g>\n";
  out += fmt::format(
      "<g class=\"reference\"><title>1.0: the same mean as {0}, no overhead</title>"
      "<line x1=\"{1}\" y1=\"{2}\" x2=\"{1}\" y2=\"{3}\" stroke=\"{4}\" stroke-width=\"1.5\" "
      "stroke-dasharray=\"5 3\"/><text x=\"{1}\" y=\"{5}\" text-anchor=\"middle\" font-size=\"11\">"
      "1.0 = no overhead</text></g>\n",
      html_escape(analysis.baseline), px(x(1.0)), px(plot_top - 4), px(plot_bottom), kInk, px(plot_top - 9));

  out += "<g class=\"marks\">\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const Overhead& o = *r.o;
    const RatioEstimate& e = o.estimate;
    const double cy = plot_top + row_h * (static_cast<double>(i) + 0.5);
    out += fmt::format(
        "<text class=\"row-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" dominant-baseline=\"middle\">"
        "<title>{}</title>{}</text>",
        px(left - 10), px(cy), html_escape(r.c->case_id + ", " + o.env + " vs " + analysis.baseline),
        html_escape(labels[i]));
    if (!o.compared) {
      out += fmt::format(
          "<g class=\"mark not-compared\"><title>{}, {} vs {}: NOT COMPARED, the environments did not run "
          "like for like</title><text x=\"{}\" y=\"{}\" dominant-baseline=\"middle\" font-weight=\"700\">"
          "NOT COMPARED</text></g>\n",
          html_escape(r.c->case_id), html_escape(o.env), html_escape(analysis.baseline), px(left + 8), px(cy));
      continue;
    }
    if (!std::isfinite(e.ratio) || !(e.ratio > 0)) {
      out += fmt::format(
          "<g class=\"mark no-data\"><title>{}, {}: no ratio</title><text x=\"{}\" y=\"{}\" "
          "dominant-baseline=\"middle\" font-style=\"italic\">n/a</text></g>\n",
          html_escape(r.c->case_id), html_escape(o.env), px(left + 8), px(cy));
      continue;
    }
    const bool has_ci = !std::isnan(e.ci95_low) && !std::isnan(e.ci95_high);
    const std::string tip =
        fmt::format("{}, {} vs {}: {} {:.4f} ({}), {}; {}{}", r.c->case_id, o.env, analysis.baseline,
                    ratio_label(*r.c), e.ratio, format_percent_change(e.ratio), ratio_interval_words(e),
                    o.verdict_text,
                    o.mismatch_allowed ? "; MISMATCH ALLOWED: not like for like (--allow-mismatch)" : "");
    out += fmt::format("<g class=\"mark ratio{}\" data-env=\"{}\"><title>{}</title>",
                       o.mismatch_allowed ? " mismatch-allowed" : "", html_escape(o.env), html_escape(tip));
    if (has_ci) {
      // Ends beyond the axis (or at or below 0 on a log axis) stop at its
      // edge with an arrow instead of a cap.
      const bool cut_lo = !(e.ci95_low > lo), cut_hi = !(e.ci95_high < hi);
      const double x0 = cut_lo ? x.r0 : x(e.ci95_low), x1 = cut_hi ? x.r1 : x(e.ci95_high);
      std::string d = fmt::format("M{} {}H{}", px(x0), px(cy), px(x1));
      d += cut_lo ? fmt::format("M{0} {1}L{2} {3}M{0} {1}L{2} {4}", px(x0), px(cy), px(x0 + 7), px(cy - 4), px(cy + 4))
                  : fmt::format("M{0} {1}V{2}", px(x0), px(cy - 5), px(cy + 5));
      d += cut_hi ? fmt::format("M{0} {1}L{2} {3}M{0} {1}L{2} {4}", px(x1), px(cy), px(x1 - 7), px(cy - 4), px(cy + 4))
                  : fmt::format("M{0} {1}V{2}", px(x1), px(cy - 5), px(cy + 5));
      out += fmt::format("<path d=\"{}\" stroke=\"{}\" stroke-width=\"1.8\" fill=\"none\"{}/>", d, kInk,
                         o.mismatch_allowed ? " stroke-dasharray=\"4 3\"" : "");
    } else {
      out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" dominant-baseline=\"middle\">no CI</text>",
                         px(x(e.ratio) + 10), px(cy));
    }
    out += marker(r.env_index, x(e.ratio), cy, fill_of(r.env_index), o.mismatch_allowed);
    out += "</g>\n";
  }
  out += "</g>\n<g class=\"legend\">\n";
  for (std::size_t i = 0; i < legend.size(); ++i) {
    const auto& [env, place] = legend[i];
    const auto [lx_i, ly_i] = legend_at[i];
    out += marker(place, lx_i + 8, ly_i, fill_of(place), false);
    out += fmt::format("<text x=\"{}\" y=\"{}\" dominant-baseline=\"middle\"><title>{}</title>{}</text>\n",
                       px(lx_i + 22), px(ly_i), html_escape(env), html_escape(shorten(env, 40)));
  }
  out += fmt::format(
      "<text x=\"{0}\" y=\"{1}\" font-size=\"11\">point: ratio of the means; line: its 95% CI; "
      "arrow: the interval goes on beyond the axis</text>\n<text x=\"{0}\" y=\"{2}\" font-size=\"11\">"
      "hollow marker, dashed line: MISMATCH ALLOWED (not like for like)</text>\n",
      px(left), px(legend_note_y), px(legend_note_y + 14));
  out += "</g>\n</svg>\n";
  return out;
}

std::string render_html(const Analysis& analysis, const nlohmann::json& manifest) {
  const auto facts = run_facts(analysis, manifest);
  std::string out;
  out +=
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>dlcbench report: run {}</title>\n", html_escape(facts[0].second));
  out += fmt::format("<style>{}</style>\n</head>\n<body>\n", kStyle);

  out += "<header id=\"run\">\n";
  out += fmt::format("<h1>dlcbench report: run {}</h1>\n", html_escape(facts[0].second));
  if (const std::string warning = status_warning(manifest); !warning.empty())
    out += fmt::format("<p class=\"warning status {}\" id=\"status-warning\" role=\"alert\">{}</p>\n",
                       status_class(manifest), html_escape(warning));
  out += "<dl class=\"facts\">\n";
  for (const auto& [key, value] : facts) {
    const std::string shown = key == "Command" ? "<code>" + html_escape(value) + "</code>" : html_escape(value);
    out += fmt::format("<dt>{}</dt><dd id=\"fact-{}\">{}</dd>\n", html_escape(key), html_escape(key), shown);
  }
  if (analysis.allow_mismatch)
    out +=
        "<dt>Allow mismatch</dt><dd>yes (--allow-mismatch): comparisons that are not like for like are marked</dd>\n";
  out += fmt::format("</dl>\n<p class=\"method\">{}</p>\n</header>\n", html_escape(kRunMethod));

  if (const auto preflight = preflight_lines(manifest); !preflight.empty()) {
    out += "<section id=\"preflight\">\n<h2>Preflight differences</h2>\n<ul class=\"preflight\">\n";
    for (const auto& l : preflight) out += fmt::format("<li>{}</li>\n", html_escape(l));
    out += "</ul>\n</section>\n";
  }

  // As in the Markdown: training always has its heading, the other
  // sections appear when they have cases.
  out += "<section id=\"summary\">\n";
  for (CaseKind kind : kCaseKinds) {
    const bool any = has_cases(analysis, kind);
    if (!any && kind != CaseKind::training) continue;
    out += fmt::format("<h2>Summary: {}</h2>\n", kind_name(kind));
    if (!any) {
      out += "<p class=\"chart-missing\">No training cases in this run.</p>\n";
      continue;
    }
    out += fmt::format("<p class=\"caption\">{}</p>\n", html_escape(summary_caption(kind)));
    html_table(out, summary_table(analysis, kind), fmt::format("summary {}", kind_slug(kind)),
               fmt::format("summary-{}", kind_slug(kind)));
  }
  if (const TextTable t = backend_table(analysis); !t.rows.empty()) {
    out += "<h2>Back ends side by side</h2>\n";
    out += fmt::format("<p class=\"caption\">{}</p>\n", html_escape(kBackendTableCaption));
    html_table(out, t, "summary backends", "summary-backends");
  }
  out += "</section>\n";

  out += fmt::format("<section id=\"overhead\">\n<h2>Overhead against {}</h2>\n", html_escape(analysis.baseline));
  bool any_overhead = false;
  for (CaseKind kind : kCaseKinds) {
    const std::string chart = svg_overhead_chart(analysis, kind, fmt::format("overhead-{}", kind_slug(kind)));
    if (chart.empty()) continue;
    any_overhead = true;
    out += fmt::format(
        "<figure>\n{}<figcaption>{}: each environment's mean {}over the baseline's, with Fieller's 95% "
        "confidence interval; a line wholly within 0.95 .. 1.05 shows no measurable overhead, one that crosses "
        "1.0 and reaches beyond is inconclusive. Hover a mark for "
        "its figures.</figcaption>\n</figure>\n",
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
  out += "</section>\n";

  out += "<section id=\"cases\">\n<h2>Details</h2>\n";
  if (analysis.cases.empty()) out += "<p class=\"chart-missing\">No cases in this run.</p>\n";
  std::size_t index = 0;
  for (CaseKind kind : kCaseKinds) {
    for (const auto& c : analysis.cases) {
      if (kind_of(c) != kind) continue;
      const std::string id = fmt::format("case-{}", ++index);
      out += fmt::format("<section class=\"case{}\" id=\"{}\">\n<h3>{}</h3>\n<p class=\"caption\">{}</p>\n",
                         kind == CaseKind::training ? std::string() : fmt::format(" {}", kind_slug(kind)), id,
                         html_escape(c.case_id), html_escape(case_caption(c)));
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
      html_table(out, detail_table(c), "detail", id + "-detail");
      const auto comparisons = comparison_lines(c, analysis.baseline);
      if (!comparisons.empty()) {
        out += "<ul class=\"comparisons\">\n";
        for (const auto& l : comparisons) {
          const char* cls = !l.compared          ? " class=\"not-compared\""
                            : l.mismatch_allowed ? " class=\"mismatch-allowed\""
                                                 : "";
          out += fmt::format("<li><span{}>{}</span>", cls, html_escape(l.headline));
          if (!l.details.empty()) {
            out += "\n<ul class=\"mismatches\">\n";
            for (const auto& d : l.details) out += fmt::format("<li>{}</li>\n", html_escape(d));
            out += "</ul>";
          }
          out += "</li>\n";
        }
        out += "</ul>\n";
      }
      if (const auto failures = failure_lines(c); !failures.empty()) {
        out += "<ul class=\"failures\">\n";
        for (const auto& f : failures) out += fmt::format("<li>{}</li>\n", html_escape(f));
        out += "</ul>\n";
      }
      out += "</section>\n";
    }
  }
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

}  // namespace dlcbench
