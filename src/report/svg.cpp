// The charts of the HTML report, drawn as inline SVG: a small plotting kit
// (scales, ticks, axes, markers) and the bar chart, box plot and overhead
// chart built on it.
#include "report/svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <iterator>
#include <vector>

#include "core/statistics.h"
#include "core/words.h"
#include "report/figures.h"

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

// Vertical grid lines from `top` to `bottom` (the one at zero in ink), their
// labels below with `suffix`, and the axis title under them, centred on the
// scale's range: the x axis of the charts whose bars run sideways.
void x_axis(std::string& out, const Scale& x, const Ticks& ticks, double top, double bottom, const char* suffix,
            const std::string& title) {
  out += "<g class=\"axis x\">\n";
  for (double v : ticks.values) {
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>", px(x(v)), px(top),
                       px(bottom), v == 0 ? kInk : kGrid);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}{}</text>\n", px(x(v)), px(bottom + 14),
                       html_escape(ticks.label(v)), suffix);
  }
  out += fmt::format("<text class=\"axis-title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n</g>\n",
                     px((x.r0 + x.r1) / 2), px(bottom + 32), html_escape(title));
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

namespace {

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

// The frame of a chart with one slot per environment: the y scale over
// [lo, hi] widened to its ticks, room for the tick labels on the left and
// for the environment names below.
struct SlotFrame {
  Ticks ticks;
  CategoryAxis axis;
  double left = 0, plot_right = 0, width = 0, height = 0;
  Scale y;
  double slot_x(std::size_t i) const { return left + axis.slot * (static_cast<double>(i) + 0.5); }
};

SlotFrame slot_frame(const CaseAnalysis& c, double lo, double hi, double top_margin, double plot_h) {
  SlotFrame f;
  f.ticks = linear_ticks(lo, hi, 5, true);
  double tick_width = 0;
  for (double v : f.ticks.values) tick_width = std::max(tick_width, text_width(f.ticks.label(v), kFont));
  f.axis = category_axis(c);
  const double n = static_cast<double>(std::max<std::size_t>(c.envs.size(), 1));
  f.left = 30 + tick_width + 10;
  f.plot_right = f.left + f.axis.slot * n;
  f.width = f.plot_right + 16;
  f.height = top_margin + plot_h + f.axis.height;
  f.y = Scale{lo, hi, top_margin + plot_h, top_margin};
  return f;
}

void no_data_mark(std::string& out, const EnvironmentStats& e, double x, double y) {
  out += fmt::format(
      "<g class=\"mark no-data\"><title>{}: {}</title><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" "
      "font-style=\"italic\">no data</text></g>\n",
      html_escape(e.env), html_escape(no_data_reason(e)), px(x), px(y));
}

// One environment's bar: its mean with the 95% CI as a whisker.
void draw_bar(std::string& out, const Shown& shown, const EnvironmentStats& e, std::size_t i, const SlotFrame& f) {
  const auto s = shown.mean(e.runs);
  const Scale& y = f.y;
  const double x = f.slot_x(i), bar = f.axis.slot * 0.56;
  if (s.n == 0 || !std::isfinite(s.mean)) return no_data_mark(out, e, x, y(0) - 8);
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
  const double lo = y.d0, hi = y.d1;
  if (has_ci)
    whisker(out, x, y(std::max(s.ci95_low, lo)), y(std::min(s.ci95_high, hi)), 12, s.ci95_low >= lo,
            s.ci95_high <= hi);
  const double label_at = y(has_ci ? std::min(std::max(s.mean, s.ci95_high), hi) : s.mean) - 6;
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\">{}</text></g>\n", px(x),
                     px(label_at), shown.text(s.mean, s.mean));
}

// The run values of every environment in the unit shown (quartiles and
// whiskers are taken on those, so a rate's box is a rate's), and the range
// the axis needs for them.
struct ShownRuns {
  std::vector<std::vector<double>> values;
  double lo = 0, hi = 1;
};

ShownRuns shown_runs(const CaseAnalysis& c, const Shown& shown) {
  ShownRuns r;
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& e : c.envs) {
    r.values.emplace_back();
    for (double v : e.run_values) {
      const double value = shown(v);
      r.values.back().push_back(value);
      if (std::isfinite(value)) lo = std::min(lo, value), hi = std::max(hi, value);
    }
  }
  if (!(lo <= hi)) return r;
  const double pad = hi > lo ? (hi - lo) * 0.06 : std::max(std::fabs(lo) * 0.05, 1e-6);
  r.lo = lo - pad;
  r.hi = hi + pad;
  if (lo >= 0) r.lo = std::max(r.lo, 0.0);  // no axis below 0 for times
  return r;
}

// Every run as a dot, in the order measured, spread sideways by the golden
// ratio: the same picture every time the report is made.
void draw_run_dots(std::string& out, const Shown& shown, const EnvironmentStats& e, const std::vector<double>& values,
                   double x, double box, const Scale& y, double typical) {
  out += fmt::format("<g class=\"runs\" data-env=\"{}\">", html_escape(e.env));
  for (std::size_t k = 0; k < values.size(); ++k) {
    const double r = values[k];
    if (!std::isfinite(r)) continue;
    const double spread = std::fmod(static_cast<double>(k + 1) * 0.6180339887498949, 1.0) - 0.5;
    const bool outlier = std::find(e.outlier_runs.begin(), e.outlier_runs.end(), k) != e.outlier_runs.end();
    out += fmt::format(
        "<circle class=\"{}\" cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\" stroke=\"{}\" stroke-width=\"1\"><title>{}, "
        "run {} of {}: {} {}{}</title></circle>",
        outlier ? "run outlier" : "run", px(x + spread * box * 0.7), px(y(r)), outlier ? kInk : "#ffffff", kInk,
        html_escape(e.env), k + 1, e.run_values.size(), shown.text(r, typical), html_escape(shown.unit()),
        outlier ? " (an outlier: modified z-score above 3.5)" : "");
  }
  out += "</g>\n";
}

