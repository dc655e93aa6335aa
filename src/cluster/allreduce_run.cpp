#include "cluster/allreduce_run.h"

#include <unistd.h>

#include <atomic>
#include <csignal>

#include <fstream>
#include <iostream>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/errors.h"
#include "core/process.h"
#include "orchestrator/plan.h"

extern char** environ;

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

// The variables of the rank's own environment a containerised rank needs.
bool passed_into_rank(const std::string& name) {
  for (const char* prefix : {"SLURM_", "SLURMD_", "PMIX_", "PMI_", "OMPI_"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

std::atomic<bool> g_rank_stopped{false};
void stop_rank(int) { g_rank_stopped = true; }

void append_line(const fs::path& file, const nlohmann::json& line) {
  std::ofstream out(file, std::ios::app);
  out << line.dump() << '\n';
  out.flush();
  if (!out) throw std::runtime_error(fmt::format("cannot append to {}", file.string()));
}

}  // namespace

std::vector<long> parse_allreduce_sizes(const std::string& text) {
  std::vector<long> sizes;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = std::min(text.find(',', start), text.size());
    std::string item = text.substr(start, comma - start);
    long scale = 1;
    if (!item.empty()) {
      switch (item.back()) {
        case 'K': case 'k': scale = 1L << 10; break;
        case 'M': case 'm': scale = 1L << 20; break;
        case 'G': case 'g': scale = 1L << 30; break;
        default: break;
      }
      if (scale != 1) item.pop_back();
    }
    long value = 0;
    std::size_t used = 0;
    try {
      value = std::stol(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || value <= 0)
      throw UsageError(fmt::format("'{}' is not a size: give bytes, e.g. 8K,1M,16M (K, M, G: powers of 1024)",
                                   text.substr(start, comma - start)));
    const long bytes = value * scale;
    if (bytes % 4 != 0 || bytes > (1L << 31))
      throw UsageError(fmt::format("{} bytes: give a whole number of floats (4 bytes each), at most 2G", bytes));
    sizes.push_back(bytes);
    start = comma + 1;
  }
  return sizes;
}

std::vector<std::string> allreduce_environments(const std::vector<EnvironmentRequest>& requests,
                                                std::vector<std::string>& left_out) {
  std::vector<std::string> environments;
  for (const auto& request : requests) {
    const std::string& name = request.name;
    if (name == "runsc" || name == "chroot" || request.options.count("runtime")) {
      left_out.push_back(fmt::format("{}: dlcbench runs no MPI rank in it (gVisor's network stack and the chroot "
                                     "are not set up for it)",
                                     request.text));
      continue;
    }
    std::string text = request.text.substr(0, request.text.find('#'));
    if (name == "docker" || name == "podman" || name == "runc" || name == "crun") {
      const auto network = request.options.find("network");
      if (network != request.options.end() && network->second != "host")
        throw UsageError(fmt::format(
            "--allreduce: {} has network={}, but the ranks of one MPI job reach each other by the nodes' "
            "addresses: leave network= out (the all-reduce adds network=host) or give network=host",
            request.text, network->second));
      if (network == request.options.end()) text += (request.options.empty() ? ":" : ",") + std::string("network=host");
    }
    if (std::find(environments.begin(), environments.end(), text) == environments.end()) environments.push_back(text);
  }
  return environments;
}

std::vector<std::string> allreduce_program_arguments(const ClusterAllreduce& allreduce) {
  std::string sizes;
  for (const long bytes : allreduce.sizes_bytes) sizes += (sizes.empty() ? "" : ",") + std::to_string(bytes);
  return {"--sizes", sizes, "--iterations", std::to_string(allreduce.iterations), "--warmup",
          std::to_string(allreduce.warmup)};
}

std::vector<std::pair<std::string, std::string>> rank_variables(const std::vector<std::string>& from) {
  std::vector<std::pair<std::string, std::string>> vars;
  std::set<std::string> ours = {"OMPI_MCA_pml", "OMPI_MCA_btl", "PMIX_MCA_gds"};
  for (const auto& entry : from) {
    const auto eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    const std::string name = entry.substr(0, eq);
    if (!passed_into_rank(name) || ours.count(name)) continue;
    vars.emplace_back(name, entry.substr(eq + 1));
  }
  vars.emplace_back("OMPI_MCA_pml", "ob1");
  vars.emplace_back("OMPI_MCA_btl", "self,tcp");
  vars.emplace_back("PMIX_MCA_gds", "hash");
  return vars;
}

std::vector<ImageExtra> mpi_image_extras() {
  // Open MPI's components, and PMIx's, which Open MPI's PMIx client loads.
  std::vector<fs::path> components = open_mpi_component_folders();
  components.insert(components.end(), {"/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix", "/usr/lib/aarch64-linux-gnu/pmix2/lib/pmix"});
  std::vector<ImageExtra> extras = optional_extras_in(components, ".so");
  // The help texts Open MPI and PMIx word their errors from (without them a
  // rank that fails in a container says only "couldn't open the help
  // file"), and the site's MCA settings, so that a container's ranks are
  // configured as the host's are.
  const auto help = optional_extras_in({"/usr/share/openmpi", "/usr/lib/x86_64-linux-gnu/pmix2/share/pmix",
                                        "/usr/lib/aarch64-linux-gnu/pmix2/share/pmix"},
                                       ".txt");
  extras.insert(extras.end(), help.begin(), help.end());
  if (fs::is_regular_file("/etc/openmpi/openmpi-mca-params.conf"))
    extras.push_back({"/etc/openmpi/openmpi-mca-params.conf", true, {}});
  return extras;
}

fs::path allreduce_program_beside(const fs::path& self_exe) { return self_exe.parent_path() / "dlcbench-allreduce"; }

std::vector<std::string> allreduce_step_argv(const fs::path& self_exe, const std::string& environment,
                                             const std::string& instance, const std::vector<std::string>& program_arguments) {
  std::vector<std::string> argv = {"srun",
                                   "--mpi=pmix",
                                   "--ntasks-per-node=1",
                                   "--kill-on-bad-exit=1",
                                   "--job-name=dlcbench-allreduce",
                                   self_exe.string(),
                                   "slurm-allreduce",
                                   "--rank",
                                   "--env",
                                   environment,
                                   "--instance",
                                   instance,
                                   "--"};
  argv.insert(argv.end(), program_arguments.begin(), program_arguments.end());
  return argv;
}

std::set<std::pair<std::string, int>> allreduce_steps_measured(const fs::path& results) {
  std::set<std::pair<std::string, int>> done;
  std::ifstream in(results);
  for (std::string text; std::getline(in, text);) {
    const nlohmann::json line = nlohmann::json::parse(text, nullptr, false);
    if (line.is_object() && line.contains("bytes") && line.value("correct", false))
      done.insert({line.value("env", ""), line.value("round", -1)});
  }
  return done;
}

int run_allreduce_driver(const AllreduceDriver& driver, const fs::path& self_exe) {
  const fs::path results = driver.run_folder / kAllreduceResultsFile;
  const auto orders = round_orders(driver.environments.size(), driver.rounds, driver.seed);
  const auto done = allreduce_steps_measured(results);
  const char* job = std::getenv("SLURM_JOB_ID");
  int failures = 0;
  for (int round = 0; round < driver.rounds; ++round) {
    for (const std::size_t index : orders[static_cast<std::size_t>(round)]) {
      const std::string& environment = driver.environments[index];
      if (done.count({environment, round})) continue;
      const std::string instance = fmt::format("{}-ar-r{}-e{}", driver.run_id, round, index);
      ProcessSpec spec;
      spec.argv = allreduce_step_argv(self_exe, environment, instance, driver.program_arguments);
      spec.timeout_seconds = driver.step_timeout_seconds;
      std::vector<nlohmann::json> lines;
      std::string other_output;
      const ProcessResult result = run_process(spec, [&](std::string_view text) {
        nlohmann::json line = nlohmann::json::parse(text, nullptr, false);
        if (line.is_object() && line.contains("bytes")) lines.push_back(std::move(line));
        else other_output.append(text).push_back('\n');
      });
      bool correct = !lines.empty();
      for (auto& line : lines) {
        correct = correct && line.value("correct", false);
        line["env"] = environment;
        line["round"] = round;
        if (job) line["job"] = job;
        append_line(results, line);
      }
      if (result.ok() && correct) {
        std::cerr << fmt::format("all-reduce round {} {}: {} sizes\n", round + 1, environment, lines.size());
        continue;
      }
      ++failures;
      const std::string why = !result.ok() ? result.describe() + ": " + tail(result.stderr_tail, 2000)
                              : lines.empty() ? "no figures: " + tail(other_output + result.stderr_tail, 2000)
                                              : "a sum came out wrong";
      append_line(results, {{"env", environment}, {"round", round}, {"error", why}});
      std::cerr << fmt::format("all-reduce round {} {}: failed: {}\n", round + 1, environment, why);
    }
  }
  return failures == 0 ? 0 : 1;
}

int run_allreduce_rank(const std::string& environment, const std::string& instance,
                       const std::vector<std::string>& program_arguments, const fs::path& self_exe) {
  const fs::path program = allreduce_program_beside(self_exe);
  if (!fs::exists(program))
    throw EnvironmentUnavailable(fmt::format(
        "{} is missing: it is built with dlcbench where Open MPI's headers are (apt-get install libopenmpi-dev, "
        "then rebuild)",
        program.string()));
  const std::string node = this_slurm_node();
  EnvironmentContext context;
  context.worker_exe = program;
  // Per node: containers, scratch folders and images are this rank's own.
  context.run_id = instance + "-" + node;
  context.image_extras = mpi_image_extras();
  const EnvironmentRequest request = parse_environment_request(environment);
  std::unique_ptr<Environment> env = make_environment(request, context);
  env->prepare();
  WorkerLaunch launch;
  launch.worker_args = program_arguments;
  std::vector<std::string> own;
  for (char** e = environ; *e; ++e) own.emplace_back(*e);
  launch.env = rank_variables(own);
  const LaunchCommand command = env->command(launch, context.run_id);
  // srun ends a step's ranks with SIGTERM (another rank failed, scancel, the
  // time limit): the container goes too, not only its client.
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) std::signal(sig, stop_rank);
  const ProcessResult result = run_process(command.process(0, &g_rank_stopped), [](std::string_view line) {
    std::cout << line << '\n' << std::flush;
  });
  if (!result.ok()) {
    env->cleanup(context.run_id);
    std::cerr << fmt::format("slurm-allreduce {} on {}: {}\n{}", environment, node, result.describe(),
                             result.stderr_tail);
  }
  env->finish();
  return result.ok() ? 0 : 1;
}

}  // namespace dlcbench
