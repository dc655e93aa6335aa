#include "orchestrator/scheduler.h"

#include <cctype>

#include <fmt/format.h>

#include "core/process.h"
#include "core/timer.h"

namespace dlcbench {
namespace {

constexpr std::size_t kStderrInResults = 4096;

std::string tail(const std::string& s, std::size_t n) { return s.size() > n ? s.substr(s.size() - n) : s; }

// Container names allow [a-zA-Z0-9_.-]; labels such as "docker:image=x" do not.
std::string instance_name(const std::string& run_id, const std::string& label, int round, int launch) {
  std::string safe;
  for (char c : label) safe += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return fmt::format("dlcbench-{}-{}-r{}-{}", run_id, safe, round, launch);
}

std::string format_eta(double seconds) {
  if (!(seconds >= 0)) return "?";
  const auto s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60) : fmt::format("{}m{:02}s", s / 60, s % 60);
}

}  // namespace

ScheduleResult run_schedule(const Plan& plan, std::vector<ScheduledEnvironment>& environments,
                            ResultsWriter& results, const ScheduleOptions& options) {
  ScheduleResult outcome;
  const auto orders = round_orders(environments.size(), plan.runs, plan.seed);
  const int total = plan.runs * static_cast<int>(plan.cases.size() * environments.size());
  std::vector<int> consecutive_failures(environments.size(), 0);
  auto log = [&](const std::string& line) {
    if (options.log) options.log(line);
  };
  Stopwatch clock;
  int done = 0;

  for (int round = 1; round <= plan.runs; ++round) {
    nlohmann::json order = nlohmann::json::array();
    for (auto i : orders[static_cast<std::size_t>(round - 1)]) order.push_back(environments[i].label);
    results.append({{"type", "round"}, {"round", round}, {"order", order}});

    for (const auto& spec : plan.cases) {
      for (auto index : orders[static_cast<std::size_t>(round - 1)]) {
        if (options.cancel && options.cancel->load()) {
          outcome.interrupted = true;
          return outcome;
        }
        ScheduledEnvironment& env = environments[index];
        ++done;
        if (!env.unavailable.empty()) continue;

        WorkerLaunch launch{spec.worker_args(), plan.data, options.worker_env};
        const std::string instance = instance_name(options.run_id, env.label, round, done);
        const LaunchCommand command = env.environment->command(launch, instance);
        ProcessSpec process{command.argv, command.env, plan.case_timeout_seconds, options.cancel};

        int measured = 0;
        double measured_sum = 0;
        Stopwatch wall;
        const ProcessResult result = run_process(process, [&](std::string_view line) {
          auto record = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
          if (record.is_discarded() || !record.is_object())
            record = {{"type", "worker_output"}, {"text", std::string(line)}};
          // The orchestrator's keys; a worker never prints them itself.
          record["env"] = env.label;
          record["round"] = round;
          record["case"] = spec.id();
          if (record.value("type", "") == "sample" && record.value("phase", "") == "measured") {
            ++measured;
            measured_sum += record.value("seconds", 0.0);
          }
          results.append(record);
        });
        const double wall_seconds = wall.seconds();
        ++outcome.launches;

        const bool ok = result.ok() && measured == spec.iters;
        nlohmann::json launch_record = {{"type", "launch"},
                                        {"env", env.label},
                                        {"round", round},
                                        {"case", spec.id()},
                                        {"instance", instance},
                                        {"ok", ok},
                                        {"measured_samples", measured},
                                        {"wall_seconds", wall_seconds},
                                        {"exit_code", result.exit_code},
                                        {"signal", result.signal}};
        if (!ok) {
          launch_record["cause"] = result.ok()
                                       ? fmt::format("worker exited normally but printed {} of {} samples",
                                                     measured, spec.iters)
                                       : "worker " + result.describe();
          launch_record["stderr_tail"] = tail(result.stderr_tail, kStderrInResults);
          env.environment->cleanup(instance);
        }
        results.append(launch_record);
        results.sync();

        if (result.cancelled) {
          outcome.interrupted = true;
          return outcome;
        }
        const double per_launch = clock.seconds() / done;
        if (ok) {
          consecutive_failures[index] = 0;
          log(fmt::format("round {}/{}  {}  {:<8} {:.5f} s/batch over {} batches  ({}/{}, ETA {})", round,
                          plan.runs, spec.id(), env.label, measured_sum / measured, measured, done, total,
                          format_eta(per_launch * (total - done))));
        } else {
          ++outcome.failed_launches;
          log(fmt::format("round {}/{}  {}  {:<8} FAILED: {}", round, plan.runs, spec.id(), env.label,
                          launch_record["cause"].get<std::string>()));
          if (!result.stderr_tail.empty()) log("    " + tail(result.stderr_tail, 600));
          if (++consecutive_failures[index] >= options.max_consecutive_failures) {
            env.unavailable = fmt::format("{} launches in a row failed; the last: {}",
                                          consecutive_failures[index],
                                          launch_record["cause"].get<std::string>());
            results.append({{"type", "environment_dropped"}, {"env", env.label}, {"reason", env.unavailable}});
            log(fmt::format("dropping environment {} for the rest of the run: {}", env.label, env.unavailable));
          }
        }
      }
    }
  }
  return outcome;
}

}  // namespace dlcbench
