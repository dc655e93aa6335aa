// Which runs are going on now, by run id: each session of a run holds a
// lock on a file named after its id in $TMPDIR/dlcbench-live while it runs.
// The kernel drops the lock when the process dies, even by SIGKILL, so what
// a killed run left behind (scratch folders, containers, image tags, all
// named after its id) can be told apart from a live run's and removed
// (`dlcbench doctor --clean`), and a live run's never is.
#pragma once

#include <filesystem>
#include <string>

namespace dlcbench {

// The folder of the lock files: $TMPDIR/dlcbench-live.
std::filesystem::path live_runs_folder();

class LiveRun {
 public:
  // Takes the lock of `run_id` (a second session of the same run waits at
  // the run folder's own lock first, orchestrator/resume.h). Where the
  // folder cannot be written, the run goes on unmarked: a cleanup then
  // cannot tell it is live, and says so for ids it finds unmarked.
  explicit LiveRun(const std::string& run_id, const std::filesystem::path& folder = live_runs_folder());
  ~LiveRun();
  LiveRun(const LiveRun&) = delete;
  LiveRun& operator=(const LiveRun&) = delete;

 private:
  std::filesystem::path file_;
  int fd_ = -1;
};

enum class RunLiveness {
  live,      // its lock is held: a process of the run is alive
  ended,     // its lock file is there and free: the run ended or was killed
  unmarked,  // no lock file: an older dlcbench, or the run's scratch outlived the file
};
RunLiveness run_liveness(const std::string& run_id, const std::filesystem::path& folder = live_runs_folder());

}  // namespace dlcbench