// One environment's box: median, quartiles and whiskers, then its runs.
void draw_box(std::string& out, const Shown& shown, const EnvironmentStats& e, const std::vector<double>& values,
              std::size_t i, const SlotFrame& f) {
  const Scale& y = f.y;
  const double x = f.slot_x(i), box = f.axis.slot * 0.5;
  const auto finite = std::count_if(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
  if (finite == 0) return no_data_mark(out, e, x, (y.r0 + y.r1) / 2);
  // One outlier rule in every report: the tables' modified z-score. The
  // whiskers reach the furthest runs it does not flag.
  const BoxPlot b = box_plot(values, e.outlier_runs);
  auto text = [&](double value) { return shown.text(value, b.median); };
  const std::string tip = fmt::format(
      "{}: median {}, quartiles {} .. {}, whiskers {} .. {}, {} run{}; outliers: {}", e.env, text(b.median),
      text(b.q1), text(b.q3), text(b.whisker_low), text(b.whisker_high), finite, finite == 1 ? "" : "s",
      !e.outliers_assessed    ? fmt::format("not assessed (fewer than {} runs)", kMinOutlierSample)
      : e.outlier_runs.empty() ? std::string("none")
                               : fmt::format("{} flagged", e.outlier_runs.size()));
  out += fmt::format("<g class=\"mark boxplot\" data-env=\"{}\"><title>{}</title>", html_escape(e.env),
                     html_escape(tip));
  out += fmt::format(
      "<path d=\"M{0} {1}V{2}M{0} {3}V{4}M{5} {1}H{6}M{5} {4}H{6}\" stroke=\"{7}\" stroke-width=\"1.4\"/>", px(x),
      px(y(b.whisker_high)), px(y(b.q3)), px(y(b.q1)), px(y(b.whisker_low)), px(x - box / 4), px(x + box / 4), kInk);
  out += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" fill-opacity=\"0.35\" stroke=\"{}\" "
      "stroke-width=\"1.4\"/>",
      px(x - box / 2), px(y(b.q3)), px(box), px(std::max(0.0, y(b.q1) - y(b.q3))), fill_of(i), kInk);
  out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"3\"/></g>\n",
                     px(x - box / 2), px(y(b.median)), px(x + box / 2), px(y(b.median)), kInk);
  draw_run_dots(out, shown, e, values, x, box, y, b.median);
}

}  // namespace

std::string svg_bar_chart(const CaseAnalysis& c, const std::string& id) {
  const Shown shown{c};
  double top = 0;
  for (const auto& e : c.envs) {
    const auto m = shown.mean(e.runs);
    if (m.n == 0 || !std::isfinite(m.mean)) continue;
    top = std::max(top, m.mean);
    if (std::isfinite(m.ci95_high)) top = std::max(top, m.ci95_high);
  }
  const SlotFrame f = slot_frame(c, 0, top > 0 ? top * 1.04 : 1, 22, 220);
  std::string out = svg_open(
      "bars", id, f.width, f.height,
      fmt::format("{}: mean {} per environment with its 95% confidence interval{}", c.case_id, shown.unit(),
                  shown.better()));
  y_axis(out, f.y, f.ticks, f.left, f.plot_right, fmt::format("mean {} (95% CI){}", shown.unit(), shown.better()));
  out += "<g class=\"marks\">\n";
  for (std::size_t i = 0; i < c.envs.size(); ++i) draw_bar(out, shown, c.envs[i], i, f);
  out += "</g>\n";
  draw_category_axis(out, c, f.axis, f.left, f.y.r0);
  out += "</svg>\n";
  return out;
}

