// `dlcbench doctor`: which runtimes are here, their versions, whether each
// can start a container on this machine, and the command that fixes what is
// missing. It starts a tiny container (a static program that exits at once)
// in each, and removes what it made.
#include <unistd.h>

#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/errors.h"
#include "core/fingerprint.h"
#include "core/process.h"
#include "core/timer.h"
#include "runtimes/environment.h"

namespace fs = std::filesystem;

namespace dlcbench::cli {
namespace {

struct RuntimeCheck {
  std::string name;
  bool installed = false;
  bool starts = false;
  std::string version;
  double start_seconds = 0;
  std::string problem;  // with the fix, as the environment words it
  nlohmann::json details;
};

RuntimeCheck check_runtime(const std::string& name, const fs::path& self_exe) {
  RuntimeCheck c;
  c.name = name;
  c.installed = name == "host" || find_program(name).has_value();
  const EnvironmentContext context{self_exe, fmt::format("doctor-{}", getpid()), /*noop_only=*/true,
                                   /*keep_images=*/false};
  auto env = make_environment(parse_environment_request(name), context);
  try {
    env->prepare();
    c.details = env->describe();
    c.version = c.details.value("version", "");
    WorkerLaunch noop;
    noop.program = WorkerLaunch::Program::noop;
    const std::string instance = fmt::format("dlcbench-doctor-{}-{}", getpid(), name);
    const LaunchCommand command = env->command(noop, instance);
    Stopwatch clock;
    const ProcessSpec spec = command.process(120, nullptr);
    const ProcessResult result = run_process(spec, [](std::string_view) {});
    c.start_seconds = clock.seconds();
    c.starts = result.ok();
    if (!c.starts) {
      env->cleanup(instance);
      c.problem = fmt::format("a container did not start: {}\n{}", result.describe(), result.stderr_tail);
    }
  } catch (const EnvironmentUnavailable& e) {
    c.problem = e.what();
    c.details = env->describe();  // the version, where prepare() got that far
    c.version = c.details.value("version", "");
  }
  env->finish();
  return c;
}

int doctor(bool json) {
  const fs::path self_exe = fs::read_symlink("/proc/self/exe");
  std::vector<RuntimeCheck> checks;
  for (const auto& name : environment_names()) checks.push_back(check_runtime(name, self_exe));

  const auto fingerprint = environment_fingerprint();
  if (json) {
    nlohmann::json out = {{"machine",
                           {{"kernel", fingerprint["kernel"]},
                            {"cgroup", fingerprint["cgroup"]},
                            {"cpu", fingerprint["cpu"]},
                            {"in_container", fingerprint["container"]}}},
                          {"runtimes", nlohmann::json::array()}};
    for (const auto& c : checks)
      out["runtimes"].push_back({{"name", c.name},
                                 {"installed", c.installed},
                                 {"starts", c.starts},
                                 {"version", c.version},
                                 {"start_seconds", c.starts ? nlohmann::json(c.start_seconds) : nlohmann::json()},
                                 {"problem", c.problem},
                                 {"details", c.details}});
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << fmt::format("machine: {}, {} CPUs ({}), cgroup {}{}\n\n", fingerprint["kernel"].get<std::string>(),
                             fingerprint["cpu"]["affinity_count"].get<int>(),
                             fingerprint["cpu"]["model"].get<std::string>(),
                             fingerprint["cgroup"]["version"].get<std::string>(),
                             fingerprint["container"]["in_container"].get<bool>()
                                 ? ", itself inside a container (" +
                                       fingerprint["container"]["detected_by"].get<std::string>() + ")"
                                 : "");
    std::cout << fmt::format("{:<8} {:<14} {:<36} {}\n", "runtime", "status", "version", "start (noop container)");
    for (const auto& c : checks) {
      const std::string status = !c.installed ? "missing" : c.starts ? "ok" : "cannot start";
      std::cout << fmt::format("{:<8} {:<14} {:<36} {}\n", c.name, status, c.version.substr(0, 36),
                               c.starts ? fmt::format("{:.3f} s", c.start_seconds) : "-");
      if (c.details.contains("adjustments"))
        for (const auto& a : c.details["adjustments"]) std::cout << "         uses " << a.get<std::string>() << "\n";
      if (!c.problem.empty()) {
        std::string text = c.problem;
        while (!text.empty() && text.back() == '\n') text.pop_back();
        std::string indented;
        for (char ch : text) indented += ch == '\n' ? std::string("\n           ") : std::string(1, ch);
        std::cout << "         fix: " << indented << "\n";
      }
    }
  }
  // Exit 1 when a runtime that is installed cannot start containers here.
  for (const auto& c : checks)
    if (c.installed && !c.starts) return kExitFailure;
  return kExitOk;
}

}  // namespace

void add_doctor_command(CLI::App& app, int& exit_code) {
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "doctor", "Check each container runtime: installed, version, can it start a container here, how to fix it");
  cmd->add_flag("--json", *json, "Print the findings as JSON");
  cmd->callback([json, &exit_code] { exit_code = doctor(*json); });
}

}  // namespace dlcbench::cli
