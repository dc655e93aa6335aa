// dlcbench-probe: runs a user's command where it is mounted (the host, a
// container from the user's image, a chroot) and says what it saw. Static,
// like dlcbench-noop, so it runs in any image whatever libraries the image
// has. Its stdout is JSON lines for the orchestrator:
//   fingerprint  where it runs: CPUs, affinity, cgroup limits, isolation
//                (seccomp, mitigations, /dev/shm, memlock, file systems,
//                thread variables), GPUs visible
//   phase        the command is about to start
//   output       one line the command wrote, with its stream and the time
//                since the start: the first lines of each stream, then
//                only those --metric matches
//   output_lines how many lines each stream had
//   error        the command could not be started (not found, not executable)
//   libraries    the shared libraries the command's processes mapped, read
//                from /proc/PID/maps while they ran, with build ids
//   accounting   the command's process tree over its run (the worker's
//                record); with --metric, first its start-up ("phase":
//                "startup", up to the line that ends the last warm-up
//                iteration), then its iterations from there
//   leftovers    processes the command left running when it exited (a
//                background job, a daemon, a double fork): ended then, with
//                SIGTERM and after a grace period SIGKILL, and named here
//   command_exit its wall time (to its own exit) and how it ended
// It exits with the command's status (128 + signal for a signal).
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/accounting.h"
#include "core/fingerprint.h"
#include "core/memory.h"
#include "core/syscall_counter.h"
#include "workloads/micro/syscall_cost.h"
#include "core/timer.h"
#include "probe/process_tree.h"
#include "workloads/command_metric.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace dlcbench {
namespace {

constexpr std::size_t kLongestLine = 4096;  // longer output lines are cut there
// Lines of each stream sent as "output" records whatever they hold (the
// orchestrator keeps as many, for messages); after them only the lines
// --metric matches: a command that prints millions is not slowed by a JSON
// record and a parse for each.
constexpr std::size_t kLinesSentOfEachStream = 10;

void emit(const json& record) { std::cout << record.dump(-1, ' ', false, json::error_handler_t::replace) << '\n' << std::flush; }

[[noreturn]] void fail(const std::string& message, int status = 125) {
  emit({{"type", "error"}, {"kind", "probe"}, {"message", message}});
  std::cerr << "dlcbench-probe: " << message << "\n";
  std::exit(status);
}

struct Bind {
  std::string source, destination;
  bool read_only = false;
};

struct ProbeOptions {
  bool fingerprint_only = false;
  std::string chroot_dir;
  std::vector<Bind> binds;
  std::string cwd;
  std::string data;  // the data folder as the command sees it, for its file system
  // --metric: the lines that end an iteration, read as the orchestrator
  // reads them; the start-up ends with the line of iteration
  // max(--warmup, 1).
  std::optional<MetricSpec> metric;
  int warmup = 0;
  // --count-pause S: the counting launch (issue 39): the command runs once,
  // alone, between the marks a trace of calls is cut at, and the probe
  // waits S seconds at each end for the orchestrator's counters.
  double count_pause = -1;
  // --syscall VARIANT --iters N: the system-call cost table (or one kind of
  // it) instead of a command, its samples printed as the worker prints a
  // micro-benchmark's: the probe is static, so the figures depend on no
  // library of the image.
  std::string syscall;
  int iters = 0;
  std::vector<std::string> command;
};

ProbeOptions parse(int argc, char** argv) {
  ProbeOptions o;
  bool higher_is_better = false;
  int i = 1;
  auto value = [&](const char* option) -> std::string {
    if (i + 1 >= argc) fail(fmt::format("{} needs a value", option), 2);
    return argv[++i];
  };
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg == "--fingerprint-only") o.fingerprint_only = true;
    else if (arg == "--chroot") o.chroot_dir = value("--chroot");
    else if (arg == "--cwd") o.cwd = value("--cwd");
    else if (arg == "--data") o.data = value("--data");
    else if (arg == "--metric") o.metric = MetricSpec{.source = MetricSpec::Source::regex, .pattern = value("--metric")};
    else if (arg == "--metric-json") o.metric = MetricSpec{.source = MetricSpec::Source::json_field, .pattern = value("--metric-json")};
    else if (arg == "--higher-is-better") higher_is_better = true;
    else if (arg == "--warmup") {
      const std::string text = value("--warmup");
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 6)
        fail("--warmup " + text + ": give a count of iterations", 2);
      o.warmup = std::stoi(text);
    }
    else if (arg == "--syscall") o.syscall = value("--syscall");
    else if (arg == "--iters") {
      const std::string text = value("--iters");
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 6 || text == "0")
        fail("--iters " + text + ": give a count of operations", 2);
      o.iters = std::stoi(text);
    }
    else if (arg == "--count-pause") {
      const std::string text = value("--count-pause");
      char* end = nullptr;
      o.count_pause = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0' || !(o.count_pause >= 0 && o.count_pause <= 10))
        fail("--count-pause " + text + ": give seconds from 0 to 10", 2);
    }
    else if (arg == "--bind") {
      // SOURCE:DESTINATION[:ro]
      const std::string text = value("--bind");
      Bind b;
      const auto first = text.find(':');
      if (first == std::string::npos) fail("--bind " + text + ": give SOURCE:DESTINATION[:ro]", 2);
      b.source = text.substr(0, first);
      b.destination = text.substr(first + 1);
      if (b.destination.size() > 3 && b.destination.ends_with(":ro")) {
        b.read_only = true;
        b.destination.resize(b.destination.size() - 3);
      }
      o.binds.push_back(b);
    } else {
      fail("unknown option " + arg + " (usage: dlcbench-probe [--fingerprint-only] [--chroot DIR [--bind "
           "SRC:DST[:ro]]...] [--cwd DIR] [--data DIR] [--metric REGEX|--metric-json FIELD [--higher-is-better] "
           "[--warmup N]] [--count-pause S] -- COMMAND [ARGS...]; or --syscall VARIANT --iters N [--warmup N] "
           "[--count-pause S])",
           2);
    }
  }
  for (; i < argc; ++i) o.command.emplace_back(argv[i]);
  if (o.metric) o.metric->higher_is_better = higher_is_better;
  if (!o.syscall.empty()) {
    if (!o.command.empty()) fail("--syscall runs the cost table, not a command: leave out the command after --", 2);
    if (o.iters < 1) fail("--syscall needs --iters N", 2);
  } else if (!o.fingerprint_only && o.command.empty()) {
    fail("no command given after --", 2);
  }
  return o;
}

