#include "cluster/cluster_run.h"

#include <ifaddrs.h>
#include <netdb.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <iostream>
#include <set>

#include <fcntl.h>
#include <fmt/chrono.h>
#include <fmt/format.h>

#include "analysis/cluster_analysis.h"
#include "cluster/allreduce_run.h"
#include "cluster/folder_bundle.h"
#include "core/errors.h"
#include "model/manifest.h"
#include "core/process.h"
#include "core/scratch_dir.h"
#include "report/cluster_report.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

std::string now_iso() { return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr))); }

// Options of `run` that belong to the cluster run, with whether each takes a value.
const std::vector<std::pair<std::string, bool>>& cluster_only_options() {
  static const std::vector<std::pair<std::string, bool>> options = {
      {"--slurm", false},     {"--nodes", true},         {"--nodelist", true},   {"--partition", true},
      {"--account", true},    {"--time", true},          {"--sbatch-arg", true}, {"--stage", true},
      {"--shared-folder", false}, {"--node-cpu-quota", true}, {"--out", true},  {"--run-id", true},
      {"--seed", true},       {"--dry-run", false},      {"--take-turns", false}, {"--allreduce", false},
      {"--allreduce-sizes", true}, {"--allreduce-iterations", true}};
  return options;
}

// The partition's or account's refusal, before anything is submitted:
// `sbatch --test-only` checks the request against the controller.
void check_allocation(const SlurmRequest& request, int nodes) {
  SlurmRequest probe = request;
  probe.nodes = nodes;
  // sbatch reads the script even to test: the real one, from a scratch folder.
  const ScratchDir scratch("dlcbench-sbatch-check");
  const fs::path script = scratch.path() / "slurm-job.sh";
  std::ofstream(script) << batch_script();
  auto argv = sbatch_argv(probe, "dlcbench-check", "/dev/null", script.string(), {});
  argv.erase(std::remove(argv.begin(), argv.end(), "--wait"), argv.end());
  argv.insert(argv.begin() + 1, "--test-only");
  const CapturedOutput c = capture_output(argv, 60);
  if (c.result.ok()) return;
  std::string message = c.result.stderr_tail;
  while (!message.empty() && message.back() == '\n') message.pop_back();
  throw UsageError(fmt::format("Slurm refused the allocation: {}\n(the command: {}); check --partition, --account, "
                               "--time and --sbatch-arg against `sinfo` and `sacctmgr show associations`",
                               message.empty() ? c.result.describe() : message, fmt::join(argv, " ")));
}

std::set<std::string> this_machine_names() {
  std::set<std::string> names = {"localhost", "127.0.0.1", "::1"};
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) {
    names.insert(host);
    const std::string h = host;
    names.insert(h.substr(0, h.find('.')));
  }
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (ifaddrs* a = list; a; a = a->ifa_next) {
      if (!a->ifa_addr || (a->ifa_addr->sa_family != AF_INET && a->ifa_addr->sa_family != AF_INET6)) continue;
      char text[NI_MAXHOST] = {};
      const socklen_t size = a->ifa_addr->sa_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
      if (getnameinfo(a->ifa_addr, size, text, sizeof text, nullptr, 0, NI_NUMERICHOST) == 0) names.insert(text);
    }
    freeifaddrs(list);
  }
  return names;
}

// A job's stdout line by line: sbatch --parsable prints "ID" or "ID;cluster".
std::string job_id_of(const std::string& line) { return line.substr(0, line.find(';')); }

struct JobOutcome {
  ClusterJob job;
  bool interrupted = false;
};

