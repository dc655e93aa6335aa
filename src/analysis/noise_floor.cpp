#include "analysis/noise_floor.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace dlcbench {

std::size_t rounds_for_precision(std::size_t rounds, double half_width, double target) {
  if (!std::isfinite(half_width) || !(target > 0) || rounds == 0) return 0;
  const double scaled = static_cast<double>(rounds) * (half_width / target) * (half_width / target);
  return std::max<std::size_t>(6, static_cast<std::size_t>(std::ceil(scaled)));
}

std::vector<NoiseFloor> noise_floors(const Analysis& a, double precision) {
  std::vector<NoiseFloor> out;
  std::vector<double> targets = {0.01, 0.02, 0.05};
  if (precision > 0 && std::find(targets.begin(), targets.end(), precision) == targets.end()) targets.push_back(precision);
  std::sort(targets.begin(), targets.end());
  for (const auto& c : a.cases) {
    const EnvironmentStats* base = find_environment(c, a.baseline);
    if (!base) continue;
    for (const auto& o : c.overheads) {
      if (o.env.rfind(a.baseline + "#", 0) != 0) continue;
      const EnvironmentStats* copy = find_environment(c, o.env);
      NoiseFloor n;
      n.case_id = c.case_id;
      n.baseline = a.baseline;
      n.env = o.env;
      n.rounds = o.robust.pairs;
      n.run_cv = base->runs.cv;
      n.difference = o.robust;
      n.half_width = o.robust.half_width();
      for (double t : targets) n.rounds_for.push_back({t, rounds_for_precision(n.rounds, n.half_width, t)});
      n.disturbed = base->disturbed_runs.size() + (copy ? copy->disturbed_runs.size() : 0);
      n.assessed = base->runs_assessed + (copy ? copy->runs_assessed : 0);
      out.push_back(std::move(n));
    }
  }
  return out;
}

std::vector<std::string> noise_floor_lines(const NoiseFloor& n) {
  std::vector<std::string> out;
  if (!n.difference.bounded()) {
    out.push_back(fmt::format("{}: runs vary by {:.1f}% (CV); {} rounds are too few for an interval (6 or more)",
                              n.case_id, 100 * n.run_cv, n.rounds));
    return out;
  }
  out.push_back(fmt::format("{}: runs vary by {:.1f}% (CV); {} against {} {:+.1f}% ({}): with {} rounds the noise "
                            "floor is +-{:.1f}%",
                            n.case_id, 100 * n.run_cv, n.env, n.baseline, 100 * (n.difference.ratio - 1),
                            robust_interval_words(n.difference), n.rounds, 100 * n.half_width));
  std::vector<std::string> needs;
  for (const auto& r : n.rounds_for) needs.push_back(fmt::format("+-{:g}%: {}", 100 * r.precision, r.rounds));
  out.push_back(fmt::format("  rounds an environment needs for a half-width of {} (--precision stops there by itself)",
                            fmt::join(needs, ", ")));
  if (n.difference.ci95_low > 1 || n.difference.ci95_high < 1)
    out.push_back("  the two copies differ significantly: something drifted during the run (another load, thermal, "
                  "frequency); calibrate again on a quieter machine");
  if (n.assessed > 0)
    out.push_back(fmt::format("  {} of {} runs disturbed from outside{}", n.disturbed, n.assessed,
                              n.disturbed ? " (set aside and replaced; see the case's lines above)" : ""));
  return out;
}

}  // namespace dlcbench