// The image's root file system without isolation: only a private mount
// namespace, so the binds (/proc, /sys, /dev, data, working folder) vanish
// with the probe and the host's mount table is untouched. No PID, network,
// IPC or user namespace, no cgroup, no seccomp filter.
void enter_chroot(const ProbeOptions& o) {
  if (unshare(CLONE_NEWNS) != 0) fail(fmt::format("unshare(CLONE_NEWNS) for the chroot's mounts: {}", std::strerror(errno)));
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    fail(fmt::format("making the mounts private: {}", std::strerror(errno)));
  for (const auto& b : o.binds) {
    const fs::path target = fs::path(o.chroot_dir) / fs::path(b.destination).relative_path();
    std::error_code error;
    // A folder to mount on is made where the image has none (the working
    // folder, the data), as runc makes its mount points.
    if (!fs::exists(target, error) && fs::is_directory(b.source, error)) fs::create_directories(target, error);
    if (!fs::exists(target, error))
      fail(fmt::format("the root file system {} has no {} to mount {} on, and it could not be made ({}): create "
                       "that folder in it",
                       o.chroot_dir, b.destination, b.source, error ? error.message() : "not a folder"));
    if (mount(b.source.c_str(), target.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0)
      fail(fmt::format("mounting {} on {}: {}", b.source, target.string(), std::strerror(errno)));
    if (b.read_only &&
        mount(nullptr, target.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC, nullptr) != 0)
      fail(fmt::format("making {} read-only: {}", target.string(), std::strerror(errno)));
  }
  if (chroot(o.chroot_dir.c_str()) != 0) fail(fmt::format("chroot {}: {}", o.chroot_dir, std::strerror(errno)));
  if (chdir("/") != 0) fail(fmt::format("chdir / in the chroot: {}", std::strerror(errno)));
}

json probe_fingerprint(const ProbeOptions& o) {
  FingerprintPaths paths;
  if (!o.data.empty()) paths.data = o.data;
  std::error_code error;
  paths.scratch = fs::current_path(error);
  // The probe's own code is the same everywhere; what the command loads is
  // read while it runs ("libraries").
  json j = surroundings_fingerprint(paths);
  j["type"] = "fingerprint";
  j["probe"] = true;
  j["gpus_visible"] = json::array();
  for (const auto& entry : fs::directory_iterator("/dev", error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("nvidia", 0) == 0 && name.size() > 6 && std::isdigit(static_cast<unsigned char>(name[6])))
      j["gpus_visible"].push_back(name);
  }
  std::sort(j["gpus_visible"].begin(), j["gpus_visible"].end());
  // What the probe could not read, so a missing field is not taken for "none".
  json unreadable = json::array();
  for (const char* file : {"/proc/self/status", "/proc/self/maps", "/proc/stat", "/sys/devices/system/cpu/online"})
    if (access(file, R_OK) != 0) unreadable.push_back(fmt::format("{}: {}", file, std::strerror(errno)));
  j["unreadable"] = unreadable;
  return j;
}

// The exit of a command as a record, and the probe's own exit status for it
// (128 + signal for a signal).
json command_exit_record(int status, double wall, int& code) {
  json record = {{"type", "command_exit"}, {"wall_seconds", wall}, {"exit_code", nullptr}, {"signal", nullptr}};
  code = 0;
  if (WIFEXITED(status)) code = WEXITSTATUS(status), record["exit_code"] = code;
  else if (WIFSIGNALED(status)) code = 128 + WTERMSIG(status), record["signal"] = WTERMSIG(status);
  return record;
}

pid_t g_child = 0;
void forward_signal(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

// Reads the command's output and samples its process tree until it ends.
class CommandRun {
 public:
  explicit CommandRun(const ProbeOptions& o) : options_(o) {}

  int run() {
    // Orphans of the command come to the probe, so their use is counted
    // when they are reaped (in a container the probe is already PID 1).
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    PhaseAccounting accounting(AccountingScope::children);
    accounting_ = &accounting;
    if (options_.metric) metric_.emplace(*options_.metric);
    int out_pipe[2], err_pipe[2], exec_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC) || pipe2(exec_pipe, O_CLOEXEC))
      fail(fmt::format("pipe: {}", std::strerror(errno)));
    std::vector<char*> argv;
    for (const auto& a : options_.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    emit({{"type", "phase"}, {"phase", "measured"}});
    probe_cpu_at_start_ = process_cpu_seconds();
    accounting.start();
    Stopwatch since_start;
    g_child = fork();
    if (g_child < 0) fail(fmt::format("fork: {}", std::strerror(errno)));
    if (g_child == 0) {
      dup2(out_pipe[1], STDOUT_FILENO);
      dup2(err_pipe[1], STDERR_FILENO);
      execvp(argv[0], argv.data());
      const int error = errno;
      [[maybe_unused]] auto written = write(exec_pipe[1], &error, sizeof error);
      _exit(127);
    }
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) signal(sig, forward_signal);
    close(out_pipe[1]);
    close(err_pipe[1]);
    close(exec_pipe[1]);
    int exec_error = 0;
    const bool exec_failed = read(exec_pipe[0], &exec_error, sizeof exec_error) == sizeof exec_error;
    close(exec_pipe[0]);
    if (exec_failed) {
      int status = 0;
      waitpid(g_child, &status, 0);
      const char* path = std::getenv("PATH");
      const std::string where =
          options_.command[0].find('/') != std::string::npos
              ? fmt::format("{}", options_.command[0])
              : fmt::format("{} searched in PATH={}", options_.command[0], path ? path : "(unset: /bin:/usr/bin)");
      emit({{"type", "error"},
            {"kind", "command"},
            {"message", fmt::format("cannot run {}: {}", where, std::strerror(exec_error))}});
      return exec_error == ENOENT ? 127 : 126;
    }

    // The moment the command exits, taken by a thread that does nothing
    // else: the loop below may be reading /proc or output just then, and
    // would see the exit late. WNOWAIT leaves the command for reap().
    std::atomic<double> exited_at{-1};
    std::thread exit_watch([&exited_at, &since_start, child = g_child] {
      siginfo_t info{};
      while (waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
      }
      exited_at = since_start.seconds();
    });
    read_until_exit(out_pipe[0], err_pipe[0], since_start);
    exit_watch.join();
    // The command's own run, to its exit: not the time it took to end what it left.
    const double wall = exited_at >= 0 ? exited_at.load() : exit_seconds_ >= 0 ? exit_seconds_ : since_start.seconds();
    if (!leftovers_.is_null()) emit(leftovers_);
    json record = accounting.finish(1);
    add_threads(record, times_at_split_, marked_ ? times_at_mark_ : thread_times_);
    std::map<std::string, LoadedLibrary> libraries;
    for (const auto& path : library_paths_) libraries[path] = describe_library(path);
    // To its end, the libraries' reading included: the orchestrator's
    // reading from outside counts that far.
    record["probe_cpu_seconds"] = process_cpu_seconds() - (split_done_ ? probe_cpu_at_split_ : probe_cpu_at_start_);
    record["process_tree"] = {{"processes_seen", processes_seen_.size()}, {"samples", samples_}};
    emit({{"type", "output_lines"}, {"stdout", stdout_lines_}, {"stderr", stderr_lines_}});
    emit({{"type", "libraries"}, {"libraries", libraries_json(libraries)}, {"samples", samples_}});
    emit(record);
    int code = 0;
    emit(command_exit_record(status_, wall, code));
    return code;
  }

 private:
  // Polls both pipes; samples the tree on a schedule that starts fast (a
  // short command may live only milliseconds); reaps every child.
  void read_until_exit(int out_fd, int err_fd, const Stopwatch& since_start) {
    static constexpr double kSchedule[] = {0.002, 0.01, 0.03, 0.06, 0.1, 0.2};
    std::size_t next_sample = 0;
    double sample_at = kSchedule[0];
    std::map<int, std::string> pending = {{out_fd, ""}, {err_fd, ""}};
    bool child_done = false;
    double drained_since = -1;
    // Readable when the command exits, though what it left running keeps
    // its pipes open (Linux 5.3 and later; else the pipes and the schedule
    // find the exit).
    int exit_fd = static_cast<int>(syscall(SYS_pidfd_open, g_child, 0));
    while (!pending.empty()) {
      std::vector<pollfd> fds;
      for (const auto& [fd, text] : pending) fds.push_back({fd, POLLIN, 0});
      if (exit_fd >= 0) fds.push_back({exit_fd, POLLIN, 0});
      const double now = since_start.seconds();
      int wait_ms = child_done ? 50 : std::max(0, static_cast<int>((sample_at - now) * 1000));
      poll(fds.data(), fds.size(), wait_ms);
      for (const auto& p : fds) {
        if (p.fd == exit_fd || !(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
        char buffer[65536];
        const ssize_t n = read(p.fd, buffer, sizeof buffer);
        if (n <= 0) {
          flush_line(pending[p.fd], p.fd == err_fd, since_start, true);
          close(p.fd);
          pending.erase(p.fd);
          continue;
        }
        if (p.fd == err_fd) [[maybe_unused]] auto copied = write(STDERR_FILENO, buffer, static_cast<std::size_t>(n));
        pending[p.fd].append(buffer, static_cast<std::size_t>(n));
        flush_line(pending[p.fd], p.fd == err_fd, since_start, false);
      }
      if (!child_done && since_start.seconds() >= sample_at) {
        sample();
        sample_at = since_start.seconds() + (next_sample + 1 < std::size(kSchedule) ? kSchedule[++next_sample] : 0.25);
      }
      reap();
      if (!child_done && exited_) {
        child_done = true;
        exit_seconds_ = since_start.seconds();
        if (exit_fd >= 0) close(exit_fd), exit_fd = -1;
        end_leftovers();
        drained_since = since_start.seconds();
      }
      // Ended, what it left holds its pipes no longer; a process that
      // escaped the tree might: give it a moment, then stop reading.
      if (child_done && since_start.seconds() - drained_since > 2.0) break;
    }
    if (exit_fd >= 0) close(exit_fd);
    for (const auto& [fd, text] : pending) close(fd);
    while (!exited_) {
      int status = 0;
      const pid_t pid = waitpid(-1, &status, 0);
      if (pid < 0) break;
      if (pid == g_child) exited_ = true, status_ = status;
    }
    reap();
  }

  // What the command left running when it exited is part of it, never of
  // the next launch: a benchmark's launches stay independent, and nothing
  // outlives the run. The probe is their subreaper, so orphans (a double
  // fork, setsid) are its children too.
  void end_leftovers() {
    auto left = process_tree(getpid());
    left.erase(left.begin());  // the probe
    if (left.empty()) return;
    json processes = json::array();
    for (pid_t pid : left) {
      std::string name = read_small_file(fs::path("/proc") / std::to_string(pid) / "comm");
      while (!name.empty() && name.back() == '\n') name.pop_back();
      processes.push_back({{"pid", pid}, {"name", name}});
      kill(pid, SIGTERM);
    }
    std::string signal_used = "SIGTERM";
    Stopwatch grace;
    for (;;) {
      reap();
      auto still = process_tree(getpid());
      if (still.size() <= 1) break;
      if (grace.seconds() > 1.0) {
        signal_used = "SIGKILL";
        for (std::size_t i = 1; i < still.size(); ++i) kill(still[i], SIGKILL);
        // Reaped below, and by the loop's reap().
        for (int tries = 0; tries < 200 && process_tree(getpid()).size() > 1; ++tries) {
          reap();
          usleep(5000);
        }
        break;
      }
      usleep(2000);
    }
    reap();
    leftovers_ = {{"type", "leftovers"}, {"processes", processes}, {"ended_with", signal_used}};
  }

  void reap() {
    for (;;) {
      int status = 0;
      const pid_t pid = waitpid(-1, &status, WNOHANG);
      if (pid <= 0) return;
      if (pid == g_child) exited_ = true, status_ = status;
    }
  }

  void flush_line(std::string& text, bool is_stderr, const Stopwatch& since_start, bool at_end) {
    std::size_t start = 0;
    const std::size_t& count = is_stderr ? stderr_lines_ : stdout_lines_;
    for (auto nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', start)) {
      if (count >= kLinesSentOfEachStream && (!metric_ || !metric_->required_text().empty())) {
        // Past the lines sent of each stream only a line the metric can
        // match is read: the others are counted in one pass over the block
        // (a command may print millions, and a line's cost is the
        // command's time).
        const std::size_t to_read = count_lines_before_a_match(text, start, is_stderr);
        if (to_read != start) {
          start = to_read;
          continue;
        }
      }
      output(text.substr(start, nl - start), is_stderr, since_start);
      start = nl + 1;
    }
    text.erase(0, start);
    if (text.size() > kLongestLine || (at_end && !text.empty())) {
      output(text, is_stderr, since_start);
      text.clear();
    }
  }

  // Counts the whole lines of text from `start` that come before the first
  // line holding the metric's required text (all of them without a metric),
  // and returns where the next line to read begins: that line (`start`
  // itself when it is the first), or the unfinished last one.
  std::size_t count_lines_before_a_match(const std::string& text, std::size_t start, bool is_stderr) {
    std::size_t stop = text.rfind('\n');
    stop = stop == std::string::npos || stop < start ? start : stop + 1;
    if (metric_) {
      const auto hit = text.find(metric_->required_text(), start);
      if (hit != std::string::npos && hit < stop) {
        const auto line_start = hit == 0 ? std::string::npos : text.rfind('\n', hit - 1);
        stop = line_start == std::string::npos || line_start < start ? start : line_start + 1;
      }
    }
    (is_stderr ? stderr_lines_ : stdout_lines_) +=
        static_cast<std::size_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(start),
                                            text.begin() + static_cast<std::ptrdiff_t>(stop), '\n'));
    return stop;
  }

  void output(std::string line, bool is_stderr, const Stopwatch& since_start) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() > kLongestLine) line.resize(kLongestLine);
    std::size_t& count = is_stderr ? stderr_lines_ : stdout_lines_;
    ++count;
    const MetricReading reading = metric_ ? metric_->reading(line) : MetricReading{};
    if (count <= kLinesSentOfEachStream || reading.matched)
      emit({{"type", "output"}, {"stream", is_stderr ? "stderr" : "stdout"}, {"t", since_start.seconds()}, {"text", line}});
    if (!metric_) return;
    const auto& value = reading.value;
    if (!value || !(*value > 0)) return;  // refused as the orchestrator refuses it (scheduler.cpp)
    if (++iterations_ < std::max(1, options_.warmup)) return;
    if (split_done_) {
      // Where the iterations end if this was the last: the processes known
      // from the last sample, read now.
      for (const auto& [thread, times] : thread_times(tree_)) thread_times_[thread] = times;
      times_at_mark_ = thread_times_;
      accounting_->mark(live_usage(tree_));
      marked_ = true;
      return;
    }
    // The start-up ends here: read the running processes now.
    sample();
    json record = accounting_->split(live_usage(tree_));
    add_threads(record, {}, thread_times_);
    times_at_split_ = thread_times_;
    probe_cpu_at_split_ = process_cpu_seconds();
    // The probe's own reading and sampling, counted with the command.
    record["probe_cpu_seconds"] = probe_cpu_at_split_ - probe_cpu_at_start_;
    record["iterations"] = iterations_;
    record["t"] = since_start.seconds();
    emit(record);
    split_done_ = true;
  }

  // The command's threads over a phase: from the last reading of each, less
  // `before` (the readings when the phase began).
  static void add_threads(json& record, const std::map<std::string, ThreadTimes>& before,
                          const std::map<std::string, ThreadTimes>& after) {
    if (after.empty()) return;
    add_thread_phase(record["process"], thread_phase(before, after));
    record["unavailable"].erase("process.run_queue_wait_seconds");
  }

  void sample() {
    ++samples_;
    // The command and whatever it started, orphans the probe took in included.
    tree_ = process_tree(getpid());
    tree_.erase(tree_.begin());
    const auto& tree = tree_;
    // Only the paths while the command runs: reading each library's build
    // id opens and parses the file, which waits until it has exited.
    for (pid_t pid : tree) {
      processes_seen_.insert(pid);
      for (const auto& path : mapped_libraries(read_small_file(fs::path("/proc") / std::to_string(pid) / "maps")))
        library_paths_.insert(path);
    }
    for (const auto& [thread, times] : thread_times(tree)) thread_times_[thread] = times;
  }

  const ProbeOptions& options_;
  PhaseAccounting* accounting_ = nullptr;
  std::optional<MetricReader> metric_;
  int iterations_ = 0;
  bool split_done_ = false;
  std::map<std::string, ThreadTimes> times_at_split_;  // the readings when the start-up ended
  std::map<std::string, ThreadTimes> times_at_mark_;   // and at the last iteration
  bool marked_ = false;
  double probe_cpu_at_start_ = 0, probe_cpu_at_split_ = 0;
  std::vector<pid_t> tree_;  // the command's processes at the last sample
  std::set<std::string> library_paths_;  // mapped by the command's processes, described after it exited
  std::size_t stdout_lines_ = 0, stderr_lines_ = 0;
  std::map<std::string, ThreadTimes> thread_times_;  // the last reading per thread
  std::set<pid_t> processes_seen_;
  int samples_ = 0;
  bool exited_ = false;
  int status_ = 0;
  double exit_seconds_ = -1;  // when the command exited, from its start
  json leftovers_;            // what it left running, ended (null: nothing)
};