// Submits one job, waits for it (scancel on Ctrl-C), and records its end.
JobOutcome submit_and_wait(const ClusterManifest& m, const fs::path& dir, const fs::path& base,
                           const fs::path& self_exe, const std::vector<std::string>& only_nodes,
                           const std::atomic<bool>* cancel) {
  JobOutcome outcome;
  ClusterJob& job = outcome.job;
  job.submitted_at = now_iso();
  const fs::path script = dir / "slurm-job.sh";
  {
    std::ofstream out(script, std::ios::trunc);
    out << batch_script();
  }
  fs::permissions(script, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
  std::vector<std::string> step = {self_exe.string(), "slurm-node", "--base", base.string(), "--cluster-run",
                                   m.run_id,          "--seed",     std::to_string(m.seed)};
  for (const auto& [node, cpus] : m.request.cpu_quota)
    step.insert(step.end(), {"--cpu-quota", fmt::format("{}={}", node, cpus)});
  step.push_back("--");
  step.insert(step.end(), m.node_arguments.begin(), m.node_arguments.end());
  // Slurm opens the job's output before the script runs and makes no folder
  // for it: a stage folder does not exist yet on the first node, so a staged
  // job's output is not kept (each node's run folder records what it did).
  const std::string output =
      m.transfer == ResultsTransfer::shared ? (base / "slurm-%j.out").string() : std::string("/dev/null");
  const auto argv = sbatch_argv(m.request, "dlcbench-" + m.run_id, output,
                                script.string(), step, only_nodes);
  ProcessSpec spec;
  spec.argv = argv;
  spec.cancel = cancel;
  spec.cwd = dir.string();
  const ProcessResult result = run_process(spec, [&](std::string_view line) {
    if (!job.id.empty() || line.empty()) return;
    job.id = job_id_of(std::string(line));
    std::cerr << fmt::format("dlcbench run --slurm {}: submitted batch job {}{}; waiting for it (`scancel {}` stops "
                             "it; what was measured stays)\n",
                             m.run_id, job.id, only_nodes.empty() ? "" : fmt::format(" on {}", fmt::join(only_nodes, ",")),
                             job.id);
  });
  if (job.id.empty()) {
    job.submit_error = result.stderr_tail.empty() ? result.describe() : result.stderr_tail;
    while (!job.submit_error.empty() && job.submit_error.back() == '\n') job.submit_error.pop_back();
    job.nodes = only_nodes;
    job.ended_at = now_iso();
    return outcome;
  }
  if (result.cancelled) {
    outcome.interrupted = true;
    capture_output({"scancel", job.id}, 60);
    // The steps end their runs on SIGTERM; the job's record says when.
    for (int i = 0; i < 600; ++i) {
      const auto state = job_state(job.id);
      if (!state || (state->state != "RUNNING" && state->state != "PENDING" && state->state != "COMPLETING")) break;
      usleep(100000);
    }
  }
  if (const auto state = job_state(job.id)) {
    job.state = state->state;
    job.reason = state->reason;
    job.exit_code = state->exit_code;
    try {
      job.nodes = expand_nodelist(state->nodelist);
    } catch (const std::exception&) {
      job.nodes = only_nodes;
    }
  } else {
    job.state = result.ok() ? "COMPLETED" : "UNKNOWN";
    job.nodes = only_nodes;
  }
  job.ended_at = now_iso();
  return outcome;
}

// Brings each node's private folder back over srun, then removes it there.
void stage_back(ClusterManifest& m, ClusterJob& job, const fs::path& dir, const fs::path& self_exe) {
  const fs::path base = fs::path(m.stage_folder);
  for (const auto& node : job.nodes) {
    const fs::path remote = node_run_folder(base, node);
    const fs::path local = node_run_folder(dir, node);
    FolderBundleReader reader(local);
    std::string failure;
    ProcessSpec spec;
    spec.argv = srun_on_node_argv(m.request, node, {self_exe.string(), "slurm-node", "--send", remote.string()});
    spec.timeout_seconds = 1800;
    const ProcessResult result = run_process(spec, [&](std::string_view line) {
      if (!failure.empty()) return;
      try {
        reader.add_line(line);
      } catch (const std::exception& e) {
        failure = e.what();
      }
    });
    if (failure.empty() && !result.ok())
      failure = fmt::format("{}: {}", result.describe(), first_line(tail(result.stderr_tail, 400)));
    if (failure.empty() && !reader.unfinished().empty())
      failure = fmt::format("the transfer ended before {}", fmt::join(reader.unfinished(), ", "));
    if (!failure.empty()) {
      job.staged[node] = failure;
      std::cerr << fmt::format("warning: could not bring {}'s results back from {}: {}; they stay there, and "
                               "`dlcbench run --resume {}` tries again\n",
                               node, remote.string(), failure, dir.string());
      continue;
    }
    job.staged[node] = "ok";
    std::cerr << fmt::format("{}: {} brought back from {}\n", node,
                             reader.files().size() == 1 ? std::string("1 file") : fmt::format("{} files", reader.files().size()),
                             remote.string());
  }
  // Removed only once every node's folder is here: nodes that share a machine
  // share the stage folder too.
  for (const auto& node : job.nodes) {
    if (job.staged[node] != "ok") continue;
    const auto removed = capture_output(
        srun_on_node_argv(m.request, node, {self_exe.string(), "slurm-node", "--remove", node_run_folder(base, node).string()}),
        300);
    if (!removed.result.ok())
      std::cerr << fmt::format("warning: could not remove {} on {}: {}\n", node_run_folder(base, node).string(), node,
                               first_line(removed.result.stderr_tail));
  }
}

// A node's folder goes back to its private place before its run resumes there.
std::string stage_in(const ClusterManifest& m, const std::string& node, const fs::path& dir, const fs::path& self_exe) {
  const fs::path local = node_run_folder(dir, node);
  if (!fs::is_directory(local)) return "";
  const fs::path bundle = dir / fmt::format(".stage-{}.jsonl", node);
  {
    std::ofstream out(bundle, std::ios::trunc);
    write_folder_bundle(local, [&](const std::string& line) { out << line << '\n'; });
  }
  const int fd = ::open(bundle.c_str(), O_RDONLY | O_CLOEXEC);
  ProcessSpec spec;
  spec.argv = srun_on_node_argv(m.request, node,
                                {self_exe.string(), "slurm-node", "--receive",
                                 node_run_folder(fs::path(m.stage_folder), node).string()});
  spec.stdin_fd = fd;
  spec.timeout_seconds = 1800;
  const ProcessResult result = run_process(spec, [](std::string_view) {});
  ::close(fd);
  fs::remove(bundle);
  return result.ok() ? "" : fmt::format("{}: {}", result.describe(), first_line(tail(result.stderr_tail, 400)));
}

// The all-reduce across the nodes the job ran on: one allocation of them,
// whose driver (this binary, under salloc, on this machine) runs every
// environment and round missing from allreduce.jsonl.
void run_allreduce_phase(ClusterManifest& m, const fs::path& dir, const fs::path& self_exe,
                         const std::vector<std::string>& nodes, const std::atomic<bool>* cancel) {
  ClusterAllreduce& a = *m.allreduce;
  if (nodes.size() < 2) {
    a.status = "incomplete";
    a.error = "an all-reduce across nodes needs two nodes or more";
    std::cerr << "warning: --allreduce: " << a.error << "; left out\n";
    return;
  }
  if (!fs::exists(allreduce_program_beside(self_exe))) {
    a.status = "incomplete";
    a.error = fmt::format("{} was not built (no Open MPI headers: apt-get install libopenmpi-dev, then rebuild)",
                          allreduce_program_beside(self_exe).string());
    std::cerr << "warning: --allreduce: " << a.error << "\n";
    return;
  }
  std::vector<std::string> driver = {self_exe.string(), "slurm-allreduce", "--run-folder", dir.string(),
                                     "--run-id", m.run_id, "--rounds", std::to_string(a.rounds),
                                     "--seed", std::to_string(m.seed)};
  for (const auto& env : a.environments) driver.insert(driver.end(), {"--envs", env});
  driver.push_back("--");
  const auto program = allreduce_program_arguments(a);
  driver.insert(driver.end(), program.begin(), program.end());
  std::cerr << fmt::format("dlcbench run --slurm {}: all-reduce across {} ({} rounds of {})\n", m.run_id,
                           fmt::join(nodes, ", "), a.rounds, fmt::join(a.environments, ", "));
  ProcessSpec spec;
  spec.argv = salloc_argv(m.request, "dlcbench-" + m.run_id + "-allreduce", nodes, driver);
  spec.cancel = cancel;
  const ProcessResult result = run_process(spec, [](std::string_view line) { std::cout << line << '\n'; });
  a.status = result.ok() ? "completed" : "incomplete";
  a.error = result.ok() ? "" : result.describe() + ": " + first_line(tail(result.stderr_tail, 2000));
  if (!result.ok()) std::cerr << "warning: --allreduce: " << a.error << "\n" << tail(result.stderr_tail, 2000);
}

// The all-reduce was asked for and has steps still to measure.
bool allreduce_left(const ClusterManifest& m) { return m.allreduce && m.allreduce->status != "completed"; }

int finish_and_report(ClusterManifest& m, const fs::path& dir, bool interrupted) {
  m.ended_at = now_iso();
  m.status = unfinished_nodes(dir, m).empty() ? "completed" : "incomplete";
  write_cluster_manifest(dir, m);
  const ClusterAnalysis analysis = analyze_cluster(dir);
  std::cout << render_cluster_console(analysis);
  std::cout << fmt::format("\nresults: {}\n", dir.string());
  if (interrupted) {
    std::cerr << fmt::format("interrupted: what the nodes measured stays in {}; `dlcbench run --resume {}` measures "
                             "the rest\n",
                             dir.string(), dir.string());
    return 130;
  }
  if (m.status != "completed") {
    std::cerr << fmt::format("warning: not every node finished (see \"Missing\" above): `dlcbench run --resume {}` "
                             "continues them\n",
                             dir.string());
    return 1;
  }
  if (allreduce_left(m)) {
    std::cerr << fmt::format("warning: the all-reduce across nodes did not complete: `dlcbench run --resume {}` "
                             "measures what it lacks\n",
                             dir.string());
    return 1;
  }
  return 0;
}

// The job (on `only_nodes`; none: the whole allocation asked for), the staged
// folders brought back, the all-reduce where it is still to be measured,
// then the report. The first run and every resume end here.
int submit_then_report(ClusterManifest& m, const fs::path& dir, const fs::path& self_exe,
                       const std::vector<std::string>& only_nodes, const std::atomic<bool>* cancel) {
  const fs::path base = m.transfer == ResultsTransfer::shared ? dir : fs::path(m.stage_folder);
  JobOutcome outcome = submit_and_wait(m, dir, base, self_exe, only_nodes, cancel);
  if (!outcome.job.submit_error.empty()) {
    m.jobs.push_back(outcome.job);
    m.status = "incomplete";
    m.ended_at = now_iso();
    write_cluster_manifest(dir, m);
    throw UsageError(fmt::format("sbatch refused the job: {}", outcome.job.submit_error));
  }
  if (m.transfer == ResultsTransfer::staged) stage_back(m, outcome.job, dir, self_exe);
  m.jobs.push_back(outcome.job);
  if (allreduce_left(m) && !outcome.interrupted) {
    write_cluster_manifest(dir, m);
    run_allreduce_phase(m, dir, self_exe, cluster_nodes(m), cancel);
  }
  return finish_and_report(m, dir, outcome.interrupted);
}

}  // namespace

