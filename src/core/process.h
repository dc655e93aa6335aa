// Child processes started from an argument vector (never through a shell),
// with their output streamed line by line, a time limit and cancellation.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dlcbench {

struct ProcessSpec {
  std::vector<std::string> argv;
  // Set in the child's environment on top of the inherited one.
  std::vector<std::pair<std::string, std::string>> env;
  double timeout_seconds = 0;  // 0: no limit
  // Polled while the child runs; when it turns true the child is stopped.
  const std::atomic<bool>* cancel = nullptr;
  // Files the child sees as empty: it runs in a private mount namespace with
  // /dev/null bound over each (crun on hybrid cgroup layouts). Needs
  // CAP_SYS_ADMIN.
  std::vector<std::string> hide_files;
  // The child's working folder; empty: the parent's.
  std::string cwd;
  // An open descriptor the child receives as its descriptor 3 (a scratch
  // file an external tool opens as /proc/self/fd/3); -1: none.
  int child_fd3 = -1;
  // An open descriptor the child reads as its stdin (a file streamed to a
  // remote step); -1: /dev/null.
  int stdin_fd = -1;
};

struct ProcessResult {
  int exit_code = -1;  // valid when signal == 0 and the child ran
  int signal = 0;      // the signal that ended the child, if any
  bool timed_out = false;
  bool cancelled = false;
  std::string exec_error;   // why the program could not be started
  std::string stderr_tail;  // the last 64 KiB the child wrote to stderr

  bool ok() const { return exec_error.empty() && signal == 0 && exit_code == 0; }
  // "exited with status 2", "killed by signal 9 (Killed)", "timed out after 5 s", ...
  std::string describe() const;
};

// Runs the child to its end. Each complete line of its stdout goes to
// on_line as it arrives. The child runs in a process group of its own, so a
// Ctrl-C on the terminal reaches only dlcbench, which decides what to stop.
ProcessResult run_process(const ProcessSpec& spec,
                          const std::function<void(std::string_view)>& on_line);

struct CapturedOutput {
  ProcessResult result;
  std::string out;
};
// For short helper commands (docker version, ldd, tar): all of stdout at once.
CapturedOutput capture_output(std::vector<std::string> argv, double timeout_seconds = 120,
                              std::vector<std::string> hide_files = {});

// The first non-blank line of a helper command's output, trimmed at the front
// (a version string, an error's first line).
std::string first_line(const std::string& text);

// The last n characters of s (the end of a long stderr).
std::string tail(const std::string& s, std::size_t n);

// The full path of a program found on PATH, like `command -v`.
std::optional<std::string> find_program(std::string_view name);

// CPUs this process may run on (its affinity), at least 1.
int usable_cpu_count();

}  // namespace dlcbench