std::string svg_latency_chart(const CaseAnalysis& c, const std::string& id) {
  // Latencies span decades (p50 a few ms, p99.9 behind a throttled period
  // hundreds): a log axis, each quantile a group, a bar per environment.
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& e : c.envs)
    for (const auto& runs : e.latency_runs)
      for (double v : runs)
        if (std::isfinite(v) && v > 0) lo = std::min(lo, 1e3 * v), hi = std::max(hi, 1e3 * v);
  if (!(hi > 0)) return "";
  lo = std::pow(10.0, std::floor(std::log10(lo)));
  hi = std::pow(10.0, std::ceil(std::log10(hi * 1.0001)));
  const double left = 64, top = 12, plot_height = 220, bar = 16, gap = 18;
  const double group = bar * static_cast<double>(c.envs.size()) + gap;
  const double width = left + group * static_cast<double>(std::size(kLatencyQuantiles)) + 140;
  const double height = top + plot_height + 34;
  const Scale y{lo, hi, top + plot_height, top, true};
  std::string out = svg_open("latency", id, width, height,
                             fmt::format("{}: latency per quantile and environment, median of runs with the runs' "
                                         "range, ms on a log scale",
                                         c.case_id));
  y_axis(out, y, log_ticks(lo, hi), left, left + group * static_cast<double>(std::size(kLatencyQuantiles)),
         "latency, ms (log scale)");
  out += "<g class=\"marks\">\n";
  for (std::size_t q = 0; q < std::size(kLatencyQuantiles); ++q) {
    const double x0 = left + gap / 2 + group * static_cast<double>(q);
    for (std::size_t i = 0; i < c.envs.size(); ++i) {
      const EnvironmentStats& e = c.envs[i];
      if (e.latency_runs.size() <= q || e.latency_runs[q].empty()) continue;
      const auto& runs = e.latency_runs[q];
      const double m = 1e3 * median(runs);
      const auto [low, high] = std::minmax_element(runs.begin(), runs.end());
      const double x = x0 + bar * static_cast<double>(i);
      out += fmt::format(
          "<g class=\"mark\" data-env=\"{}\" data-quantile=\"{}\"><title>{} {}: {:.3f} ms (median of {} runs; range "
          "{:.3f} .. {:.3f})</title>",
          html_escape(e.env), kLatencyQuantiles[q].name, html_escape(e.env), kLatencyQuantiles[q].name, m, runs.size(),
          1e3 * *low, 1e3 * *high);
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"{}\"/>", px(x + 1),
                         px(y(m)), px(bar - 2), px(std::max(0.0, y.r0 - y(m))), fill_of(i), kInk);
      out += fmt::format("<path d=\"M{0} {1}V{2}\" stroke=\"{3}\" stroke-width=\"1.4\"/></g>\n", px(x + bar / 2),
                         px(y(1e3 * *high)), px(y(1e3 * *low)), kInk);
    }
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       px(x0 + bar * static_cast<double>(c.envs.size()) / 2), px(y.r0 + 18), kLatencyQuantiles[q].name);
  }
  out += "</g>\n<g class=\"legend\">\n";
  const double legend_x = left + group * static_cast<double>(std::size(kLatencyQuantiles)) + 12;
  for (std::size_t i = 0; i < c.envs.size(); ++i)
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\" stroke=\"{}\"/><text x=\"{}\" y=\"{}\" "
        "dominant-baseline=\"middle\">{}</text>\n",
        px(legend_x), px(top + 16 * static_cast<double>(i)), fill_of(i), kInk, px(legend_x + 16),
        px(top + 16 * static_cast<double>(i) + 5), html_escape(shorten(c.envs[i].env, 18)));
  out += "</g>\n</svg>\n";
  return out;
}

std::string svg_box_plot(const CaseAnalysis& c, const std::string& id) {
  const Shown shown{c};
  const ShownRuns runs = shown_runs(c, shown);
  const SlotFrame f = slot_frame(c, runs.lo, runs.hi, 14, 228);
  std::string out = svg_open(
      "box", id, f.width, f.height,
      fmt::format("{}: the run values ({}) per environment: median, quartiles, whiskers to the furthest runs not "
                  "flagged, every run a dot, filled where flagged as an outlier ({})",
                  c.case_id, kOutlierRule,
                  c.micro ? fmt::format("in {}, each the {}", c.figure_unit, run_value_words(c))
                          : fmt::format("{} of one launch", c.unit)));
  y_axis(out, f.y, f.ticks, f.left, f.plot_right,
         c.micro ? fmt::format("run value, {}{}", shown.unit(), shown.better())
                 : fmt::format("run {} ({})", c.run_statistic, c.unit));
  out += "<g class=\"marks\">\n";
  for (std::size_t i = 0; i < c.envs.size(); ++i) draw_box(out, shown, c.envs[i], runs.values[i], i, f);
  out += "</g>\n";
  draw_category_axis(out, c, f.axis, f.left, f.y.r0);
  out += "</svg>\n";
  return out;
}

