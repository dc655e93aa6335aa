// `dlcbench doctor --clean`: removes what runs killed with SIGKILL left on
// this machine (their scratch folders, containers and image tags, each
// named after its run id), and never what a live run uses.
#include "cli/doctor_clean.h"

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "core/live_runs.h"
#include "runtimes/leftovers.h"

namespace dlcbench::cli {
namespace {

namespace fs = std::filesystem;

// Another dlcbench process alive now (its own lock aside): a run of an older
// dlcbench marks nothing, so what it made cannot be told from a killed run's.
bool another_dlcbench_runs() {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator("/proc", error)) {
    const std::string pid = entry.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos || std::stol(pid) == getpid()) continue;
    std::error_code link_error;
    const fs::path exe = fs::read_symlink(entry.path() / "exe", link_error);
    if (!link_error && exe.filename() == "dlcbench") return true;
  }
  return false;
}

}  // namespace

int clean_run_leftovers() {
  const fs::path self_exe = fs::read_symlink("/proc/self/exe");
  const auto found = find_run_leftovers();
  if (found.empty()) {
    std::cout << "nothing left by runs that ended: no dlcbench scratch folder in " << fs::temp_directory_path().string()
              << ", no container labelled dlcbench.run and no run's image tag\n";
    return kExitOk;
  }
  const bool others = another_dlcbench_runs();
  std::vector<std::string> problems;
  for (const auto& [run_id, what] : found) {
    const RunLiveness liveness = run_liveness(run_id);
    if (liveness == RunLiveness::live) {
      std::cout << fmt::format("run {} is going on: left alone ({} of its own)\n", run_id, what.size());
      continue;
    }
    if (liveness == RunLiveness::unmarked) {
      // No mark in this $TMPDIR: a run of an older dlcbench, or of one with
      // another $TMPDIR, which may be going on. Only what it is can tell.
      std::cout << fmt::format("run {} has {} but no mark of a live or ended run in {}{}: left alone (a dlcbench "
                               "older than this one, or one with another $TMPDIR, may be running it); remove them "
                               "by hand once it is not\n",
                               run_id, fmt::join(what, ", "), live_runs_folder().string(),
                               others ? ", and another dlcbench runs now" : "");
      continue;
    }
    const auto removed = remove_run_leftovers(run_id, self_exe, problems);
    std::cout << fmt::format("run {} ({}): removed {}\n", run_id, "killed, or ended without cleaning up",
                             removed.empty() ? std::string("nothing (already gone)") : fmt::format("{}", fmt::join(removed, ", ")));
    std::error_code error;
    fs::remove(live_runs_folder() / (run_id + ".lock"), error);
  }
  for (const auto& problem : problems) std::cerr << "warning: could not remove: " << problem << "\n";
  return problems.empty() ? kExitOk : kExitFailure;
}

}  // namespace dlcbench::cli
