#include "analysis/gate.h"

#include <cmath>

#include <fmt/format.h>

#include "analysis/noise_floor.h"
#include "core/statistics.h"

namespace dlcbench {
namespace {


double log_se(double low, double high) {
  if (!std::isfinite(low) || !std::isfinite(high) || low <= 0 || high <= 0) return std::nan("");
  return (std::log(high) - std::log(low)) / (2 * kNormalQuantile975);
}

// The verdict of an interval [low, high] of a ratio against the bound 1 + m,
// and the rounds that would take the interval off the bound.
void judge(GateCheck& g, double max_overhead) {
  const double bound = 1 + max_overhead;
  if (!std::isfinite(g.low) || !std::isfinite(g.high)) {
    g.outcome = GateOutcome::cannot_tell;
    g.why = "no interval: too few rounds";
    return;
  }
  if (g.high <= bound) {
    g.outcome = GateOutcome::pass;
    return;
  }
  if (g.low > bound) {
    g.outcome = GateOutcome::fail;
    return;
  }
  g.outcome = GateOutcome::cannot_tell;
  const double distance = std::abs(g.ratio - bound);
  g.rounds_needed = distance > 0 ? rounds_for_precision(g.rounds, (g.high - g.low) / 2, distance) : 0;
  g.why = g.rounds_needed > 0
              ? fmt::format("the interval straddles the margin: about {} rounds would settle it", g.rounds_needed)
              : "the estimate lies on the margin itself: no number of rounds settles it; choose the margin apart "
                "from it";
}

}  // namespace

const char* gate_outcome_name(GateOutcome o) {
  switch (o) {
    case GateOutcome::pass: return "pass";
    case GateOutcome::fail: return "fail";
    case GateOutcome::cannot_tell: return "cannot tell";
    case GateOutcome::not_compared: return "not compared";
  }
  return "";
}

std::string gate_key(const std::string& case_id, const std::string& env) { return case_id + "\t" + env; }

GateResult gate_run(const Analysis& a, const Manifest& m, double max_overhead,
                    const std::map<std::string, GateReference>& references) {
  GateResult r;
  r.max_overhead = max_overhead;
  r.not_comparable = !a.comparable;
  // An environment the plan named that could not be prepared.
  for (const auto& [label, described] : m.environments)
    if (described.is_object() && described.contains("unavailable"))
      r.missing.push_back(fmt::format("{} was not measured: {}", label,
                                      described.at("unavailable").is_string()
                                          ? described.at("unavailable").get<std::string>()
                                          : described.at("unavailable").dump()));
  for (const auto& c : a.cases) {
    for (const auto& e : c.envs)
      if (e.failed_launches > 0)
        r.missing.push_back(fmt::format("{} in {}: {} launch{} failed", c.case_id, e.env, e.failed_launches,
                                        e.failed_launches == 1 ? "" : "es"));
    for (const auto& o : c.overheads) {
      GateCheck g;
      g.case_id = c.case_id;
      g.env = o.env;
      g.baseline = a.baseline;
      g.headline = o.headline;
      g.rounds = o.runs_compared;
      g.ratio = o.headline.time_ratio;
      g.low = o.headline.time_low;
      g.high = o.headline.time_high;
      if (!o.compared) {
        g.outcome = GateOutcome::not_compared;
        g.why = "not like for like: a setting nobody asked for differs";
        r.checks.push_back(std::move(g));
        continue;
      }
      if (const auto ref = references.find(gate_key(c.case_id, o.env)); ref != references.end()) {
        // This run's ratio over the reference's; the two runs are
        // independent, so their log intervals add in quadrature.
        g.reference = ref->second;
        const double se = std::hypot(log_se(o.headline.time_low, o.headline.time_high),
                                     log_se(ref->second.headline.time_low, ref->second.headline.time_high));
        g.ratio = o.headline.time_ratio / ref->second.headline.time_ratio;
        g.low = std::isfinite(se) ? g.ratio * std::exp(-kNormalQuantile975 * se) : std::nan("");
        g.high = std::isfinite(se) ? g.ratio * std::exp(kNormalQuantile975 * se) : std::nan("");
      }
      judge(g, max_overhead);
      if (g.outcome == GateOutcome::cannot_tell && g.rounds_needed == 0 && !std::isfinite(g.low) && o.runs_needed > 0) {
        g.rounds_needed = o.runs_needed;
        g.why = fmt::format("no interval: too few rounds; {} would bound it", o.runs_needed);
      }
      r.checks.push_back(std::move(g));
    }
  }
  r.no_comparison = r.checks.empty();
  return r;
}

}  // namespace dlcbench