namespace {

// One row of the overhead chart: an environment's ratio in one case.
struct RatioRow {
  const CaseAnalysis* c;
  const Overhead* o;
  std::size_t env_index;  // its place in the plan: colour and marker
  std::size_t group;      // the case's place among the chart's cases: bands
  std::string label;
};

struct RatioRows {
  std::vector<RatioRow> rows;
  std::vector<std::pair<std::string, std::size_t>> legend;  // env, place in the plan
};

RatioRows ratio_rows(const Analysis& analysis, CaseKind kind) {
  RatioRows r;
  std::size_t group = 0;
  for (const auto& c : analysis.cases) {
    if (kind_of(c) != kind || c.overheads.empty()) continue;
    for (const auto& o : c.overheads) {
      std::size_t place = 0;
      while (place < c.envs.size() && c.envs[place].env != o.env) ++place;
      r.rows.push_back({&c, &o, place, group, shorten(c.case_id + " \u00b7 " + o.env, 52)});
      if (std::none_of(r.legend.begin(), r.legend.end(), [&](const auto& l) { return l.first == o.env; }))
        r.legend.emplace_back(o.env, place);
    }
    ++group;
  }
  return r;
}

struct RatioAxis {
  double lo = 0, hi = 0;
  Ticks ticks;
  bool log = false;
};

// What the overhead chart draws for a comparison: the verdict's estimate,
// the robust ratio with its interval (the mean's is in the tooltip).
RatioEstimate plotted(const Overhead& o) {
  RatioEstimate e;
  e.ratio = o.robust.ratio;
  e.ci95_low = o.robust.ci95_low;
  e.ci95_high = o.robust.ci95_high;
  e.interval = o.robust.bounded() ? RatioInterval::bounded : RatioInterval::none;
  return e;
}

// The axis spans 1.0 and every ratio; intervals widen it, but only up to
// twice that span on either side, so one very wide interval (few runs, a
// noisy baseline) cannot squash the rest. An interval cut there ends in an
// arrow; its tooltip keeps the figures.
RatioAxis ratio_axis(const std::vector<RatioRow>& rows, CaseKind kind) {
  double r_lo = 1, r_hi = 1;
  for (const auto& r : rows)
    if (r.o->compared && std::isfinite(r.o->robust.ratio) && r.o->robust.ratio > 0)
      r_lo = std::min(r_lo, r.o->robust.ratio), r_hi = std::max(r_hi, r.o->robust.ratio);
  RatioAxis axis;
  // Start-up and I/O can differ many times over between environments:
  // a log axis keeps every ratio readable there.
  axis.log = kind != CaseKind::training && r_hi / r_lo > 4;
  const bool log = axis.log;
  auto to_axis = [log](double v) { return log ? (v > 0 ? std::log10(v) : -INFINITY) : v; };
  const double core_lo = to_axis(r_lo), core_hi = to_axis(r_hi);
  const double reach = std::max(core_hi - core_lo, log ? 0.3 : 0.05) * (log ? 1 : 2);
  double a_lo = core_lo, a_hi = core_hi;
  for (const auto& r : rows) {
    if (!r.o->compared || !std::isfinite(r.o->robust.ratio)) continue;
    const RatioEstimate e = plotted(*r.o);
    if (std::isnan(e.ci95_low) || std::isnan(e.ci95_high)) continue;
    // (On a log axis an end at or below 0 does not widen it: it has no place there.)
    if (const double t = to_axis(e.ci95_low); std::isfinite(t)) a_lo = std::min(a_lo, std::max(t, core_lo - reach));
    a_hi = std::max(a_hi, std::min(to_axis(e.ci95_high), core_hi + reach));
  }
  if (log) {
    axis.lo = std::pow(10.0, a_lo) / 1.15;
    axis.hi = std::pow(10.0, a_hi) * 1.15;
    axis.ticks = log_ticks(axis.lo, axis.hi);
  } else {
    const double pad = std::max((a_hi - a_lo) * 0.06, 0.01);
    axis.lo = a_lo - pad;
    axis.hi = a_hi + pad;
    axis.ticks = linear_ticks(axis.lo, axis.hi, 6, true);
  }
  return axis;
}

// Where everything of the overhead chart goes: a row per ratio under the
// reference's label, the x axis, then the legend wrapped to the width.
struct RatioLayout {
  double row_h = 24, plot_top = 26, plot_bottom = 0, left = 0, plot_w = 480, width = 0, height = 0;
  std::vector<std::pair<double, double>> legend_at;
  double legend_note_y = 0;
  double row_y(std::size_t i) const { return plot_top + row_h * (static_cast<double>(i) + 0.5); }
};

RatioLayout ratio_layout(const RatioRows& r) {
  RatioLayout l;
  double label_width = 0;
  for (const auto& row : r.rows) label_width = std::max(label_width, text_width(row.label, kFont));
  const double axis_h = 46, right = 24;
  l.left = std::clamp(label_width + 18, 120.0, 360.0);
  l.width = l.left + l.plot_w + right;
  l.plot_bottom = l.plot_top + l.row_h * static_cast<double>(r.rows.size());
  double lx = l.left, ly = l.plot_bottom + axis_h + 4;
  for (const auto& [env, place] : r.legend) {
    const double w = 22 + text_width(shorten(env, 40), kFont) + 18;
    if (lx + w > l.width - right && lx > l.left) lx = l.left, ly += 20;
    l.legend_at.emplace_back(lx, ly);
    lx += w;
  }
  l.legend_note_y = ly + 22;
  l.height = l.legend_note_y + 26;
  return l;
}

// Bands (one per case, alternating, so the rows of a case read together),
// the x axis with its grid, and the reference line at 1.0.
void draw_ratio_frame(std::string& out, const RatioRows& r, const RatioAxis& axis, const RatioLayout& l,
                      const Scale& x, const std::string& axis_title, const std::string& baseline) {
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    if (r.rows[i].group % 2) continue;
    out += fmt::format("<rect class=\"band\" x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#efefef\"/>",
                       px(l.plot_top + l.row_h * static_cast<double>(i)), px(l.width), px(l.row_h));
  }
  out += "\n<g class=\"axis x\">\n";
  for (double v : axis.ticks.values) {
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>", px(x(v)), px(l.plot_top),
                       px(l.plot_bottom), kGrid);
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>", px(x(v)),
                       px(l.plot_bottom), px(l.plot_bottom + 5), kInk);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px(x(v)),
                       px(l.plot_bottom + 18), html_escape(axis.ticks.label(v)));
  }
  out += fmt::format("<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"{3}\"/>\n", px(l.left),
                     px(l.left + l.plot_w), px(l.plot_bottom), kInk);
  out += fmt::format("<text class=\"axis-title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     px(l.left + l.plot_w / 2), px(l.plot_bottom + 38), html_escape(axis_title));
  out += "</g>\n";
  out += fmt::format(
      "<g class=\"reference\"><title>1.0: the same time as {0}, no overhead</title>"
      "<line x1=\"{1}\" y1=\"{2}\" x2=\"{1}\" y2=\"{3}\" stroke=\"{4}\" stroke-width=\"1.5\" "
      "stroke-dasharray=\"5 3\"/><text x=\"{1}\" y=\"{5}\" text-anchor=\"middle\" font-size=\"11\">"
      "1.0 = no overhead</text></g>\n",
      html_escape(baseline), px(x(1.0)), px(l.plot_top - 4), px(l.plot_bottom), kInk, px(l.plot_top - 9));
}

