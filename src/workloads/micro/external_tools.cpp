#include "workloads/micro/external_tools.h"

#include <stdexcept>

#include <fmt/format.h>

#include "core/process.h"
#include "core/timer.h"

namespace fs = std::filesystem;

namespace dlcbench {

const std::vector<ExternalTool>& external_tools() {
  static const std::vector<ExternalTool> all = {
      {"dd", "dd", "coreutils"},
      {"ioping", "ioping", "ioping"},
      {"fio", "fio", "fio"},
      {"hpcc", "hpcc", "hpcc"},
  };
  return all;
}

const ExternalTool* find_external_tool(const std::string& workload) {
  for (const auto& t : external_tools())
    if (t.workload == workload) return &t;
  return nullptr;
}

std::optional<fs::path> tool_program(const ExternalTool& tool) {
  auto found = find_program(tool.program);
  if (!found) return std::nullopt;
  return fs::path(*found);
}

std::string tool_missing_message(const ExternalTool& tool) {
  return fmt::format("{} is not installed (no {} on PATH): apt-get install {}, or leave {} out of --workloads",
                     tool.workload, tool.program, tool.package, tool.workload);
}

std::vector<ImageExtra> tool_image_files(const std::vector<std::string>& workloads) {
  std::vector<ImageExtra> files;
  for (const auto& name : workloads) {
    const ExternalTool* tool = find_external_tool(name);
    if (!tool) continue;
    if (auto program = tool_program(*tool)) files.push_back({*program, false, {}});
    if (tool->workload != "hpcc") continue;
    // Open MPI loads its components (mca_*.so) with dlopen from its plugin
    // folder. A component whose own libraries are missing is skipped, as
    // Open MPI itself skips it.
    const auto components = optional_extras_in(open_mpi_component_folders(), ".so");
    files.insert(files.end(), components.begin(), components.end());
  }
  return files;
}

ToolRun run_tool(const ExternalTool& tool, const ToolInvocation& invocation) {
  ProcessSpec spec;
  spec.argv.push_back(tool.program);
  spec.argv.insert(spec.argv.end(), invocation.args.begin(), invocation.args.end());
  spec.env = invocation.env;
  spec.env.emplace_back("LC_ALL", "C");
  spec.timeout_seconds = invocation.timeout_seconds;
  spec.cwd = invocation.cwd;
  spec.child_fd3 = invocation.file_fd;
  ToolRun run;
  Stopwatch watch;
  const ProcessResult result = run_process(spec, [&](std::string_view line) {
    run.out.append(line);
    run.out.push_back('\n');
  });
  run.wall_seconds = watch.seconds();
  run.err = result.stderr_tail;
  if (!result.ok())
    throw std::runtime_error(fmt::format("{} {}{}{}", tool.program, result.describe(),
                                         run.err.empty() ? "" : ": ", tail(run.err, 1000)));
  return run;
}

}  // namespace dlcbench