std::vector<std::string> node_run_arguments(const std::vector<std::string>& run_arguments) {
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < run_arguments.size(); ++i) {
    const std::string& arg = run_arguments[i];
    if (arg == "--") {
      kept.insert(kept.end(), run_arguments.begin() + static_cast<std::ptrdiff_t>(i), run_arguments.end());
      break;
    }
    bool dropped = false;
    for (const auto& [name, takes_value] : cluster_only_options()) {
      if (arg == name) {
        if (takes_value) ++i;
        dropped = true;
        break;
      }
      if (takes_value && arg.rfind(name + "=", 0) == 0) {
        dropped = true;
        break;
      }
    }
    if (!dropped) kept.push_back(arg);
  }
  return kept;
}

std::uint64_t node_seed(std::uint64_t run_seed, const std::string& node) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : node) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  // Within what --seed accepts (a signed 64-bit number).
  return (run_seed ^ hash) & 0x7fffffffffffffffULL;
}

bool nodes_share_this_machine(const std::vector<SlurmNode>& nodes) {
  const auto names = this_machine_names();
  return !nodes.empty() && std::all_of(nodes.begin(), nodes.end(), [&](const SlurmNode& n) {
    return names.count(n.address) || names.count(n.hostname);
  });
}

bool on_shared_file_system(const fs::path& folder, std::string& type) {
  struct statfs s {};
  fs::path existing = fs::absolute(folder);
  while (!fs::exists(existing) && existing.has_parent_path() && existing != existing.parent_path())
    existing = existing.parent_path();
  if (statfs(existing.c_str(), &s) != 0) return false;
  static const std::vector<std::pair<unsigned long, const char*>> shared = {
      {0x6969, "nfs"},          {0x0BD00BD0, "lustre"}, {0x47504653, "gpfs"},   {0x19830326, "beegfs"},
      {0x00C36400, "ceph"},     {0xFF534D42, "cifs"},   {0xFE534D42, "smb2"},   {0x65735546, "fuse"},
      {0x013111A8, "ibrix"},    {0x5346414F, "afs"},    {0x6B414653, "afs"},    {0x7461636F, "ocfs2"},
      {0x01161970, "gfs2"}};
  for (const auto& [magic, name] : shared)
    if (static_cast<unsigned long>(s.f_type) == magic) {
      type = name;
      return true;
    }
  type = fmt::format("0x{:x}", static_cast<unsigned long>(s.f_type));
  return false;
}

