#include "core/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "core/timer.h"

extern char** environ;

namespace dlcbench {
namespace {

constexpr std::size_t kStderrKeep = 64 * 1024;
constexpr double kGraceSeconds = 5.0;
// Added to errno when the child fails before exec: while hiding files, or
// entering its working folder.
constexpr int kHideFailed = 100000;
constexpr int kChdirFailed = 200000;

struct Pipe {
  int r = -1, w = -1;
  Pipe() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
    r = fds[0];
    w = fds[1];
  }
  ~Pipe() { close_both(); }
  void close_r() { if (r >= 0) ::close(r), r = -1; }
  void close_w() { if (w >= 0) ::close(w), w = -1; }
  void close_both() { close_r(); close_w(); }
};

std::vector<std::string> merged_environment(
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string_view kv(*e);
    auto eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    env[std::string(kv.substr(0, eq))] = std::string(kv.substr(eq + 1));
  }
  for (const auto& [k, v] : overrides) env[k] = v;
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void stop_group(pid_t pid, int sig) { ::kill(-pid, sig); }

}  // namespace

std::string ProcessResult::describe() const {
  if (!exec_error.empty()) return exec_error;
  if (timed_out) return "timed out and was stopped";
  if (cancelled) return "was stopped because the run was interrupted";
  if (signal != 0) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exited with status {}", exit_code);
}

ProcessResult run_process(const ProcessSpec& spec,
                          const std::function<void(std::string_view)>& on_line) {
  ProcessResult result;
  if (spec.argv.empty()) {
    result.exec_error = "no program given";
    return result;
  }
  auto argv_storage = spec.argv;
  auto env_storage = merged_environment(spec.env);
  auto argv = c_strings(argv_storage);
  auto envp = c_strings(env_storage);
  auto hide_storage = spec.hide_files;
  auto hide = c_strings(hide_storage);
  const char* cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();

  Pipe out, err, status;
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    result.exec_error = fmt::format("cannot start {}: fork: {}", spec.argv[0], std::strerror(errno));
    return result;
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls from here on.
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    dup2(out.w, STDOUT_FILENO);
    dup2(err.w, STDERR_FILENO);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    int status_fd = status.w;
    if (spec.child_fd3 >= 0) {
      if (status_fd == 3) status_fd = fcntl(3, F_DUPFD_CLOEXEC, 4);
      if (spec.child_fd3 == 3) fcntl(3, F_SETFD, 0);  // dup2 onto itself keeps close-on-exec
      else dup2(spec.child_fd3, 3);
    }
    if (cwd && chdir(cwd) != 0) {
      int e = errno + kChdirFailed;
      [[maybe_unused]] auto n = ::write(status_fd, &e, sizeof e);
      _exit(127);
    }
    if (hide.size() > 1) {
      // A mount namespace of the child's own, not propagated back, in which
      // each file reads as empty.
      bool hidden = unshare(CLONE_NEWNS) == 0 && mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
      for (std::size_t i = 0; hidden && hide[i]; ++i)
        hidden = mount("/dev/null", hide[i], nullptr, MS_BIND, nullptr) == 0;
      if (!hidden) {
        int e = errno + kHideFailed;
        [[maybe_unused]] auto n = ::write(status_fd, &e, sizeof e);
        _exit(127);
      }
    }
    execvpe(argv[0], argv.data(), envp.data());
    int e = errno;
    [[maybe_unused]] auto n = ::write(status_fd, &e, sizeof e);
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so the group exists before we may signal it
  out.close_w();
  err.close_w();
  status.close_w();

  int exec_errno = 0;
  if (::read(status.r, &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
    result.exec_error =
        exec_errno >= kChdirFailed
            ? fmt::format("cannot run {} in {}: {}", spec.argv[0], spec.cwd, std::strerror(exec_errno - kChdirFailed))
        : exec_errno >= kHideFailed
            ? fmt::format("cannot hide {} from {} in a private mount namespace: {}", fmt::join(spec.hide_files, ", "),
                          spec.argv[0], std::strerror(exec_errno - kHideFailed))
            : fmt::format("cannot run {}: {}", spec.argv[0], std::strerror(exec_errno));
  }
  status.close_r();

  Stopwatch clock;
  std::string pending;
  bool stop_sent = false;
  double stop_sent_at = 0;
  pollfd fds[2] = {{out.r, POLLIN, 0}, {err.r, POLLIN, 0}};
  int open_fds = 2;
  char buf[1 << 16];
  while (open_fds > 0) {
    const bool cancel = spec.cancel && spec.cancel->load();
    const bool late = spec.timeout_seconds > 0 && clock.seconds() > spec.timeout_seconds;
    if ((cancel || late) && !stop_sent) {
      result.cancelled = cancel;
      result.timed_out = late && !cancel;
      stop_group(pid, SIGTERM);
      stop_sent = true;
      stop_sent_at = clock.seconds();
    }
    if (stop_sent && clock.seconds() - stop_sent_at > kGraceSeconds) stop_group(pid, SIGKILL);

    int n = poll(fds, 2, 100);
    if (n < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got <= 0) {
        if (got < 0 && errno == EINTR) continue;
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      std::string_view chunk(buf, static_cast<std::size_t>(got));
      if (i == 0) {
        pending.append(chunk);
        std::size_t start = 0, nl;
        while ((nl = pending.find('\n', start)) != std::string::npos) {
          on_line(std::string_view(pending).substr(start, nl - start));
          start = nl + 1;
        }
        pending.erase(0, start);
      } else {
        result.stderr_tail.append(chunk);
        if (result.stderr_tail.size() > 2 * kStderrKeep)
          result.stderr_tail.erase(0, result.stderr_tail.size() - kStderrKeep);
      }
    }
  }
  if (!pending.empty()) on_line(pending);
  if (result.stderr_tail.size() > kStderrKeep)
    result.stderr_tail.erase(0, result.stderr_tail.size() - kStderrKeep);

  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(wstatus)) result.exit_code = WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) result.signal = WTERMSIG(wstatus);
  // Whatever the child left behind in its group goes with it.
  if (stop_sent) stop_group(pid, SIGKILL);
  return result;
}

CapturedOutput capture_output(std::vector<std::string> argv, double timeout_seconds,
                              std::vector<std::string> hide_files) {
  CapturedOutput c;
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.timeout_seconds = timeout_seconds;
  spec.hide_files = std::move(hide_files);
  c.result = run_process(spec, [&](std::string_view line) {
    c.out.append(line);
    c.out.push_back('\n');
  });
  return c;
}

std::string first_line(const std::string& text) {
  const auto start = text.find_first_not_of(" \n\t");
  if (start == std::string::npos) return "";
  return text.substr(start, text.find('\n', start) - start);
}

std::string tail(const std::string& s, std::size_t n) { return s.size() > n ? s.substr(s.size() - n) : s; }

std::optional<std::string> find_program(std::string_view name) {
  if (name.find('/') != std::string_view::npos) {
    if (::access(std::string(name).c_str(), X_OK) == 0) return std::string(name);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (!dirs.empty()) {
    auto colon = dirs.find(':');
    auto dir = dirs.substr(0, colon);
    auto candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate))
      return candidate.string();
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return std::nullopt;
}

}  // namespace dlcbench
