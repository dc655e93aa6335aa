#include "orchestrator/run_folder.h"

#include <ctime>
#include <random>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "core/errors.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

// Time, then a random part: two runs started in the same second (with the
// same --seed, say) name their folders and containers apart.
std::string make_run_id() {
  return fmt::format("{:%Y%m%d-%H%M%S}-{:04x}", fmt::gmtime(std::time(nullptr)), std::random_device{}() & 0xffff);
}

}  // namespace

std::string now_iso() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

// The results folder (--out) and the run's own folder in it, named by a new
// run id. An --out that cannot be made (a file in its path, a read-only file
// system) is bad input; the folders made before the failure are removed.
fs::path create_run_folder(const fs::path& out, std::string& run_id, const std::string& name) {
  std::error_code error;
  std::vector<fs::path> missing;  // innermost first
  for (fs::path p = fs::absolute(out, error); !error && !p.empty() && !fs::exists(fs::symlink_status(p, error));
       p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  std::vector<fs::path> made;
  auto refuse = [&](const fs::path& folder, const std::string& why) {
    for (auto it = made.rbegin(); it != made.rend(); ++it) fs::remove(*it, error);
    throw UsageError(fmt::format("--out {}: cannot create the folder {}: {}; give a folder you can write to",
                                 out.string(), folder.string(), why));
  };
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (!fs::create_directory(*it, error) && error) refuse(*it, error.message());
    made.push_back(*it);
  }
  if (!fs::is_directory(out, error)) refuse(out, "it exists and is not a folder");
  // Made here and only here: a folder that exists belongs to another run.
  if (!name.empty()) {
    const fs::path dir = out / name;
    if (fs::create_directory(dir, error)) return dir;
    refuse(dir, error ? error.message() : "it exists: another run's folder (give another --run-id, or --resume it)");
  }
  for (;;) {
    run_id = make_run_id();
    const fs::path dir = out / run_id;
    if (fs::create_directory(dir, error)) return dir;
    if (error) refuse(dir, error.message());
  }
}

}  // namespace dlcbench
