#include "orchestrator/resume.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "analysis/analysis.h"
#include "core/errors.h"

namespace dlcbench {

std::vector<CellRuns> earlier_cell_runs(const Manifest& manifest, const std::vector<nlohmann::json>& records) {
  const Analysis earlier = analyze(manifest, records);
  std::vector<CellRuns> cells;
  for (const auto& c : earlier.cases)
    for (const auto& es : c.envs) {
      CellRuns cell;
      cell.case_id = c.case_id;
      cell.env = es.env;
      std::set<int> disturbed;
      for (const auto& run : es.disturbed_runs) {
        disturbed.insert(run.round);
        cell.disturbed_values.push_back(run.value);
        cell.disturbed_rounds.push_back(run.round);
      }
      // Where too few undisturbed runs kept the disturbed ones in the
      // statistics, they are among run_values too: listed once, as disturbed.
      for (std::size_t i = 0; i < es.run_values.size() && i < es.run_rounds.size(); ++i)
        if (!disturbed.count(es.run_rounds[i])) {
          cell.run_values.push_back(es.run_values[i]);
          cell.rounds.push_back(es.run_rounds[i]);
        }
      cells.push_back(std::move(cell));
    }
  return cells;
}

double earlier_measuring_seconds(const std::vector<nlohmann::json>& records) {
  double first = 0, last = 0;
  // results.jsonl is the user's file: a field of the wrong type counts as absent.
  auto number = [](const nlohmann::json& r, const char* key) {
    const auto it = r.find(key);
    return it != r.end() && it->is_number() ? it->get<double>() : 0.0;
  };
  for (const auto& r : records) {
    const auto type = r.find("type");
    if (type == r.end() || *type != "launch") continue;
    const double started = number(r, "started_unix"), ended = number(r, "ended_unix");
    if (started > 0 && (first == 0 || started < first)) first = started;
    last = std::max(last, ended);
  }
  return first > 0 && last > first ? last - first : 0.0;
}

std::string binary_difference(const Manifest& manifest, const std::string& this_binary_sha256) {
  const std::string recorded = manifest.binary_sha256();
  if (recorded.empty())
    return "the manifest does not record the sha256 of the dlcbench binary that started the run, so this one cannot "
           "be shown to measure the same bits";
  if (recorded != this_binary_sha256)
    return fmt::format("the run was started by a dlcbench binary with sha256 {}, this one has {}: a resumed run must "
                       "measure with the same bits. Resume it with the binary that started it, or start a new run",
                       recorded, this_binary_sha256);
  return "";
}

RunFolderLock::RunFolderLock(const std::filesystem::path& dir) {
  fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) throw UsageError(fmt::format("cannot open {}: {}", dir.string(), std::strerror(errno)));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    ::close(fd_);
    fd_ = -1;
    if (error == EWOULDBLOCK)
      throw UsageError(fmt::format("{} is in use by a dlcbench run that is still going: wait for it to end (or stop "
                                   "it) before resuming",
                                   dir.string()));
    throw UsageError(fmt::format("cannot lock {}: {}", dir.string(), std::strerror(error)));
  }
}

RunFolderLock::~RunFolderLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

}  // namespace dlcbench