// A ratio's 95% CI as a line; ends beyond the axis (or at or below 0 on a
// log axis) stop at its edge with an arrow instead of a cap.
std::string ratio_interval_path(const RatioEstimate& e, const Scale& x, double cy) {
  const bool cut_lo = !(e.ci95_low > x.d0), cut_hi = !(e.ci95_high < x.d1);
  const double x0 = cut_lo ? x.r0 : x(e.ci95_low), x1 = cut_hi ? x.r1 : x(e.ci95_high);
  std::string d = fmt::format("M{} {}H{}", px(x0), px(cy), px(x1));
  d += cut_lo ? fmt::format("M{0} {1}L{2} {3}M{0} {1}L{2} {4}", px(x0), px(cy), px(x0 + 7), px(cy - 4), px(cy + 4))
              : fmt::format("M{0} {1}V{2}", px(x0), px(cy - 5), px(cy + 5));
  d += cut_hi ? fmt::format("M{0} {1}L{2} {3}M{0} {1}L{2} {4}", px(x1), px(cy), px(x1 - 7), px(cy - 4), px(cy + 4))
              : fmt::format("M{0} {1}V{2}", px(x1), px(cy - 5), px(cy + 5));
  return d;
}

// One row: its label, then the ratio with its interval, or why there is none.
void draw_ratio_row(std::string& out, const RatioRow& r, double cy, double left, const Scale& x,
                    const std::string& baseline) {
  const Overhead& o = *r.o;
  const RatioEstimate e = plotted(o);
  out += fmt::format(
      "<text class=\"row-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" dominant-baseline=\"middle\">"
      "<title>{}</title>{}</text>",
      px(left - 10), px(cy), html_escape(r.c->case_id + ", " + o.env + " vs " + baseline), html_escape(r.label));
  if (!o.compared) {
    out += fmt::format(
        "<g class=\"mark not-compared\"><title>{}, {} vs {}: NOT COMPARED, the environments did not run "
        "like for like</title><text x=\"{}\" y=\"{}\" dominant-baseline=\"middle\" font-weight=\"700\">"
        "NOT COMPARED</text></g>\n",
        html_escape(r.c->case_id), html_escape(o.env), html_escape(baseline), px(left + 8), px(cy));
    return;
  }
  if (!std::isfinite(e.ratio) || !(e.ratio > 0)) {
    out += fmt::format(
        "<g class=\"mark no-data\"><title>{}, {}: no ratio</title><text x=\"{}\" y=\"{}\" "
        "dominant-baseline=\"middle\" font-style=\"italic\">n/a</text></g>\n",
        html_escape(r.c->case_id), html_escape(o.env), px(left + 8), px(cy));
    return;
  }
  const std::string tip = fmt::format(
      "{}, {} vs {}: {} {:.4f} ({}), {}; {}{}", r.c->case_id, o.env, baseline, ratio_label(*r.c), e.ratio,
      format_percent_change(e.ratio), robust_interval_words(o.robust), o.verdict_text,
      o.mismatch_allowed ? "; MISMATCH ALLOWED: not like for like (--allow-mismatch)" : "");
  out += fmt::format("<g class=\"mark ratio{}\" data-env=\"{}\"><title>{}</title>",
                     o.mismatch_allowed ? " mismatch-allowed" : "", html_escape(o.env), html_escape(tip));
  if (!std::isnan(e.ci95_low) && !std::isnan(e.ci95_high))
    out += fmt::format("<path d=\"{}\" stroke=\"{}\" stroke-width=\"1.8\" fill=\"none\"{}/>",
                       ratio_interval_path(e, x, cy), kInk, o.mismatch_allowed ? " stroke-dasharray=\"4 3\"" : "");
  else
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" dominant-baseline=\"middle\">no CI</text>",
                       px(x(e.ratio) + 10), px(cy));
  out += marker(r.env_index, x(e.ratio), cy, fill_of(r.env_index), o.mismatch_allowed);
  out += "</g>\n";
}

void draw_ratio_legend(std::string& out, const RatioRows& r, const RatioLayout& l) {
  out += "<g class=\"legend\">\n";
  for (std::size_t i = 0; i < r.legend.size(); ++i) {
    const auto& [env, place] = r.legend[i];
    const auto [lx, ly] = l.legend_at[i];
    out += marker(place, lx + 8, ly, fill_of(place), false);
    out += fmt::format("<text x=\"{}\" y=\"{}\" dominant-baseline=\"middle\"><title>{}</title>{}</text>\n",
                       px(lx + 22), px(ly), html_escape(env), html_escape(shorten(env, 40)));
  }
  out += fmt::format(
      "<text x=\"{0}\" y=\"{1}\" font-size=\"11\">point: the verdict's ratio; line: its 95% CI; "
      "arrow: the interval goes on beyond the axis</text>\n<text x=\"{0}\" y=\"{2}\" font-size=\"11\">"
      "hollow marker, dashed line: MISMATCH ALLOWED (not like for like)</text>\n",
      px(l.left), px(l.legend_note_y), px(l.legend_note_y + 14));
  out += "</g>\n";
}

}  // namespace

