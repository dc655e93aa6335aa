#include "core/live_runs.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

namespace dlcbench {

std::filesystem::path live_runs_folder() { return std::filesystem::temp_directory_path() / "dlcbench-live"; }

LiveRun::LiveRun(const std::string& run_id, const std::filesystem::path& folder) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  file_ = folder / (run_id + ".lock");
  fd_ = ::open(file_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

LiveRun::~LiveRun() {
  if (fd_ < 0) return;
  // Removed while still held: a cleanup that opens it now finds it gone.
  std::error_code error;
  std::filesystem::remove(file_, error);
  ::close(fd_);
}

RunLiveness run_liveness(const std::string& run_id, const std::filesystem::path& folder) {
  const std::filesystem::path file = folder / (run_id + ".lock");
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return RunLiveness::unmarked;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held ? RunLiveness::live : RunLiveness::ended;
}

}  // namespace dlcbench