ClusterCheck check_cluster_request(const SlurmRequest& request, const fs::path& out) {
  check_slurm_answers();
  ClusterCheck check;
  const auto nodes = usable_nodes(request.partition);
  if (!request.nodelist.empty()) check.nodes = static_cast<int>(expand_nodelist(request.nodelist).size());
  else if (request.nodes > 0) check.nodes = request.nodes;
  else check.nodes = static_cast<int>(nodes.size());
  if (check.nodes == 0) {
    check_allocation(request, 1);  // Slurm's own words for a partition it does not know
    throw UsageError(fmt::format("--slurm: no node of {} takes jobs now (`sinfo -N{}`): resume the nodes "
                                 "(`scontrol update nodename=... state=resume`) or name a partition with --partition",
                                 request.partition.empty() ? "the default partition" : "partition " + request.partition,
                                 request.partition.empty() ? "" : " -p " + request.partition));
  }
  check_allocation(request, check.nodes);
  for (const auto& [node, cpus] : request.cpu_quota)
    if (std::none_of(nodes.begin(), nodes.end(), [&name = node](const SlurmNode& n) { return n.name == name; }))
      throw UsageError(fmt::format("--node-cpu-quota {}={}: Slurm has no usable node {} (`sinfo -N` lists them)", node,
                                   cpus, node));
  if (!request.stage.empty()) {
    check.transfer = ResultsTransfer::staged;
    if (!fs::path(request.stage).is_absolute())
      throw UsageError(fmt::format("--stage {}: give an absolute folder (each node resolves it on its own)",
                                   request.stage));
    return check;
  }
  std::string fs_type;
  if (request.shared_folder) check.why_shared = "--shared-folder";
  else if (nodes_share_this_machine(nodes)) check.why_shared = "every node runs on this machine";
  else if (on_shared_file_system(out, fs_type)) check.why_shared = "on " + fs_type;
  else
    throw UsageError(fmt::format(
        "--slurm: the run folder {} is on a local {} file system and the nodes are other machines, so their "
        "results would not reach it: give --stage DIR (a node-local folder; each node's results are copied back "
        "after the job), put --out on a shared file system, or pass --shared-folder if it is shared after all",
        fs::absolute(out).string(), fs_type));
  return check;
}