std::string svg_overhead_chart(const Analysis& analysis, CaseKind kind, const std::string& id) {
  const RatioRows r = ratio_rows(analysis, kind);
  if (r.rows.empty()) return "";
  const RatioAxis axis = ratio_axis(r.rows, kind);
  const RatioLayout l = ratio_layout(r);
  const Scale x{axis.lo, axis.hi, l.left, l.left + l.plot_w, axis.log};
  const bool micro = kind == CaseKind::micro;
  const std::string compared = micro ? "times per operation" : "times";
  std::string out = svg_open(
      kind == CaseKind::training ? std::string("overhead") : fmt::format("overhead {}", kind_slug(kind)), id, l.width,
      l.height,
      fmt::format("{}: ratio of {} against {} with its 95% CI (Hodges-Lehmann over rounds, the verdict's); 1.0 is "
                  "no overhead",
                  kind == CaseKind::startup ? "Container start-up"
                  : micro                   ? "Micro-benchmarks"
                                            : "Training",
                  compared, analysis.baseline));
  draw_ratio_frame(out, r, axis, l, x,
                   fmt::format("ratio of {}, environment / {}{}: right of 1.0 is slower",
                               micro ? "time per operation" : "times", analysis.baseline,
                               axis.log ? " (log scale)" : ""),
                   analysis.baseline);
  out += "<g class=\"marks\">\n";
  for (std::size_t i = 0; i < r.rows.size(); ++i) draw_ratio_row(out, r.rows[i], l.row_y(i), l.left, x, analysis.baseline);
  out += "</g>\n";
  draw_ratio_legend(out, r, l);
  out += "</svg>\n";
  return out;
}

namespace {

// The domain of the answer's chart: no change, every value and every end of
// an interval, widened to round ticks.
Ticks answer_ticks(const std::vector<AnswerMark>& marks, double& lo, double& hi) {
  lo = 0, hi = 0;
  for (const auto& m : marks)
    for (double v : {m.value, m.low, m.high})
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  return linear_ticks(lo, hi, 5, true);
}

void draw_answer_mark(std::string& out, const AnswerMark& m, const std::string& unit, const Scale& x, double y,
                      double left) {
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>\n",
                     px(left - 8), px(y), html_escape(shorten(m.env, 22)));
  if (!std::isfinite(m.value)) return;
  const std::string interval = std::isfinite(m.low) && std::isfinite(m.high)
                                   ? fmt::format("95% CI {:+.1f} .. {:+.1f} {}", m.low, m.high, unit)
                                   : "no 95% CI";
  out += fmt::format("<g class=\"mark{}\" data-env=\"{}\"><title>{}: {:+.1f} {} ({}){}</title>",
                     m.significant ? " significant" : "", html_escape(m.env), html_escape(m.env), m.value, unit,
                     interval, m.significant ? ", significant" : "");
  const double x0 = x(0), x1 = x(m.value);
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"12\" fill=\"{}\" stroke=\"{}\"/>",
                     px(std::min(x0, x1)), px(y - 6), px(std::fabs(x1 - x0)), m.significant ? "#253494" : "#c6dbef",
                     kInk);
  if (std::isfinite(m.low) && std::isfinite(m.high)) {
    out += fmt::format("<line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"1.5\"/>",
                       px(x(m.low)), px(x(m.high)), px(y), kInk);
    for (double end : {m.low, m.high})
      out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"1.5\"/>",
                         px(x(end)), px(y - 5), px(y + 5), kInk);
  }
  out += "</g>\n";
}

// "milliseconds", "nanoseconds": the unit a time added is said in, in words.
std::string added_unit_name(const std::string& unit) {
  return unit == "ms" ? "milliseconds" : unit == "ns" ? "nanoseconds" : unit;
}

}  // namespace

std::string svg_answer_chart(const AnswerCase& c, const std::string& id) {
  if (c.marks.empty()) return "";
  const bool ms = c.form == Headline::Form::time_added;
  const std::string unit = ms ? c.added_unit : "%";
  constexpr double kWidth = 520, kLeft = 150, kRight = 20, kTop = 10, kRow = 24, kAxis = 40;
  const double height = kTop + kRow * static_cast<double>(c.marks.size()) + kAxis;
  double lo = 0, hi = 0;
  const Ticks ticks = answer_ticks(c.marks, lo, hi);
  const Scale x{lo, hi, kLeft, kWidth - kRight, false};
  const double bottom = kTop + kRow * static_cast<double>(c.marks.size());
  std::string out = svg_open("answer", id, kWidth, height,
                             fmt::format("{}: overhead per environment, {} with its 95% CI", c.title,
                                         ms ? added_unit_name(c.added_unit) + " added" : std::string("percent")));
  x_axis(out, x, ticks, kTop, bottom, ms ? "" : "%",
         ms ? fmt::format("{} added per {} (95% CI)", added_unit_name(c.added_unit), c.added_per)
            : std::string("change of the figure, % (95% CI)"));
  for (std::size_t i = 0; i < c.marks.size(); ++i)
    draw_answer_mark(out, c.marks[i], unit, x, kTop + kRow * (static_cast<double>(i) + 0.5), kLeft);
  return out + "</svg>\n";
}

