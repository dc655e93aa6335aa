// What this machine allows for quiet measurements, for `dlcbench doctor`:
// how busy the rest of it is right now, whether threads can be pinned,
// whether any CPU is set apart (isolcpus), SMT and the frequency governor,
// and what to do about each. A thread count is part of the workload, so
// fewer threads than CPUs is suggested as something to measure (`dlcbench
// calibrate --threads`), never set.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlcbench {

struct MachineNoise {
  int cpus = 0;          // online
  int usable_cpus = 0;   // this process's affinity
  bool pinning = false;  // a thread could be bound to one CPU
  std::string pinning_problem;
  std::string isolated;  // /sys/devices/system/cpu/isolated; "" when none
  std::optional<bool> smt_active;
  std::string governor;  // cpu0's cpufreq governor; "" when the kernel shows none (a VM)
  // Over the sample: the machine's busy CPU time (this process is idle) and
  // steal, as shares of its CPU time; NaN when /proc/stat cannot be read.
  double busy_share = 0, steal_share = 0;
  double sample_seconds = 0;
};

MachineNoise check_machine_noise(double sample_seconds = 1.0);

// One sentence per finding, each with what to do.
std::vector<std::string> machine_noise_advice(const MachineNoise& m);

nlohmann::json machine_noise_json(const MachineNoise& m);

}  // namespace dlcbench
