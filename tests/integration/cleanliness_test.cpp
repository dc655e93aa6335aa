// After any run - one that succeeds, one whose launches fail, one stopped
// with Ctrl-C - the machine is as it was: no container, no image built for
// the run, no OCI bundle or scratch folder, no mount, no cgroup, nothing new
// in /dev/shm, and no process of the run left, in every runtime that starts
// containers here.
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/memory.h"
#include "../unit/test_files.h"
#include "core/process.h"
#include "test_support.h"

namespace dlcbench {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::set<std::string> lines_of(const std::string& text) {
  std::set<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) lines.insert(line);
  return lines;
}

// Folders whose name holds "dlcbench" or "libpod" under `root`, a few levels down.
void named_folders(const fs::path& root, int depth, std::set<std::string>& found) {
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec) || it->is_symlink(ec)) continue;
    const std::string name = it->path().filename().string();
    if (name.find("dlcbench") != std::string::npos || name.find("libpod") != std::string::npos)
      found.insert(it->path().string());
    if (depth > 0) named_folders(it->path(), depth - 1, found);
  }
}

// What a run may leave behind, as sets of names.
struct MachineState {
  std::map<std::string, std::set<std::string>> parts;

  static MachineState read(const std::vector<std::string>& engines) {
    MachineState s;
    for (const auto& engine : engines) {
      s.parts[engine + " containers"] = lines_of(capture_output({engine, "ps", "-a", "--format", "{{.Names}}"}, 60).out);
      s.parts[engine + " images"] =
          lines_of(capture_output({engine, "images", "--format", "{{.Repository}}:{{.Tag}}"}, 60).out);
    }
    std::ifstream mounts("/proc/self/mountinfo");
    std::set<std::string> mount_points;
    std::string line;
    while (std::getline(mounts, line)) {
      std::istringstream fields(line);
      std::string id, parent, device, root, point;
      fields >> id >> parent >> device >> root >> point;
      mount_points.insert(point);
    }
    s.parts["mounts"] = mount_points;
    std::set<std::string> scratch;
    for (const auto& e : fs::directory_iterator(fs::temp_directory_path())) {
      const std::string name = e.path().filename().string();
      if (name.rfind("dlcbench", 0) == 0 && name.rfind("dlcbench-test-", 0) != 0) scratch.insert(name);
    }
    s.parts["scratch folders"] = scratch;
    std::set<std::string> shm;
    for (const auto& e : fs::directory_iterator("/dev/shm")) shm.insert(e.path().filename().string());
    s.parts["/dev/shm"] = shm;
    std::set<std::string> cgroups;
    named_folders("/sys/fs/cgroup", 3, cgroups);
    s.parts["cgroups"] = cgroups;
    return s;
  }
};

// Processes whose command line names the run (containers, conmon, workers).
std::vector<std::string> processes_of_run(const std::string& run_id) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    // A process that ends while this reads fails the read (ESRCH): it reads as
    // empty, as it is gone.
    std::string args = read_small_file(entry.path() / "cmdline");
    if (args.find(run_id) != std::string::npos) {
      std::replace(args.begin(), args.end(), '\0', ' ');
      found.push_back(name + ": " + args);
    }
  }
  return found;
}

void expect_unchanged(const MachineState& before, const MachineState& after, const std::string& what) {
  for (const auto& [part, items] : after.parts) {
    std::vector<std::string> added;
    for (const auto& item : items)
      if (!before.parts.at(part).count(item)) added.push_back(item);
    EXPECT_TRUE(added.empty()) << what << " left in " << part << ": " << ::testing::PrintToString(added);
  }
}

struct Runtimes {
  std::string envs = "host";
  std::vector<std::string> engines;  // docker, podman: what `ps` and `images` ask
};

Runtimes usable_runtimes() {
  Runtimes r;
  for (const std::string name : {"docker", "podman", "runc", "crun", "runsc", "charliecloud"}) {
    if (!testing::runtime_problem(name).empty()) continue;
    r.envs += "," + name;
    if (name == "docker" || name == "podman") r.engines.push_back(name);
  }
  return r;
}

std::string run_id_in(const fs::path& out) { return testing::only_run_dir(out).filename().string(); }

class Cleanliness : public ::testing::Test {
 protected:
  void SetUp() override {
    runtimes_ = usable_runtimes();
    if (runtimes_.envs == "host" && !testing::runtimes_required())
      GTEST_SKIP() << "no container runtime starts containers here";
    before_ = MachineState::read(runtimes_.engines);
  }
  std::vector<std::string> args(const fs::path& out, std::vector<std::string> more) const {
    std::vector<std::string> a = {"run", "--data", "synthetic", "--threads", "1", "--envs", runtimes_.envs,
                                  "--out", out.string()};
    a.insert(a.end(), more.begin(), more.end());
    return a;
  }
  void expect_clean(const fs::path& out, const std::string& what) {
    const std::string run_id = run_id_in(out);
    EXPECT_EQ(processes_of_run(run_id), std::vector<std::string>{}) << what;
    expect_unchanged(before_, MachineState::read(runtimes_.engines), what);
  }

  Runtimes runtimes_;
  MachineState before_;
};

TEST_F(Cleanliness, AfterARunThatSucceeds) {
  TempDir dir;
  auto r = testing::run_dlcbench(args(dir / "res", {"--workloads", "fcn5,startup,io-seq:size=8m", "--batch", "8",
                                                    "--warmup", "1", "--iters", "2", "--starts", "2", "--runs", "1",
                                                    "--path", "rootfs,tmpfs"}),
                                 {}, 1200);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_clean(dir / "res", "a run that succeeded");
}

TEST_F(Cleanliness, AfterARunWhoseLaunchesFail) {
  TempDir dir;
  // Every launch outlives a one-second case timeout and is stopped.
  auto r = testing::run_dlcbench(args(dir / "res", {"--workloads", "fcn5", "--batch", "8", "--warmup", "1",
                                                    "--iters", "1000", "--runs", "1", "--case-timeout", "1"}),
                                 {}, 1200);
  ASSERT_EQ(r.exit_code, 1) << r.err;
  expect_clean(dir / "res", "a run whose launches failed");
}

TEST_F(Cleanliness, AfterARunStoppedWithCtrlC) {
  TempDir dir;
  const fs::path out = dir / "res";
  const pid_t pid = testing::spawn_dlcbench(
      args(out, {"--workloads", "fcn5", "--batch", "8", "--warmup", "1", "--iters", "200", "--runs", "1",
                 "--no-hold-samples"}),
      dir / "log");
  // Interrupt while a container's worker runs (the last environment listed
  // is a container runtime).
  const std::string last_env = runtimes_.envs.substr(runtimes_.envs.rfind(',') + 1);
  ASSERT_TRUE(testing::wait_until([&] { return testing::has_sample(out, last_env); }, 300))
      << "no sample within 300 s";
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  expect_clean(out, "a run stopped with Ctrl-C");
}

}  // namespace
}  // namespace dlcbench