namespace {

// The terms a prediction bar shows apart, largest first; the rest share one
// segment, "other".
constexpr std::size_t kPredictionTermsShown = 4;

struct PredictionSegment {
  std::string label;
  double ms = 0;
  std::size_t fill = 0;
};

// A prediction's terms as wall-time segments (CPU time over the baseline's
// busy CPUs, as the prediction states them), the small ones as one.
std::vector<PredictionSegment> prediction_segments(const Prediction& p, const std::vector<std::string>& kinds) {
  std::vector<PredictionSegment> out;
  double other = 0;
  for (const auto& t : p.terms) {
    const double ms = 1e3 * p.wall_seconds(t);
    const auto at = std::find(kinds.begin(), kinds.end(), t.kind);
    if (at == kinds.end()) {
      other += ms;
      continue;
    }
    out.push_back({t.kind, ms, static_cast<std::size_t>(at - kinds.begin())});
  }
  if (other != 0) out.push_back({"other calls", other, kinds.size()});
  return out;
}

}  // namespace

std::string svg_prediction_chart(const CaseAnalysis& c, const std::string& id, const std::string& per) {
  if (c.predictions.empty()) return "";
  // The kinds shown apart: the largest terms over every environment.
  std::map<std::string, double> weight;
  for (const auto& p : c.predictions)
    for (const auto& t : p.terms) weight[t.kind] += std::fabs(p.wall_seconds(t));
  std::vector<std::pair<std::string, double>> ranked(weight.begin(), weight.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> kinds;
  for (std::size_t i = 0; i < ranked.size() && i < kPredictionTermsShown; ++i) kinds.push_back(ranked[i].first);

  double lo = 0, hi = 0;
  for (const auto& p : c.predictions)
    for (double v : {p.measured_seconds, p.measured_low, p.measured_high, p.seconds, p.low, p.high})
      if (std::isfinite(v)) lo = std::min(lo, 1e3 * v), hi = std::max(hi, 1e3 * v);
  const Ticks ticks = linear_ticks(lo, hi, 5, true);
  constexpr double kWidth = 640, kLeft = 170, kRight = 20, kTop = 10, kRow = 58, kAxis = 40, kLegend = 22;
  const double rows = static_cast<double>(c.predictions.size());
  const double bottom = kTop + kRow * rows;
  const double height = bottom + kAxis + kLegend;
  const Scale x{lo, hi, kLeft, kWidth - kRight, false};
  std::string out = svg_open("prediction", id, kWidth, height,
                             fmt::format("{}: measured overhead per environment against what its system calls "
                                         "predict, split by operation, and the part left unexplained",
                                         c.case_id));
  x_axis(out, x, ticks, kTop, bottom, "", fmt::format("ms added per {} (95% CI)", per));
  auto whisker = [&](double low, double high, double y) {
    if (!std::isfinite(low) || !std::isfinite(high)) return;
    out += fmt::format("<path d=\"M{0} {2}H{1}M{0} {3}V{4}M{1} {3}V{4}\" stroke=\"{5}\" stroke-width=\"1.4\" "
                       "fill=\"none\"/>",
                       px(x(1e3 * low)), px(x(1e3 * high)), px(y), px(y - 4), px(y + 4), kInk);
  };
  for (std::size_t i = 0; i < c.predictions.size(); ++i) {
    const Prediction& p = c.predictions[i];
    const double top = kTop + kRow * static_cast<double>(i);
    const double measured_y = top + 14, predicted_y = top + 36;
    out += fmt::format("<g class=\"mark\" data-env=\"{}\">\n", html_escape(p.env));
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>\n",
                       px(kLeft - 8), px(top + kRow / 2 - 4), html_escape(shorten(p.env, 24)));
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" dominant-baseline=\"middle\" "
                       "font-size=\"10\">measured / predicted</text>\n",
                       px(kLeft - 8), px(top + kRow / 2 + 9));
    // The measurement.
    const double m = 1e3 * p.measured_seconds;
    out += fmt::format("<g class=\"measured\"><title>{}: measured {:+.1f} ms per {} (95% CI {:+.1f} .. {:+.1f})"
                       "</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"14\" fill=\"#d9d9d9\" "
                       "stroke=\"{}\"/>",
                       html_escape(p.env), m, html_escape(per), 1e3 * p.measured_low, 1e3 * p.measured_high,
                       px(std::min(x(0), x(m))), px(measured_y - 7), px(std::fabs(x(m) - x(0))), kInk);
    whisker(p.measured_low, p.measured_high, measured_y);
    out += "</g>\n";
    // The prediction, a segment per operation: positive terms stacked to
    // the right of zero, negative ones to its left.
    double right = 0, left = 0;
    for (const auto& seg : prediction_segments(p, kinds)) {
      double& end = seg.ms >= 0 ? right : left;
      const double from = end, to = end + seg.ms;
      end = to;
      out += fmt::format("<g class=\"term\" data-kind=\"{}\"><title>{}: {} {:+.1f} ms per {}</title><rect x=\"{}\" "
                         "y=\"{}\" width=\"{}\" height=\"14\" fill=\"{}\" stroke=\"{}\"/></g>\n",
                         html_escape(seg.label), html_escape(p.env), html_escape(seg.label), seg.ms, html_escape(per),
                         px(std::min(x(from), x(to))), px(predicted_y - 7), px(std::fabs(x(to) - x(from))),
                         fill_of(seg.fill), kInk);
    }
    // What the prediction leaves of the measurement: hatched, outlined.
    const double predicted = 1e3 * p.seconds;
    if (p.measured_significant && m > predicted && predicted >= 0)
      out += fmt::format("<g class=\"unexplained\"><title>{}: unexplained {:+.1f} ms per {} ({:.0f}% of the "
                         "measured)</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"14\" fill=\"#ffffff\" "
                         "stroke=\"{}\" stroke-dasharray=\"3 2\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" "
                         "dominant-baseline=\"middle\" font-size=\"10\">?</text></g>\n",
                         html_escape(p.env), m - predicted, html_escape(per), 100 * (m - predicted) / m,
                         px(x(predicted)), px(predicted_y - 7), px(x(m) - x(predicted)), kInk,
                         px((x(predicted) + x(m)) / 2), px(predicted_y));
    whisker(p.low, p.high, predicted_y);
    out += "</g>\n";
  }
  // The legend: a swatch per operation shown apart, "other calls", and the
  // unexplained part.
  out += "<g class=\"legend\">\n";
  double lx = 8;
  const double ly = bottom + kAxis + 6;
  std::vector<std::pair<std::string, std::string>> entries;
  for (std::size_t k = 0; k < kinds.size(); ++k) entries.emplace_back(kinds[k], fill_of(k));
  entries.emplace_back("other calls", fill_of(kinds.size()));
  entries.emplace_back("unexplained", "#ffffff");
  for (const auto& [label, fill] : entries) {
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\" stroke=\"{}\"{}/><text "
                       "x=\"{}\" y=\"{}\" dominant-baseline=\"middle\">{}</text>\n",
                       px(lx), px(ly), fill, kInk, label == "unexplained" ? " stroke-dasharray=\"3 2\"" : "",
                       px(lx + 14), px(ly + 5), html_escape(label));
    lx += 14 + text_width(label, kFont) + 14;
  }
  return out + "</g>\n</svg>\n";
}

