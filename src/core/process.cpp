#include "core/process.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
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

// A null-terminated vector of pointers into `v`, for exec (which takes
// char* const[] and never writes through them). `v` must outlive it.
std::vector<char*> c_strings(const std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

void stop_group(pid_t pid, int sig) { ::kill(-pid, sig); }

// Everything the child needs, prepared before it starts. It runs in this
// process's memory until it execs (CLONE_VM), so it makes system calls only:
// no allocation, no lock (another thread may hold malloc's), nothing that
// throws.
struct ChildPlan {
  char* const* argv;
  char* const* envp;
  char* const* hide_files;  // null-terminated; empty: no private mount namespace
  const char* cwd;          // null: the parent's
  int stdout_fd;
  int stderr_fd;
  int fd3;                  // becomes the child's descriptor 3; -1: none
  int stdin_fd;             // becomes the child's stdin; -1: /dev/null
  pid_t parent;
  sigset_t original_mask;   // the starting thread's mask, the child's from exec on
  // Set by the child when it fails before or in exec: errno, plus
  // kChdirFailed or kHideFailed for the step that failed. The parent reads it
  // once clone returns: with CLONE_VFORK that is after the child has exec'd
  // or exited, so no status pipe is needed (glibc's posix_spawn does this).
  int failure = 0;
};

[[noreturn]] void child_fails(ChildPlan& plan, int failure) {
  plan.failure = failure;
  _exit(127);
}

// The child's side of run_process, up to exec.
int child_main(void* argument) {
  ChildPlan& plan = *static_cast<ChildPlan*>(argument);
  // The child's table of signal handlers is a copy of the parent's (no
  // CLONE_SIGHAND). A handler of the parent's run here, after the mask is
  // restored and before exec, would run in the parent's memory: caught
  // signals go back to their default. Ignored ones stay ignored, as across
  // fork and exec. All signals stay blocked until just before exec.
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction action {};
    if (sigaction(sig, nullptr, &action) != 0) continue;  // glibc's own signals
    const bool caught = (action.sa_flags & SA_SIGINFO) != 0 ||
                        (action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN);
    if (!caught) continue;
    action.sa_handler = SIG_DFL;
    action.sa_flags = 0;
    sigemptyset(&action.sa_mask);
    sigaction(sig, &action, nullptr);
  }
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != plan.parent) _exit(127);
  dup2(plan.stdout_fd, STDOUT_FILENO);
  dup2(plan.stderr_fd, STDERR_FILENO);
  if (plan.stdin_fd >= 0) {
    dup2(plan.stdin_fd, STDIN_FILENO);
  } else {
    // Close-on-exec, so the program gets it as its stdin only.
    const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull == STDIN_FILENO) fcntl(STDIN_FILENO, F_SETFD, 0);
    else if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  }
  if (plan.fd3 == 3) fcntl(3, F_SETFD, 0);  // dup2 onto itself keeps close-on-exec
  else if (plan.fd3 >= 0) dup2(plan.fd3, 3);
  if (plan.cwd && chdir(plan.cwd) != 0) child_fails(plan, errno + kChdirFailed);
  if (plan.hide_files[0]) {
    // A mount namespace of the child's own, not propagated back, in which
    // each file reads as empty.
    bool hidden = unshare(CLONE_NEWNS) == 0 && mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
    for (std::size_t i = 0; hidden && plan.hide_files[i]; ++i)
      hidden = mount("/dev/null", plan.hide_files[i], nullptr, MS_BIND, nullptr) == 0;
    if (!hidden) child_fails(plan, errno + kHideFailed);
  }
  sigprocmask(SIG_SETMASK, &plan.original_mask, nullptr);
  execvpe(plan.argv[0], plan.argv, plan.envp);
  child_fails(plan, errno);
}