int run_cluster(const ClusterRunStart& start, const fs::path& dir, const std::string& run_id) {
  ClusterManifest m;
  m.run_id = run_id;
  m.command_line = start.command_line;
  m.dlcbench_version = DLCBENCH_VERSION;
  m.transfer = start.check.transfer;
  m.request = start.request;
  m.seed = start.seed;
  m.node_arguments = start.node_arguments;
  m.started_at = now_iso();
  m.allreduce = start.allreduce;
  if (m.transfer == ResultsTransfer::staged) m.stage_folder = (fs::path(start.request.stage) / run_id).string();
  write_cluster_manifest(dir, m);
  std::cerr << fmt::format("dlcbench run --slurm {}: {} nodes; results {} ({}); writing {}\n", run_id,
                           start.check.nodes,
                           m.transfer == ResultsTransfer::shared ? "written by each node into the run folder"
                                                                 : "staged in " + m.stage_folder + " on each node",
                           m.transfer == ResultsTransfer::shared ? start.check.why_shared : "copied back after the job",
                           dir.string());
  return submit_then_report(m, dir, start.self_exe, {}, start.cancel);
}

std::vector<std::string> unfinished_nodes(const fs::path& dir, const ClusterManifest& m) {
  std::vector<std::string> nodes;
  for (const auto& node : cluster_nodes(m)) {
    const fs::path manifest = node_run_folder(dir, node) / "manifest.json";
    bool done = false;
    if (fs::is_regular_file(manifest)) {
      try {
        done = read_manifest(manifest).status == RunStatus::completed;
      } catch (const std::exception&) {
        done = false;
      }
    }
    if (!done) nodes.push_back(node);
  }
  return nodes;
}

