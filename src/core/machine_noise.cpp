#include "core/machine_noise.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "core/accounting.h"
#include "core/memory.h"

namespace dlcbench {
namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Binds a fresh thread to the first CPU this process may use, as pinning a
// worker's threads would.
void check_pinning(MachineNoise& m) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
    m.pinning_problem = fmt::format("sched_getaffinity failed: {}", std::strerror(errno));
    return;
  }
  m.usable_cpus = CPU_COUNT(&allowed);
  int first = -1;
  for (int c = 0; c < CPU_SETSIZE && first < 0; ++c)
    if (CPU_ISSET(c, &allowed)) first = c;
  int error = 0;
  std::thread probe([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    error = pthread_setaffinity_np(pthread_self(), sizeof one, &one);
  });
  probe.join();
  m.pinning = error == 0;
  if (error) m.pinning_problem = fmt::format("binding a thread to CPU {} failed: {}", first, std::strerror(error));
}

}  // namespace

MachineNoise check_machine_noise(double sample_seconds) {
  MachineNoise m;
  m.cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  check_pinning(m);
  m.isolated = trimmed(read_small_file("/sys/devices/system/cpu/isolated"));
  const std::string smt = trimmed(read_small_file("/sys/devices/system/cpu/smt/active"));
  if (smt == "0" || smt == "1") m.smt_active = smt == "1";
  m.governor = trimmed(read_small_file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"));
  const auto before = parse_proc_stat(read_small_file("/proc/stat"));
  std::this_thread::sleep_for(std::chrono::duration<double>(sample_seconds));
  const auto after = parse_proc_stat(read_small_file("/proc/stat"));
  m.sample_seconds = sample_seconds;
  if (before && after) {
    const double total = static_cast<double>((after->busy + after->idle + after->steal) -
                                             (before->busy + before->idle + before->steal));
    m.busy_share = total > 0 ? static_cast<double>(after->busy - before->busy) / total : NAN;
    m.steal_share = total > 0 ? static_cast<double>(after->steal - before->steal) / total : NAN;
  } else {
    m.busy_share = m.steal_share = NAN;
  }
  return m;
}

std::vector<std::string> machine_noise_advice(const MachineNoise& m) {
  std::vector<std::string> out;
  if (std::isfinite(m.busy_share))
    out.push_back(m.busy_share > 0.02
                      ? fmt::format("other processes use {:.1f}% of the machine's CPU right now: runs measured while "
                                    "they do are disturbed, set aside and replaced, so the run takes longer; stop "
                                    "them first",
                                    100 * m.busy_share)
                      : fmt::format("quiet: other processes used {:.1f}% of the machine's CPU over {:g} s",
                                    100 * m.busy_share, m.sample_seconds));
  if (std::isfinite(m.steal_share) && m.steal_share > 0.02)
    out.push_back(fmt::format("the hypervisor takes {:.1f}% of the CPU time (steal): other guests share this "
                              "host; expect disturbed runs, or measure on a dedicated machine",
                              100 * m.steal_share));
  out.push_back(m.pinning ? fmt::format("threads can be pinned to CPUs: runs bind the worker's threads one per CPU, "
                                        "in every environment (the default; --no-pin-threads turns it off)")
                          : fmt::format("threads cannot be pinned here ({}): the default pinning cannot take effect; "
                                        "pass --no-pin-threads so the manifest says the threads ran unbound",
                                        m.pinning_problem));
  if (m.usable_cpus > 0 && m.usable_cpus <= 4)
    out.push_back(fmt::format(
        "{} CPUs: the worker's threads share them with dlcbench and the runtimes' helpers; whether fewer threads "
        "lower the noise here is measured by `dlcbench calibrate --threads {}` against `--threads {}` (the thread "
        "count is part of the workload, so compare environments at one count)",
        m.usable_cpus, std::max(1, m.usable_cpus - 1), m.usable_cpus));
  out.push_back(m.isolated.empty() ? "no CPU is isolated (isolcpus=, nohz_full=): a machine booted with some set apart "
                                     "for the worker is quieter"
                                   : fmt::format("CPUs {} are isolated: pin the worker there (cpuset=)", m.isolated));
  if (m.smt_active && *m.smt_active)
    out.push_back("SMT is on: two threads on one core's siblings slow each other; --threads at the number of cores "
                  "or SMT off (echo off > /sys/devices/system/cpu/smt/control) is steadier");
  if (!m.governor.empty() && m.governor != "performance")
    out.push_back(fmt::format("the CPU frequency governor is {}: `cpupower frequency-set -g performance` holds the "
                              "clock steadier",
                              m.governor));
  return out;
}

nlohmann::json machine_noise_json(const MachineNoise& m) {
  const auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  return {{"cpus", m.cpus},
          {"usable_cpus", m.usable_cpus},
          {"pinning", m.pinning},
          {"pinning_problem", m.pinning_problem},
          {"isolated", m.isolated},
          {"smt_active", m.smt_active ? nlohmann::json(*m.smt_active) : nlohmann::json()},
          {"governor", m.governor},
          {"busy_share", number(m.busy_share)},
          {"steal_share", number(m.steal_share)},
          {"sample_seconds", m.sample_seconds},
          {"advice", machine_noise_advice(m)}};
}

}  // namespace dlcbench
