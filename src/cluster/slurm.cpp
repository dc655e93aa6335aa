#include "cluster/slurm.h"

#include <unistd.h>

#include <cstdlib>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/process.h"

namespace dlcbench {
namespace {

// The last line Slurm wrote, which holds its error.
std::string slurm_message(const CapturedOutput& c) {
  std::string text = c.result.stderr_tail.empty() ? c.out : c.result.stderr_tail;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const auto newline = text.rfind('\n');
  return newline == std::string::npos ? text : text.substr(newline + 1);
}

}  // namespace

std::pair<std::string, double> parse_node_cpu_quota(const std::string& entry) {
  const auto eq = entry.find('=');
  double cpus = 0;
  try {
    cpus = eq == std::string::npos ? 0 : std::stod(entry.substr(eq + 1));
  } catch (const std::exception&) {
    cpus = 0;
  }
  if (eq == std::string::npos || eq == 0 || !(cpus > 0))
    throw UsageError("give NODE=CPUS, e.g. node7=0.5 (CPUs, above 0)");
  return {entry.substr(0, eq), cpus};
}

void check_slurm_answers() {
  for (const char* program : {"sbatch", "srun", "scontrol", "sinfo"})
    if (!find_program(program))
      throw UsageError(fmt::format(
          "--slurm: {} is not on PATH: run dlcbench where the Slurm client commands are installed (Debian: apt-get "
          "install slurm-client), or leave out --slurm to measure this machine alone",
          program));
  const CapturedOutput ping = capture_output({"scontrol", "ping"}, 30);
  if (!ping.result.ok() || ping.out.find("is UP") == std::string::npos) {
    const char* conf = std::getenv("SLURM_CONF");
    throw UsageError(fmt::format(
        "--slurm: no Slurm controller answers (`scontrol ping`: {}): start slurmctld and slurmd on the cluster, or "
        "point SLURM_CONF at your cluster's slurm.conf (now {}); scripts/with-slurm.sh starts a local test cluster",
        first_line(ping.out.empty() ? ping.result.stderr_tail : ping.out).empty()
            ? ping.result.describe()
            : first_line(ping.out.empty() ? ping.result.stderr_tail : ping.out),
        conf ? conf : "unset"));
  }
}

const std::string& batch_script() {
  // sbatch keeps a copy of the script when the job is submitted, so the
  // nodes need not see the file. Node names come from scontrol, never from
  // the user, and the step's arguments travel as "$@" untouched.
  static const std::string script = R"(#!/bin/sh
# Written by dlcbench run --slurm: one job step per node of the allocation,
# each running the arguments given to this script, so that one node's step
# can be cancelled (scancel JOB.STEP) while the others go on.
status=0
pids=""
for node in $(scontrol show hostnames "$SLURM_JOB_NODELIST"); do
  srun --nodes=1 --ntasks=1 --nodelist="$node" --job-name="dlcbench-$node" --kill-on-bad-exit=0 "$@" &
  pids="$pids $!"
done
for pid in $pids; do
  wait "$pid" || status=$?
done
exit "$status"
)";
  return script;
}

std::vector<std::string> sbatch_argv(const SlurmRequest& request, const std::string& job_name,
                                     const std::string& output, const std::string& script,
                                     const std::vector<std::string>& step_argv,
                                     const std::vector<std::string>& only_nodes) {
  std::vector<std::string> argv = {"sbatch", "--parsable", "--wait", "--job-name=" + job_name,
                                   "--output=" + output, "--ntasks-per-node=1"};
  if (!only_nodes.empty()) {
    std::string list;
    for (const auto& n : only_nodes) list += (list.empty() ? "" : ",") + n;
    argv.push_back(fmt::format("--nodes={}", only_nodes.size()));
    argv.push_back("--nodelist=" + list);
  } else {
    if (request.nodes > 0) argv.push_back(fmt::format("--nodes={}", request.nodes));
    if (!request.nodelist.empty()) argv.push_back("--nodelist=" + request.nodelist);
  }
  if (!request.partition.empty()) argv.push_back("--partition=" + request.partition);
  if (!request.account.empty()) argv.push_back("--account=" + request.account);
  if (!request.time_limit.empty()) argv.push_back("--time=" + request.time_limit);
  argv.insert(argv.end(), request.sbatch_args.begin(), request.sbatch_args.end());
  argv.push_back(script);
  argv.insert(argv.end(), step_argv.begin(), step_argv.end());
  return argv;
}

