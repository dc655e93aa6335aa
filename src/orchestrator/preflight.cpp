#include "orchestrator/preflight.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/process.h"
#include "model/container_options.h"
#include "workloads/registry.h"

namespace dlcbench {

namespace {

// A user's command: one whole launch of it per environment under the probe
// (a warm-up launch too, never measured), for the probe's fingerprint and the
// libraries the command loaded; every difference is a possible cause.
void preflight_command(const Plan& plan, const CaseSpec& spec, std::vector<ScheduledEnvironment>& environments,
                       ResultsWriter& results, const ScheduleOptions& options, PreflightResult& out) {
  std::map<std::string, nlohmann::json> fingerprints;
  int index = 0;
  for (auto& env : environments) {
    if (!env.unavailable.empty()) continue;
    const WorkerLaunch launch = command_launch_of(spec, plan.data);
    const std::string instance = fmt::format("dlcbench-{}-preflight-cmd-{}", options.run_id, index++);
    const LaunchCommand command = env.environment->command(launch, instance);
    nlohmann::json fingerprint, error;
    const ProcessResult result = run_process(command.process(plan.case_timeout_seconds, options.cancel), [&](std::string_view line) {
      auto record = nlohmann::json::parse(line, nullptr, false);
      if (!record.is_object()) return;
      const std::string type = record.value("type", "");
      if (type == "fingerprint") fingerprint = std::move(record);
      else if (type == "libraries" && fingerprint.is_object()) fingerprint["command_libraries"] = record["libraries"];
      else if (type == "error") error = record;
    });
    if (!result.ok() || fingerprint.is_null()) {
      env.environment->cleanup(instance);
      std::string cause = error.is_object() ? error.value("message", "") : "";
      if (cause.empty()) cause = fingerprint.is_null() ? "the probe printed no fingerprint" : "command " + result.describe();
      else cause += " (" + result.describe() + ")";
      // The launches will fail the same way and say so; the preflight only records it.
      out.failures[env.label] = cause;
      results.append({{"type", "preflight"}, {"env", env.label}, {"case", spec.id()}, {"ok", false}, {"cause", cause},
                      {"stderr_tail", tail(result.stderr_tail, 2000)}});
      continue;
    }
    results.append({{"type", "preflight"}, {"env", env.label}, {"case", spec.id()}, {"ok", true}, {"fingerprint", fingerprint}});
    fingerprints[env.label] = std::move(fingerprint);
  }
  const auto base = fingerprints.find(plan.baseline);
  if (base == fingerprints.end()) return;
  for (const auto& e : plan.environments) {
    if (e.text == plan.baseline || !fingerprints.count(e.text)) continue;
    auto mismatches = compare_command_fingerprints(base->second, fingerprints.at(e.text), fields_changed_by(e.options));
    auto& all = out.mismatches[e.text];
    all.insert(all.end(), mismatches.begin(), mismatches.end());
  }
}

}  // namespace

PreflightResult run_preflight(const Plan& plan, std::vector<ScheduledEnvironment>& environments,
                              ResultsWriter& results, const ScheduleOptions& options) {
  PreflightResult out;
  for (const auto& c : plan.cases)
    if (c.is_command()) preflight_command(plan, c, environments, results, options, out);
  // A CPU case where there is one: a GPU case's worker fails on a machine
  // without a GPU, and that must not stop the CPU cases from running.
  const CaseSpec* training = nullptr;
  for (const auto& c : plan.cases)
    if (c.workload != kStartupWorkload && !c.runs_in_probe() &&
        (!training || training->device != "cpu" || c.device == "cpu"))
      training = &c;
  if (!training) return out;  // the startup workload runs no worker

  std::map<std::string, nlohmann::json> fingerprints;
  for (auto& env : environments) {
    if (!env.unavailable.empty()) continue;
    auto args = training->worker_args();
    args.push_back("--fingerprint-only");
    WorkerLaunch launch{WorkerLaunch::Program::worker, args, launch_data(plan, *training), options.worker_env, "",
                        training->device == "gpu"};
    const std::string instance = fmt::format("dlcbench-{}-preflight-{}", options.run_id, fingerprints.size() + out.failures.size());
    const LaunchCommand command = env.environment->command(launch, instance);
    nlohmann::json fingerprint;
    const ProcessSpec process = command.process(std::min(plan.case_timeout_seconds, 600.0), options.cancel);
    const ProcessResult result = run_process(process, [&](std::string_view line) {
      auto record = nlohmann::json::parse(line, nullptr, false);
      if (record.is_object() && record.value("type", "") == "fingerprint") fingerprint = std::move(record);
    });
    if (!result.ok() || fingerprint.is_null()) {
      env.environment->cleanup(instance);
      out.failures[env.label] = result.ok() ? "the worker printed no fingerprint" : "worker " + result.describe();
      results.append({{"type", "preflight"}, {"env", env.label}, {"ok", false}, {"cause", out.failures[env.label]},
                      {"stderr_tail", tail(result.stderr_tail, 2000)}});
      continue;
    }
    results.append({{"type", "preflight"}, {"env", env.label}, {"ok", true}, {"fingerprint", fingerprint}});
    fingerprints[env.label] = std::move(fingerprint);
  }

  auto base = fingerprints.find(plan.baseline);
  if (base == fingerprints.end()) return out;
  std::vector<std::string> base_requested;
  for (const auto& e : plan.environments)
    if (e.text == plan.baseline) base_requested = fields_changed_by(e.options);
  for (const auto& e : plan.environments) {
    if (e.text == plan.baseline || !fingerprints.count(e.text)) continue;
    auto requested = fields_changed_by(e.options);
    requested.insert(requested.end(), base_requested.begin(), base_requested.end());
    auto mismatches = compare_fingerprints(base->second, fingerprints.at(e.text), requested);
    if (mismatches.empty()) continue;
    if (stops_comparison(mismatches)) {
      out.stops = true;
      out.message += fmt::format("{} differs from {} in ways nobody asked for:\n{}", e.text, plan.baseline,
                                 describe_mismatches(mismatches, plan.baseline, e.text));
    }
    auto& all = out.mismatches[e.text];
    all.insert(all.begin(), mismatches.begin(), mismatches.end());
  }
  return out;
}

}  // namespace dlcbench
