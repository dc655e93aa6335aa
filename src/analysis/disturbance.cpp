#include "analysis/disturbance.h"

#include <algorithm>

#include <fmt/format.h>

namespace dlcbench {

const char* disturbance_key(DisturbanceKind kind) {
  switch (kind) {
    case DisturbanceKind::foreign_cpu: return "foreign_cpu";
    case DisturbanceKind::steal: return "steal";
  }
  return "?";
}

bool keep_disturbed_runs(std::size_t undisturbed, std::size_t all, int planned_runs) {
  return undisturbed < all &&
         (undisturbed < 2 || 2 * undisturbed < all || undisturbed < static_cast<std::size_t>(std::max(planned_runs, 0)));
}

bool RunDisturbance::disturbed() const {
  return std::any_of(readings.begin(), readings.end(), [](const DisturbanceReading& r) { return r.share > r.limit; });
}

std::string RunDisturbance::why() const {
  std::string out;
  for (const auto& r : readings) {
    if (!(r.share > r.limit)) continue;
    if (!out.empty()) out += "; ";
    out += r.kind == DisturbanceKind::foreign_cpu
               ? fmt::format("other processes used {:.2f}% of the machine's CPU (limit {:.0f}%)", 100 * r.share,
                             100 * r.limit)
               : fmt::format("the hypervisor stole {:.2f}% of the machine's CPU (limit {:.0f}%)", 100 * r.share,
                             100 * r.limit);
  }
  return out;
}

RunDisturbance assess_disturbance(const std::optional<nlohmann::json>& accounting) {
  RunDisturbance d;
  if (!accounting) {
    d.not_assessed = "the launch recorded no accounting";
    return d;
  }
  const auto outside = accounting->find("outside");
  if (outside == accounting->end() || !outside->is_object()) {
    d.not_assessed = "the launch's accounting has no reading from outside";
    return d;
  }
  const auto machine = outside->find("machine");
  if (machine == outside->end() || !machine->is_object()) {
    d.not_assessed = outside->value("machine_unavailable", std::string("the machine's CPU time was not read"));
    return d;
  }
  const auto number = [&](const char* key) {
    const auto it = machine->find(key);
    return it != machine->end() && it->is_number() ? it->get<double>() : -1.0;
  };
  const double capacity = number("phase_seconds") * number("cpus");
  const double foreign = number("foreign_cpu_seconds"), steal = number("steal_seconds");
  if (!(capacity > 0) || machine->find("foreign_cpu_seconds") == machine->end() || !(steal >= 0)) {
    d.not_assessed = "the machine's reading lacks a field";
    return d;
  }
  d.assessed = true;
  d.readings.push_back({DisturbanceKind::foreign_cpu, std::max(0.0, foreign) / capacity, kForeignCpuLimit});
  d.readings.push_back({DisturbanceKind::steal, steal / capacity, kStealLimit});
  return d;
}

}  // namespace dlcbench