// --syscall: warm-up operations, then the measured ones between the count
// marks, each a "sample" line as the worker prints a micro-benchmark's, held
// until the phase has ended (a line printed in the phase would be a write
// call of its own), then the phase's accounting and "done". With
// --count-pause it waits at each end of the phase for the counters, as the
// worker does.
int run_syscall_table(const ProbeOptions& o) {
  MicroParams params;
  params.variant = o.syscall;
  params.size = kSyscallCallsPerOperation;
  std::unique_ptr<MicroBenchmark> benchmark;
  try {
    benchmark = make_syscall_cost(params);
  } catch (const std::exception& e) {
    fail(e.what(), 2);
  }
  const auto pause = std::chrono::duration<double>(std::max(0.0, o.count_pause));
  PhaseAccounting accounting(AccountingScope::self);
  std::vector<json> held;
  double measured_sum = 0;
  for (int i = 0; i < o.warmup + o.iters; ++i) {
    const bool warmup = i < o.warmup;
    if (i == o.warmup) {
      emit({{"type", "phase"}, {"phase", "measured"}});
      if (o.count_pause >= 0) std::this_thread::sleep_for(pause), (void)access(kCountWindowOpen, F_OK);
      accounting.start();
    }
    const double cpu_before = process_cpu_seconds();
    const MicroResult result = benchmark->run();
    if (!warmup) measured_sum += result.seconds;
    json sample = micro_sample_record(result, i, o.warmup, process_cpu_seconds() - cpu_before);
    if (warmup) emit(sample);
    else held.push_back(std::move(sample));
  }
  json record = accounting.finish(o.iters);
  if (o.count_pause >= 0) {
    (void)access(kCountWindowClose, F_OK);
    emit({{"type", "phase_end"}, {"batches", o.iters}});
    std::this_thread::sleep_for(pause);
  }
  for (const auto& sample : held) emit(sample);
  emit(record);
  emit({{"type", "done"}, {"measured", o.iters}, {"mean_seconds", measured_sum / o.iters}, {"unit", "ns"}});
  return 0;
}

