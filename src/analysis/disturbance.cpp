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
  // What the readings' rounding alone can make of nothing (absent in runs
  // of an older dlcbench: none). A phase so short that it could pass the
  // limit cannot be judged; a longer one counts only what lies beyond it.
  const double foreign_error = std::max(0.0, number("foreign_uncertainty_seconds"));
  const double steal_error = std::max(0.0, number("steal_uncertainty_seconds"));
  if (foreign_error / capacity > kForeignCpuLimit) {
    const auto source = machine->find("busy_source");
    const std::string busy_source = source != machine->end() && source->is_string() ? source->get<std::string>()
                                                                                   : std::string("/proc/stat");
    d.not_assessed = fmt::format("a phase of {:.1f} ms is too short to judge from {}: its readings can be off by "
                                 "{:.1f} ms of CPU time",
                                 1e3 * number("phase_seconds"), busy_source, 1e3 * foreign_error);
    return d;
  }
  d.assessed = true;
  d.readings.push_back({DisturbanceKind::foreign_cpu, std::max(0.0, foreign - foreign_error) / capacity,
                        kForeignCpuLimit});
  d.readings.push_back({DisturbanceKind::steal, std::max(0.0, steal - steal_error) / capacity, kStealLimit});
  return d;
}

}  // namespace dlcbench
