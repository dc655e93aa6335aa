#include "test_support.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "core/process.h"
#include "core/results_file.h"

namespace dlcbench::testing {

namespace {
// A run's replacements for disturbed launches are off in the tests (--max-runs
// equal to --runs) unless a test asks for added rounds: under `ctest -j2` the
// other test's CPU disturbs nearly every launch, and replacing them would make
// every run half as long again; the tests of replacement give --max-runs.
std::vector<std::string> with_fixed_rounds(std::vector<std::string> args) {
  if (args.empty() || (args[0] != "run" && args[0] != "explain" && args[0] != "calibrate")) return args;
  std::string runs;
  // Options stop at "--": what follows is a user's command, left as given.
  const auto command = std::find(args.begin(), args.end(), "--");
  const std::size_t options = static_cast<std::size_t>(command - args.begin());
  for (std::size_t i = 0; i < options; ++i) {
    for (const char* adds : {"--max-runs", "--precision", "--until-cv", "--resume"})
      if (args[i] == adds || args[i].rfind(std::string(adds) + "=", 0) == 0) return args;
    if (args[i] == "--runs" && i + 1 < options) runs = args[i + 1];
  }
  if (runs.empty()) runs = "20";
  if (runs.empty() || runs.size() > 6 || runs.find_first_not_of("0123456789") != std::string::npos) return args;
  if (const long n = std::stol(runs); n < 1 || n > 100000) return args;  // refused anyway: leave the message to it
  args.insert(args.begin() + static_cast<std::ptrdiff_t>(options), {"--max-runs", runs});
  return args;
}

// Every dlcbench a test starts adds its runs to a results store of this
// test process's own, removed at its end: never the user's. A store set
// by whoever runs the tests (DLCBENCH_STORE) is kept as given.
class TestStore {
 public:
  TestStore() {
    if (std::getenv("DLCBENCH_STORE")) return;
    std::string tmpl = (std::filesystem::temp_directory_path() / "dlcbench-test-store-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) return;
    dir_ = tmpl;
    ::setenv("DLCBENCH_STORE", (dir_ / "store.sqlite").c_str(), 1);
  }
  ~TestStore() {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  TestStore(const TestStore&) = delete;
  TestStore& operator=(const TestStore&) = delete;

 private:
  std::filesystem::path dir_;
};
const TestStore g_test_store;
}  // namespace

BusyCpus::BusyCpus() {
  for (unsigned i = 0; i < std::max(1u, std::thread::hardware_concurrency()); ++i)
    spinners_.emplace_back([this] {
      volatile std::uint64_t n = 0;
      while (!stop_.load(std::memory_order_relaxed)) n = n + 1;
    });
}

BusyCpus::~BusyCpus() { stop(); }

void BusyCpus::stop() {
  stop_ = true;
  for (auto& t : spinners_)
    if (t.joinable()) t.join();
}

CliResult run_dlcbench(const std::vector<std::string>& given,
                       const std::vector<std::pair<std::string, std::string>>& env, double timeout_seconds) {
  const std::vector<std::string> args = with_fixed_rounds(given);
  ProcessSpec spec;
  spec.argv = {DLCBENCH_BINARY};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = env;
  spec.timeout_seconds = timeout_seconds;
  CliResult r;
  auto result = run_process(spec, [&](std::string_view line) {
    r.out.append(line);
    r.out.push_back('\n');
  });
  r.exit_code = result.signal ? 128 + result.signal : result.exit_code;
  r.err = result.stderr_tail;
  return r;
}

pid_t spawn_dlcbench(const std::vector<std::string>& args, const std::filesystem::path& log) {
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const pid_t pid = spawn_dlcbench_with(args, fd, fd);
  ::close(fd);
  return pid;
}

pid_t spawn_dlcbench_with(const std::vector<std::string>& given, int stdout_fd, int stderr_fd, int close_in_child) {
  const std::vector<std::string> args = with_fixed_rounds(given);
  std::vector<std::string> argv = {DLCBENCH_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> c;
  for (auto& a : argv) c.push_back(a.data());
  c.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    if (close_in_child >= 0) ::close(close_in_child);
    for (const auto& [from, to] : {std::pair{stdout_fd, STDOUT_FILENO}, std::pair{stderr_fd, STDERR_FILENO}}) {
      if (from >= 0) dup2(from, to);
      else ::close(to);
    }
    execv(c[0], c.data());
    _exit(127);
  }
  return pid;
}

int exit_status_within(pid_t pid, double seconds) {
  int status = 0;
  if (!wait_until([&] { return waitpid(pid, &status, WNOHANG) == pid; }, seconds)) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::filesystem::path only_run_dir(const std::filesystem::path& out) {
  std::vector<std::filesystem::path> dirs;
  if (std::filesystem::exists(out))
    for (const auto& e : std::filesystem::directory_iterator(out)) dirs.push_back(e.path());
  EXPECT_EQ(dirs.size(), 1u) << "expected exactly one run folder in " << out;
  return dirs.empty() ? out : dirs.front();
}

std::vector<nlohmann::json> read_records(const std::filesystem::path& run_dir) {
  auto content = read_results(run_dir / "results.jsonl");
  EXPECT_TRUE(content.bad_lines.empty()) << content.bad_lines.size() << " invalid lines in results.jsonl";
  return content.records;
}

std::vector<nlohmann::json> records_so_far(const std::filesystem::path& out) {
  // Tests poll this every few milliseconds while a run writes thousands of
  // records: each file is read on from where the last call stopped, and only
  // its new whole lines are parsed (parsing it all again, in unoptimised
  // test code, cost a CPU core for as long as a run lasted).
  struct Tail {
    std::uintmax_t offset = 0;
    std::vector<nlohmann::json> records;
  };
  static std::map<std::filesystem::path, Tail> tails;
  std::vector<nlohmann::json> records;
  std::error_code ec;
  if (!std::filesystem::exists(out, ec)) return records;
  for (const auto& d : std::filesystem::directory_iterator(out, ec)) {
    const auto file = d.path() / "results.jsonl";
    const auto size = std::filesystem::file_size(file, ec);
    if (ec) continue;
    Tail& tail = tails[file];
    if (size < tail.offset) tail = Tail{};  // a new file under the same name
    std::ifstream in(file, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(tail.offset));
    std::string line;
    while (std::getline(in, line) && !in.eof()) {  // a line without its newline is still being written
      tail.offset += line.size() + 1;
      auto r = nlohmann::json::parse(line, nullptr, false);
      if (r.is_object()) tail.records.push_back(std::move(r));
    }
    records.insert(records.end(), tail.records.begin(), tail.records.end());
  }
  return records;
}

bool has_sample(const std::filesystem::path& out, const std::string& env, const std::string& case_id, int round) {
  for (const auto& r : records_so_far(out))
    if (r.value("type", "") == "sample" && r.value("phase", "") == "measured" && r.value("env", "") == env &&
        (case_id.empty() || r.value("case", "") == case_id) && (round == 0 || r.value("round", 0) == round))
      return true;
  return false;
}

bool wait_until(const std::function<bool()>& done, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

std::map<std::string, EnvSummary> summarize_by_env(const std::vector<nlohmann::json>& records) {
  std::map<std::string, EnvSummary> by_env;
  for (const auto& r : records) {
    const std::string type = r.value("type", "");
    auto& s = by_env[r.value("env", "")];
    if (type == "launch" && r.value("ok", false)) ++s.ok_launches;
    if (type == "sample" && r.value("phase", "") == "measured") ++s.measured;
    if (type == "fingerprint") s.fingerprints.push_back(r);
  }
  return by_env;
}

const nlohmann::json& doctor_report() {
  static const nlohmann::json report = [] {
    auto r = run_dlcbench({"doctor", "--json"}, {}, 600);
    return nlohmann::json::parse(r.out, nullptr, false);
  }();
  return report;
}

std::string runtime_problem(const std::string& runtime) {
  const nlohmann::json& report = doctor_report();
  if (report.is_discarded()) return "dlcbench doctor --json printed no JSON";
  // Docker with gVisor as its runtime: the doctor's gVisor section.
  if (runtime == "docker:runtime=runsc") {
    const auto& docker = report["gvisor"]["docker"];
    if (docker.is_null()) return "not in the doctor's report";
    return docker["starts"].get<bool>() ? "" : docker["problem"].get<std::string>();
  }
  for (const auto& r : report["runtimes"])
    if (r["name"] == runtime) return r["starts"].get<bool>() ? "" : r["problem"].get<std::string>();
  return "not in the doctor's report";
}

bool runtimes_required() {
  const char* r = std::getenv("DLCBENCH_REQUIRE_RUNTIMES");
  return r && std::string(r) == "1";
}

bool docker_reachable() {
  return find_program("docker") &&
         capture_output({"docker", "version", "--format", "{{.Server.Version}}"}, 30).result.ok();
}

}  // namespace dlcbench::testing