std::vector<std::string> salloc_argv(const SlurmRequest& request, const std::string& job_name,
                                     const std::vector<std::string>& nodes, const std::vector<std::string>& command) {
  std::string list;
  for (const auto& n : nodes) list += (list.empty() ? "" : ",") + n;
  std::vector<std::string> argv = {"salloc", "--job-name=" + job_name, fmt::format("--nodes={}", nodes.size()),
                                   "--nodelist=" + list, "--ntasks-per-node=1", "--quiet"};
  if (!request.partition.empty()) argv.push_back("--partition=" + request.partition);
  if (!request.account.empty()) argv.push_back("--account=" + request.account);
  if (!request.time_limit.empty()) argv.push_back("--time=" + request.time_limit);
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

std::vector<std::string> srun_on_node_argv(const SlurmRequest& request, const std::string& node,
                                           const std::vector<std::string>& command) {
  std::vector<std::string> argv = {"srun", "--nodes=1", "--ntasks=1", "--nodelist=" + node,
                                   "--job-name=dlcbench-stage", "--quiet"};
  if (!request.partition.empty()) argv.push_back("--partition=" + request.partition);
  if (!request.account.empty()) argv.push_back("--account=" + request.account);
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

std::vector<std::string> expand_nodelist(const std::string& list) {
  const CapturedOutput c = capture_output({"scontrol", "show", "hostnames", list}, 30);
  if (!c.result.ok())
    throw std::runtime_error(fmt::format("`scontrol show hostnames {}` failed: {}", list, slurm_message(c)));
  std::vector<std::string> nodes;
  std::istringstream in(c.out);
  for (std::string name; in >> name;) nodes.push_back(name);
  return nodes;
}

std::map<std::string, std::string> parse_scontrol_line(const std::string& line) {
  std::map<std::string, std::string> fields;
  std::istringstream in(line);
  std::string key;
  for (std::string word; in >> word;) {
    const auto eq = word.find('=');
    if (eq != std::string::npos && eq > 0) {
      key = word.substr(0, eq);
      fields[key] = word.substr(eq + 1);
    } else if (!key.empty()) {
      fields[key] += " " + word;  // a value with a space (Reason=Node down)
    }
  }
  return fields;
}

std::optional<JobState> job_state(const std::string& job_id) {
  const CapturedOutput c = capture_output({"scontrol", "show", "job", "-o", job_id}, 30);
  if (!c.result.ok()) return std::nullopt;
  auto fields = parse_scontrol_line(first_line(c.out));
  if (!fields.count("JobState")) return std::nullopt;
  return JobState{fields["JobState"], fields["Reason"], fields["ExitCode"], fields["NodeList"]};
}

std::vector<SlurmNode> usable_nodes(const std::string& partition) {
  std::vector<std::string> argv = {"sinfo", "-h", "-N", "-o", "%N|%o|%n|%t"};
  if (!partition.empty()) argv.insert(argv.end(), {"-p", partition});
  const CapturedOutput c = capture_output(argv, 30);
  if (!c.result.ok()) throw UsageError(fmt::format("`sinfo` failed: {}", slurm_message(c)));
  std::vector<SlurmNode> nodes;
  std::set<std::string> seen;
  std::istringstream in(c.out);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> parts;
    std::istringstream fields(line);
    for (std::string f; std::getline(fields, f, '|');) parts.push_back(f);
    if (parts.size() < 4) continue;
    const std::string state = parts[3];
    // Down, drained, failing or not responding ("*"): no job would start there.
    const bool takes_jobs = state.rfind("idle", 0) == 0 || state.rfind("mix", 0) == 0 ||
                            state.rfind("alloc", 0) == 0 || state.rfind("comp", 0) == 0;
    if (!takes_jobs || state.find('*') != std::string::npos || !seen.insert(parts[0]).second) continue;
    nodes.push_back({parts[0], parts[1], parts[2]});
  }
  return nodes;
}

std::string this_slurm_node() {
  if (const char* name = std::getenv("SLURMD_NODENAME"); name && *name) return name;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::string name = host;
  return name.substr(0, name.find('.'));
}

}  // namespace dlcbench
