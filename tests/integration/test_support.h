// Running the real dlcbench binary from tests.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace dlcbench::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr (tail)
};

// Runs `dlcbench ARGS...` to completion.
CliResult run_dlcbench(const std::vector<std::string>& args,
                       const std::vector<std::pair<std::string, std::string>>& env = {},
                       double timeout_seconds = 900);

// Starts `dlcbench ARGS...` in the background; returns its pid.
pid_t spawn_dlcbench(const std::vector<std::string>& args, const std::filesystem::path& log);

// The same with descriptors 1 and 2 as given (-1: closed in the child);
// `close_in_child` (-1: none) is closed there first.
pid_t spawn_dlcbench_with(const std::vector<std::string>& args, int stdout_fd, int stderr_fd, int close_in_child = -1);

// The exit status of a spawned pid (128 + signal for a signal) once it ends
// within `seconds`; otherwise it is killed and -1 returned.
int exit_status_within(pid_t pid, double seconds);

// The single run folder dlcbench created under `out`.
std::filesystem::path only_run_dir(const std::filesystem::path& out);

// Records of results.jsonl; fails the test if any line is not valid JSON.
std::vector<nlohmann::json> read_records(const std::filesystem::path& run_dir);

// Records a run under `out` has written so far: it may still be going, so a
// last line being written is left out, not a failure.
std::vector<nlohmann::json> records_so_far(const std::filesystem::path& out);

// A measured (not warm-up) sample in `env` has been written (of `case_id` in `round`
// where given).
bool has_sample(const std::filesystem::path& out, const std::string& env, const std::string& case_id = "",
                int round = 0);

// Other processes busy on every CPU while it lives: a run measured then is
// disturbed from outside (analysis/disturbance.h) in every launch.
class BusyCpus {
 public:
  BusyCpus();
  ~BusyCpus();
  BusyCpus(const BusyCpus&) = delete;
  BusyCpus& operator=(const BusyCpus&) = delete;
  void stop();

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> spinners_;
};

// Polls `done` every 20 ms until it holds or `seconds` pass; its last answer.
bool wait_until(const std::function<bool()>& done, double seconds);

bool docker_reachable();

// `dlcbench doctor --json`, run once per test binary.
const nlohmann::json& doctor_report();
// Why the doctor finds `runtime` unable to start containers; "" if it can.
// "docker:runtime=runsc": Docker with gVisor's runsc registered as a runtime.
std::string runtime_problem(const std::string& runtime);
// DLCBENCH_REQUIRE_RUNTIMES=1 (set by .ci/run): a runtime that cannot start
// fails a test instead of skipping it.
bool runtimes_required();

// Per environment label: successful launches, measured samples, fingerprints.
struct EnvSummary {
  int ok_launches = 0;
  int measured = 0;
  std::vector<nlohmann::json> fingerprints;
};
std::map<std::string, EnvSummary> summarize_by_env(const std::vector<nlohmann::json>& records);

}  // namespace dlcbench::testing

// Skips the test (fails it under DLCBENCH_REQUIRE_RUNTIMES=1) when the
// runtime cannot start containers here.
#define REQUIRE_RUNTIME(name)                                                            \
  do {                                                                                   \
    const std::string problem = ::dlcbench::testing::runtime_problem(name);              \
    if (!problem.empty()) {                                                              \
      if (::dlcbench::testing::runtimes_required())                                      \
        FAIL() << name << " cannot start containers here: " << problem;                  \
      GTEST_SKIP() << name << " cannot start containers here (set up by .ci/run): " << problem; \
    }                                                                                    \
  } while (0)