// The child's stack until it execs, as glibc's posix_spawn maps one. execvpe
// puts a path buffer (up to PATH_MAX + NAME_MAX) on it and, for a script
// without #!, a copy of argv.
class ChildStack {
 public:
  explicit ChildStack(std::size_t argc)
      : size_(round_to_pages(64 * 1024 + PATH_MAX + NAME_MAX + (argc + 3) * sizeof(char*))) {
    base_ = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (base_ == MAP_FAILED) throw std::runtime_error(fmt::format("mmap: {}", std::strerror(errno)));
  }
  ~ChildStack() { munmap(base_, size_); }
  ChildStack(const ChildStack&) = delete;
  ChildStack& operator=(const ChildStack&) = delete;
  // Stacks grow down on the machines this builds for.
  void* top() const { return static_cast<char*>(base_) + size_; }

 private:
  static std::size_t round_to_pages(std::size_t bytes) {
    constexpr std::size_t kPage = 4096;
    return (bytes + kPage - 1) / kPage * kPage;
  }
  std::size_t size_;
  void* base_;
};

// Starts the child: its pid, or -errno when it could not be started.
//
// clone with CLONE_VM | CLONE_VFORK, not fork: fork copies the page tables
// of this process, which has LibTorch and its libraries mapped, and that
// cost milliseconds a start inside every start-up figure (issue 18, item 12:
// 6-8 ms on the host against hyperfine's 0.6). The child borrows this memory
// until it execs or exits, and this thread waits until then. Every signal
// is blocked around it, so none reaches the child before it has reset its
// handlers; the child restores this thread's mask just before exec.
pid_t start_child(ChildPlan& plan, std::size_t argc) {
  ChildStack stack(argc);
  sigset_t all_signals;
  sigfillset(&all_signals);
  pthread_sigmask(SIG_SETMASK, &all_signals, &plan.original_mask);
  const pid_t pid = clone(child_main, stack.top(), CLONE_VM | CLONE_VFORK | SIGCHLD, &plan);
  // errno is this thread's, and the child ran in this thread's memory: it
  // is clone's own only where clone failed and no child ran.
  const pid_t started = pid < 0 ? -errno : pid;
  pthread_sigmask(SIG_SETMASK, &plan.original_mask, nullptr);
  return started;
}

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
  const auto argv = c_strings(spec.argv);
  // Without overrides the child gets this process's environment as it is:
  // copying and sorting it costs tens of microseconds a start.
  std::vector<std::string> env_storage;
  std::vector<char*> merged_envp;
  if (!spec.env.empty()) {
    env_storage = merged_environment(spec.env);
    merged_envp = c_strings(env_storage);
  }
  const auto hide = c_strings(spec.hide_files);

  Pipe out, err;
  ChildPlan plan{argv.data(),
                 spec.env.empty() ? environ : merged_envp.data(),
                 hide.data(),
                 spec.cwd.empty() ? nullptr : spec.cwd.c_str(),
                 out.w,
                 err.w,
                 spec.child_fd3,
                 spec.stdin_fd,
                 getpid(),
                 {},
                 0};
  const pid_t pid = start_child(plan, spec.argv.size());
  if (pid < 0) {
    result.exec_error = fmt::format("cannot start {}: clone: {}", spec.argv[0], std::strerror(-pid));
    return result;
  }
  // The child set its own process group before this thread resumed.
  out.close_w();
  err.close_w();

  if (plan.failure != 0) {
    const int failure = plan.failure;
    result.exec_error =
        failure >= kChdirFailed
            ? fmt::format("cannot run {} in {}: {}", spec.argv[0], spec.cwd, std::strerror(failure - kChdirFailed))
        : failure >= kHideFailed
            ? fmt::format("cannot hide {} from {} in a private mount namespace: {}", fmt::join(spec.hide_files, ", "),
                          spec.argv[0], std::strerror(failure - kHideFailed))
            : fmt::format("cannot run {}: {}", spec.argv[0], std::strerror(failure));
  }

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

int usable_cpu_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

}  // namespace dlcbench
