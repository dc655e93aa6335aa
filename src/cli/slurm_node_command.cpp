// `dlcbench slurm-node`: what a job step of `run --slurm` runs on its node
// (not for users to call). By default it becomes that node's own
// `dlcbench run` (exec, so scancel's signals reach the run itself): a new
// run in nodes/<node>/ under --base, or `run --resume` of the folder a
// cancelled step left. --send, --receive and --remove move a node's
// private folder over srun's standard output and input (staged runs).
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <algorithm>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "model/cluster_manifest.h"
#include "cluster/cluster_run.h"
#include "cluster/folder_bundle.h"
#include "cluster/node_quota.h"
#include "cluster/slurm.h"

namespace fs = std::filesystem;

namespace dlcbench::cli {
namespace {

struct NodeStepOptions {
  std::string base, cluster_run;
  std::uint64_t seed = 0;
  std::vector<std::string> cpu_quota;  // NODE=CPUS
  std::vector<std::string> run_arguments;
  std::string send, receive, remove;
};

[[noreturn]] void exec_run(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  std::cerr << fmt::format("error: slurm-node: cannot start {}: {}\n", argv[0], std::strerror(errno));
  _exit(kExitFailure);
}

// The node's run as a child (its cgroup's cleanup needs this process to
// outlive it), with the signals that stop a step passed on to it.
volatile sig_atomic_t g_child = 0;
void pass_signal_on(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

int run_and_wait(const std::vector<std::string>& argv) {
  const pid_t child = fork();
  if (child < 0) {
    std::cerr << fmt::format("error: slurm-node: fork: {}\n", std::strerror(errno));
    return kExitFailure;
  }
  if (child == 0) exec_run(argv);
  g_child = child;
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2}) signal(sig, pass_signal_on);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int run_node(const NodeStepOptions& o) {
  const std::string node = this_slurm_node();
  const fs::path folder = node_run_folder(o.base, node);
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  std::optional<double> quota;
  for (const auto& entry : o.cpu_quota)
    if (const auto [name, cpus] = parse_node_cpu_quota(entry); name == node) quota = cpus;
  std::error_code error;
  fs::create_directories(folder.parent_path(), error);
  if (error) {
    std::cerr << fmt::format("error: slurm-node {}: cannot create {}: {}\n", node, folder.parent_path().string(),
                             error.message());
    return kExitFailure;
  }
  std::vector<std::string> argv = {self, "run"};
  if (fs::is_regular_file(folder / "manifest.json")) {
    std::cerr << fmt::format("slurm-node {}: continuing {}\n", node, folder.string());
    argv.insert(argv.end(), {"--resume", folder.string(), "--take-turns"});
  } else {
    argv.insert(argv.end(), o.run_arguments.begin(), o.run_arguments.end());
    // Before any "--" (a user's command): the options this step sets.
    const auto command = std::find(argv.begin(), argv.end(), "--");
    const std::vector<std::string> own = {"--run-folder",  folder.string(),
                                          // Unique per node and run: containers and scratch folders are
                                          // named by it, so one node never removes another's.
                                          "--run-id",      o.cluster_run + "-" + node,
                                          "--seed",        std::to_string(node_seed(o.seed, node)),
                                          "--take-turns",  "--cluster-node",
                                          node,            "--cluster-run",
                                          o.cluster_run};
    argv.insert(command, own.begin(), own.end());
  }
  if (!quota) exec_run(argv);
  // A node made slow on purpose: everything this step starts runs under the
  // quota, the host's workers and the containers' alike.
  const std::string name = o.cluster_run + "-" + node;
  if (const std::string why = enter_node_cpu_quota(name, *quota); !why.empty()) {
    leave_node_cpu_quota(name);
    std::cerr << fmt::format("error: slurm-node {}: cannot put the node under its CPU quota of {:g}: {}\n", node,
                             *quota, why);
    return kExitFailure;
  }
  const auto command = std::find(argv.begin(), argv.end(), "--");
  argv.insert(command, {"--cgroup-parent", node_quota_cgroup(name)});
  std::cerr << fmt::format("slurm-node {}: everything runs under a CPU quota of {:g} CPUs (cgroup {})\n", node,
                           *quota, node_quota_cgroup(name));
  const int status = run_and_wait(argv);
  leave_node_cpu_quota(name);
  return status;
}

int send_folder(const fs::path& folder) {
  if (!fs::is_directory(folder)) {
    std::cerr << fmt::format("error: slurm-node --send: {} is not a folder on this node\n", folder.string());
    return kExitFailure;
  }
  write_folder_bundle(folder, [](const std::string& line) { std::cout << line << '\n'; });
  std::cout.flush();
  return std::cout ? kExitOk : kExitFailure;
}

int receive_folder(const fs::path& folder) {
  FolderBundleReader reader(folder);
  for (std::string line; std::getline(std::cin, line);) reader.add_line(line);
  if (!reader.unfinished().empty()) {
    std::cerr << fmt::format("error: slurm-node --receive: the stream ended before {}\n",
                             fmt::join(reader.unfinished(), ", "));
    return kExitFailure;
  }
  return kExitOk;
}

// The node's folder; then, once no node's folder is left, nodes/, the job's
// output files and the stage folder of the run.
int remove_folder(const fs::path& folder) {
  std::error_code error;
  fs::remove_all(folder, error);
  if (error) {
    std::cerr << fmt::format("error: slurm-node --remove: {}: {}\n", folder.string(), error.message());
    return kExitFailure;
  }
  const fs::path nodes = folder.parent_path();
  const fs::path base = nodes.parent_path();
  if (!fs::remove(nodes, error)) return kExitOk;  // another node's folder is still there
  std::vector<fs::path> job_outputs;
  for (const auto& entry : fs::directory_iterator(base, error))
    if (entry.path().filename().string().rfind("slurm-", 0) == 0) job_outputs.push_back(entry.path());
  for (const auto& file : job_outputs) fs::remove(file, error);
  fs::remove(base, error);  // only when empty
  return kExitOk;
}

}  // namespace

void add_slurm_node_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<NodeStepOptions>();
  auto* cmd = app.add_subcommand("slurm-node", "");  // no description: hidden from --help
  cmd->add_option("--base", o->base);
  cmd->add_option("--cluster-run", o->cluster_run);
  cmd->add_option("--seed", o->seed);
  cmd->add_option("--cpu-quota", o->cpu_quota)->allow_extra_args(false);
  cmd->add_option("--send", o->send);
  cmd->add_option("--receive", o->receive);
  cmd->add_option("--remove", o->remove);
  cmd->add_option("run_arguments", o->run_arguments);
  cmd->prefix_command(false);
  cmd->callback([o, &exit_code] {
    try {
      if (!o->send.empty()) exit_code = send_folder(o->send);
      else if (!o->receive.empty()) exit_code = receive_folder(o->receive);
      else if (!o->remove.empty()) exit_code = remove_folder(o->remove);
      else exit_code = run_node(*o);
    } catch (const std::exception& e) {
      std::cerr << "error: slurm-node: " << e.what() << "\n";
      exit_code = kExitFailure;
    }
  });
}

}  // namespace dlcbench::cli