int resume_cluster(const fs::path& dir, const fs::path& self_exe, const std::atomic<bool>* cancel) {
  ClusterManifest m = read_cluster_manifest(dir);
  check_slurm_answers();
  // Nodes whose folder was never brought back are brought back first.
  if (m.transfer == ResultsTransfer::staged && !m.jobs.empty()) {
    ClusterJob& last = m.jobs.back();
    ClusterJob retry;
    for (const auto& node : last.nodes)
      if (last.staged.count(node) && last.staged[node] != "ok") retry.nodes.push_back(node);
    if (!retry.nodes.empty()) {
      stage_back(m, retry, dir, self_exe);
      for (const auto& [node, outcome] : retry.staged) last.staged[node] = outcome;
    }
  }
  const auto nodes = unfinished_nodes(dir, m);
  if (nodes.empty()) {
    if (!allreduce_left(m)) {
      std::cerr << fmt::format("cluster run {}: every node finished; nothing to resume\n", m.run_id);
      return finish_and_report(m, dir, false);
    }
    run_allreduce_phase(m, dir, self_exe, cluster_nodes(m), cancel);
    return finish_and_report(m, dir, false);
  }
  std::cerr << fmt::format("dlcbench run --resume {}: continuing {} on {}\n", dir.string(),
                           nodes.size() == 1 ? "1 node" : fmt::format("{} nodes", nodes.size()), fmt::join(nodes, ", "));
  if (m.transfer == ResultsTransfer::staged)
    for (const auto& node : nodes)
      if (const std::string failed = stage_in(m, node, dir, self_exe); !failed.empty())
        throw UsageError(fmt::format("cannot put {}'s results back on the node to continue them: {}", node, failed));
  m.status = "running";
  write_cluster_manifest(dir, m);
  return submit_then_report(m, dir, self_exe, nodes, cancel);
}

}  // namespace dlcbench