// The counting launch's run: the command once, its output discarded,
// between the two marks (an access(2) of paths that do not exist) that a
// trace of every call is cut at. The orchestrator's counters, opened on the
// probe while it waits, are inherited by the command's processes. Nothing
// else happens while it runs (no sampling of /proc, no reading of output),
// so all but a handful of the calls counted (a fork, a wait, the marks) are
// the command's own.
int count_command(const ProbeOptions& o) {
  std::vector<char*> argv;
  for (const auto& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const auto pause = std::chrono::duration<double>(o.count_pause);
  emit({{"type", "phase"}, {"phase", "measured"}});
  std::this_thread::sleep_for(pause);
  Stopwatch since_start;
  g_child = fork();
  if (g_child < 0) fail(fmt::format("fork: {}", std::strerror(errno)));
  if (g_child == 0) {
    const int null = open("/dev/null", O_RDWR);
    if (null >= 0) dup2(null, STDOUT_FILENO), dup2(null, STDERR_FILENO);
    (void)access(kCountWindowOpen, F_OK);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) signal(sig, forward_signal);
  int status = 0;
  while (waitpid(g_child, &status, 0) < 0 && errno == EINTR) {
  }
  const double wall = since_start.seconds();
  (void)access(kCountWindowClose, F_OK);
  emit({{"type", "phase_end"}, {"batches", 1}});
  std::this_thread::sleep_for(pause);
  int code = 0;
  emit(command_exit_record(status, wall, code));
  return code;
}

}  // namespace
}  // namespace dlcbench

int main(int argc, char** argv) {
  using namespace dlcbench;
  const ProbeOptions options = parse(argc, argv);
  if (!options.chroot_dir.empty()) enter_chroot(options);
  if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0)
    fail(fmt::format("the working folder {} cannot be entered: {}", options.cwd, std::strerror(errno)));
  emit(probe_fingerprint(options));
  if (options.fingerprint_only) return 0;
  if (!options.syscall.empty()) return run_syscall_table(options);
  if (options.count_pause >= 0) return count_command(options);
  return CommandRun(options).run();
}