std::string svg_trend_chart(const SeriesHistory& s, const std::string& id) {
  const auto& entries = s.series.entries;
  if (entries.empty()) return "";
  // Overheads in percent, or the ratio where the runs say the time added.
  const bool ratio_form = entries.front().headline.form == Headline::Form::time_added;
  const auto value = [&](double time_ratio) {
    Headline h = entries.front().headline;
    h.time_ratio = time_ratio;
    return ratio_form ? time_ratio : 100 * h.change();
  };
  double lo = ratio_form ? 1 : 0, hi = lo;
  for (const auto& e : entries) {
    for (double r : {e.headline.time_ratio, e.headline.time_low, e.headline.time_high})
      if (std::isfinite(r) && r > 0) {
        lo = std::min(lo, value(r));
        hi = std::max(hi, value(r));
      }
  }
  const Ticks ticks = linear_ticks(lo, hi, 5, true);
  constexpr double kLeft = 64, kTop = 16, kPlotHeight = 180, kStep = 56;
  const double width = kLeft + kStep * static_cast<double>(entries.size()) + 24;
  const double height = kTop + kPlotHeight + 48;
  const Scale y{lo, hi, kTop + kPlotHeight, kTop};
  const auto x = [&](std::size_t i) { return kLeft + kStep * (static_cast<double>(i) + 0.5); };
  std::string out = svg_open("trend", id, width, height,
                             fmt::format("{} {} against {}: overhead per run", s.series.case_id, s.series.env,
                                         s.series.baseline));
  y_axis(out, y, ticks, kLeft, width - 16, ratio_form ? "time ratio" : "overhead (%)");
  // Change points first, under the runs.
  for (const auto& st : s.steps) {
    if (!st.flagged) continue;
    const double at = (x(st.to - 1) + x(st.to)) / 2;
    out += fmt::format("<line class=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
                       "stroke-dasharray=\"4 3\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       st.transient ? "transient" : "change", px(at), px(kTop), px(at), px(kTop + kPlotHeight),
                       kFills[2], px(at), px(kTop + 10), st.transient ? "off" : "change");
  }
  std::string line;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& h = entries[i].headline;
    if (!std::isfinite(h.time_ratio) || h.time_ratio <= 0) continue;
    line += fmt::format("{}{},{}", line.empty() ? "" : " ", px(x(i)), px(y(value(h.time_ratio))));
  }
  out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\"/>\n", line, kFills[0]);
  out += "<g class=\"runs\">\n";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    const auto& h = e.headline;
    if (!std::isfinite(h.time_ratio) || h.time_ratio <= 0) continue;
    if (h.bounded())
      out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"{3}\"/>", px(x(i)),
                         px(y(value(h.time_low))), px(y(value(h.time_high))), kInk);
    out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"{}\" stroke=\"{}\"><title>{}: {}</title></circle>\n",
                       px(x(i)), px(y(value(h.time_ratio))), e.calibration ? "#ffffff" : kFills[0], kInk,
                       html_escape(e.run_id), html_escape(e.ended_at));
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px(x(i)),
                       px(kTop + kPlotHeight + 16), i + 1);
  }
  out += fmt::format("</g>\n<text class=\"axis-title\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">run, oldest "
                     "first</text>\n",
                     px(kLeft + kStep * static_cast<double>(entries.size()) / 2), px(kTop + kPlotHeight + 36));
  return out + "</svg>\n";
}

}  // namespace dlcbench
