// The external tools the paper and IBM measured with (dd, ioping, fio,
// hpcc), run by the worker in the same environment as dlcbench's own
// micro-benchmarks: what each is, where it comes from, what an image needs
// to run it, and how the worker starts it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/image_files.h"

namespace dlcbench {

struct ExternalTool {
  std::string workload;  // the dlcbench workload: "dd", "ioping", "fio", "hpcc"
  std::string program;   // looked up on PATH
  std::string package;   // the Debian package that provides it
};

const std::vector<ExternalTool>& external_tools();
const ExternalTool* find_external_tool(const std::string& workload);

// The tool's program on this machine's PATH, or nothing when not installed.
std::optional<std::filesystem::path> tool_program(const ExternalTool& tool);
// "fio is not installed: apt-get install fio" - for a plan that names it.
std::string tool_missing_message(const ExternalTool& tool);

// What a container image needs to run the tools of `workloads` (those that
// are not tools are ignored): each program, and for hpcc Open MPI's
// component libraries, which it opens at run time where ldd cannot see them.
// Their libraries come with them (image_builder resolves them).
std::vector<ImageExtra> tool_image_files(const std::vector<std::string>& workloads);

// One run of a tool by the worker.
struct ToolInvocation {
  std::vector<std::string> args;  // after the program
  std::vector<std::pair<std::string, std::string>> env;
  int file_fd = -1;      // given to the tool as /proc/self/fd/3
  std::string cwd;       // empty: the worker's
  double timeout_seconds = 3600;
};
struct ToolRun {
  std::string out, err;  // stdout, and the end of stderr
  double wall_seconds = 0;
};
// Runs the tool with LC_ALL=C (so numbers print with a '.') and returns
// what it printed. Throws std::runtime_error naming the tool, how it ended
// and the end of its stderr when it does not exit with status 0.
ToolRun run_tool(const ExternalTool& tool, const ToolInvocation& invocation);

// The name a tool opens the scratch file by.
inline constexpr const char* kToolScratchFile = "/proc/self/fd/3";

}  // namespace dlcbench
