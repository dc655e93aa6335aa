// `dlcbench k8s`: one Kubernetes Job manifest per node, each running
// `dlcbench run --envs host` in a pod pinned to its node (the container side),
// to be compared with the same run on the node's bare host. No cluster is
// contacted: the files are for `kubectl apply -f DIR`. The options that say
// what to measure are `dlcbench run`'s own, checked by `run --dry-run`.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string_view>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/run_options.h"
#include "cli/option_checks.h"
#include "cluster/k8s_image.h"
#include "cluster/k8s_manifest.h"
#include "core/companion_programs.h"
#include "core/errors.h"
#include "core/scratch_dir.h"
#include "data/dataset.h"
#include "orchestrator/plan.h"
#include "orchestrator/planning.h"

namespace fs = std::filesystem;

namespace dlcbench::cli {
namespace {

struct K8sOptions {
  std::string nodes;
  std::string out;  // empty: k8s/<run-id>
  std::string results_path = "/var/lib/dlcbench/results";
  bool results_path_given = false;
  std::string save_image;
  std::vector<std::string> pod_env;
  K8sJobRequest request;
};

// Options of `dlcbench run` that a Job cannot take, and why: the pod's
// environment, its folders and the run's life are the Job's to set.
const std::map<std::string, std::string>& options_refused() {
  static const std::map<std::string, std::string> refused = {
      {"--envs", "the pod runs dlcbench's host environment, which inside the pod is the container side; the bare "
                 "host is the same run on the node (printed below)"},
      {"--baseline", "each pod measures one environment; `dlcbench compare` sets the pod against the bare host"},
      {"--resume", "a Job runs once (backoffLimit 0); resume a run on the node with `dlcbench run --resume`"},
      {"--dry-run", "dlcbench k8s checks the options with `run --dry-run` itself"},
      {"--keep-images", "a pod builds no images"},
      {"--workdir", "a pod runs dlcbench's own workloads, not a command"},
      {"--data-mount", "the data folder is mounted at /data in the pod"},
      {"--pass-env", "a pod runs dlcbench's own workloads, not a command; --pod-env NAME=VALUE sets a variable"},
      {"--name", "a pod runs dlcbench's own workloads, not a command"},
      {"--metric", "a pod runs dlcbench's own workloads, not a command"},
      {"--metric-unit", "a pod runs dlcbench's own workloads, not a command"},
      {"--higher-is-better", "a pod runs dlcbench's own workloads, not a command"},
  };
  return refused;
}

void refuse_job_options(const std::vector<std::string>& options) {
  for (const auto& option : options) {
    const auto found = options_refused().find(option.substr(0, option.find('=')));
    if (found != options_refused().end())
      throw UsageError(fmt::format("{} cannot be given to dlcbench k8s: {}", found->first, found->second));
  }
}

// The run options, parsed once into the request each pod's run will make
// and checked by planning it as `dlcbench run` would, with synthetic data:
// the data folder is on the nodes, and each pod checks it there before
// measuring. --input disk needs real data, so the check leaves it out.
RunRequest checked_pod_request(const std::vector<std::string>& options) {
  std::vector<std::string> words = {"--dry-run", "--envs", "host", "--data", "synthetic"};
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (options[i] == "--input=disk") continue;
    if (options[i] == "--input" && i + 1 < options.size() && options[i + 1] == "disk") {
      ++i;
      continue;
    }
    words.push_back(options[i]);
  }
  // What planning prints is about this machine: its warnings name this
  // machine's BLAS kernel and thread count, and each pod's log has its own
  // node's. Only an error's context is shown.
  std::ostringstream printed, said;
  std::streambuf* const standard_output = std::cout.rdbuf(printed.rdbuf());
  std::streambuf* const standard_error = std::cerr.rdbuf(said.rdbuf());
  std::optional<RunRequest> request;
  std::string problem;
  try {
    request = run_request_of_words(words);
    plan_run(*request);
  } catch (const std::exception& e) {  // CLI::ParseError, UsageError, DataError
    problem = e.what();
  }
  std::cout.rdbuf(standard_output);
  std::cerr.rdbuf(standard_error);
  if (!problem.empty()) {
    std::cerr << said.str();
    throw UsageError(fmt::format("{}: the options are `dlcbench run`'s, passed to each pod's run; fix them as it says",
                                 problem));
  }
  if (request->command)
    throw UsageError("a pod runs dlcbench's own workloads, not a command: leave out the command (and any word "
                     "that is not an option of `dlcbench run` or `dlcbench k8s`)");
  return *request;
}

// Without --threads each side takes the CPUs it may use: the pod's cpuset,
// which a CPU limit does not shrink, so a limit below it measures throttling.
void warn_threads_and_cpu_limit(const K8sJobRequest& r, const RunRequest& run) {
  if (r.resources.cpu_limit.empty()) return;
  const double cores = *k8s_quantity_value(r.resources.cpu_limit);
  const std::optional<int> threads = run.threads;
  if (!threads)
    std::cerr << fmt::format("warning: --cpu-limit {} without --threads: the pod's run takes as many threads as the "
                             "node has CPUs it may use, which a CPU limit does not reduce, so the threads are "
                             "throttled; give --threads (at most {:g}) to measure the same threads on both sides\n",
                             r.resources.cpu_limit, std::floor(cores));
  else if (*threads > cores)
    std::cerr << fmt::format("warning: --threads {} is more than --cpu-limit {} allows to run at once: the pod's "
                             "threads will be throttled, and that is what will be measured\n",
                             *threads, r.resources.cpu_limit);
}

std::string make_k8s_run_id() {
  return fmt::format("{:%Y%m%d-%H%M%S}-{:04x}", fmt::gmtime(std::time(nullptr)), std::random_device{}() & 0xffff);
}

// A word as a POSIX shell reads it, for the commands printed for the user.
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("-_./:=,+@%").find(static_cast<char>(c)) != std::string_view::npos;
  });
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string printed_command(const std::string& program, const std::vector<std::string>& args) {
  std::string line = shell_word(program);
  for (const auto& arg : args) line += " " + shell_word(arg);
  return line;
}

// The worker image's root file system as a tar archive (cluster/k8s_image.h).
void save_image(const fs::path& file) {
  const std::string content_id = write_k8s_image(fs::read_symlink("/proc/self/exe"), file);
  std::cout << fmt::format("wrote {} (content {}): the worker image's root file system\n  docker import --change "
                           "'LABEL dlcbench.content={}' {} REGISTRY/dlcbench:TAG && docker push REGISTRY/dlcbench:TAG\n",
                           file.string(), content_id, content_id, shell_word(file.string()));
}

// kubectl apply -f DIR applies every file in DIR: a folder holding anything
// else would start more than this run's Jobs.
fs::path manifest_folder(const std::string& out) {
  std::error_code error;
  if (fs::exists(out, error) && !(fs::is_directory(out, error) && fs::is_empty(out, error)))
    throw UsageError(fmt::format("--out {}: it exists and is not an empty folder, and `kubectl apply -f {}` would "
                                 "apply whatever else it holds; give a new or empty folder",
                                 out, out));
  fs::create_directories(out, error);
  if (error)
    throw UsageError(fmt::format("--out {}: cannot create the folder: {}; give a folder you can write to", out,
                                 error.message()));
  return out;
}

void write_manifests(const K8sOptions& o, const std::vector<K8sJob>& jobs) {
  const K8sJobRequest& r = o.request;
  const fs::path dir = manifest_folder(o.out);
  for (const auto& job : jobs) {
    const fs::path file = dir / (job.name + ".json");
    std::ofstream stream(file, std::ios::binary);
    stream << job.manifest.dump(2) << "\n";
    if (!stream.flush())
      throw UsageError(fmt::format("--out {}: cannot write {}; give a folder you can write to", o.out, file.string()));
  }
  const std::string ns = r.namespace_name.empty() ? "" : " -n " + r.namespace_name;
  std::cout << fmt::format("wrote {} batch/v1 Job manifests to {} (run id {}), one per node:\n", jobs.size(),
                           dir.string(), r.run_id);
  for (const auto& job : jobs) std::cout << fmt::format("  {}: {}.json\n", job.node, job.name);
  std::cout << fmt::format("\nstart them:   kubectl apply -f {}\nwatch them:   kubectl get jobs{} -l {}={}\nlogs:         "
                           "kubectl logs{} -l {}={} --prefix\ndelete them:  kubectl delete jobs{} -l {}={}\n",
                           shell_word(dir.string()), ns, kK8sRunLabel, r.run_id, ns, kK8sRunLabel, r.run_id, ns,
                           kK8sRunLabel, r.run_id);
  const fs::path exe = fs::read_symlink("/proc/self/exe");
  std::cout << fmt::format("\nThe bare-host side: on each node, before its Job or after it ends (never while it "
                           "runs), with this same binary ({}, the image's), as root like the pod:\n",
                           exe.string());
  for (const auto& node : r.nodes)
    std::cout << fmt::format("  on {}: {}\n", node, printed_command("dlcbench", bare_host_run_arguments(r, node)));
  if (!r.results_host_path.empty())
    std::cout << fmt::format("then, on each node: dlcbench compare {}/{}/* {}/{}/*\n", r.results_host_path,
                             k8s_results_subfolder(r.run_id, "NODE", "host"), r.results_host_path,
                             k8s_results_subfolder(r.run_id, "NODE", "pod"));
  else
    std::cout << fmt::format("then copy {} from the claim {} (README: Kubernetes) and: dlcbench compare "
                             "results/{}/* results/{}/*\n",
                             k8s_results_subfolder(r.run_id, "NODE", "pod"), r.results_claim,
                             k8s_results_subfolder(r.run_id, "NODE", "host"),
                             k8s_results_subfolder(r.run_id, "NODE", "pod"));
}

// The Jobs of the options, every check made (nothing is written yet).
std::vector<K8sJob> checked_jobs(K8sOptions& o, const std::vector<std::string>& run_options) {
  K8sJobRequest& r = o.request;
  r.nodes = split_list(o.nodes);
  if (r.nodes.empty()) throw UsageError("--nodes: give the nodes to measure on, comma-separated (`kubectl get nodes`)");
  if (r.image.empty())
    throw UsageError("--image: give the worker image the nodes pull (see --save-image and README: Kubernetes)");
  r.run_options = run_options;
  if (r.run_id.empty()) r.run_id = make_k8s_run_id();
  if (r.results_claim.empty()) r.results_host_path = o.results_path;
  else if (o.results_path_given)
    throw UsageError("give the results volume as one of --results-path (a folder on each node) and --results-claim "
                     "(a PersistentVolumeClaim), not both");
  for (const auto& assignment : o.pod_env) {
    const auto equals = assignment.find('=');
    if (equals == std::string::npos)
      throw UsageError(fmt::format("--pod-env {}: give NAME=VALUE, e.g. OPENBLAS_CORETYPE=SkylakeX", assignment));
    r.env.emplace_back(assignment.substr(0, equals), assignment.substr(equals + 1));
  }
  refuse_job_options(run_options);
  std::vector<K8sJob> jobs = k8s_jobs(r);  // the Job's own checks first: they need no dry run
  warn_threads_and_cpu_limit(r, checked_pod_request(run_options));
  return jobs;
}

void run_k8s(K8sOptions& o, const std::vector<std::string>& run_options) {
  if (!o.save_image.empty()) {
    const fs::path folder = fs::absolute(o.save_image).parent_path();
    if (!fs::is_directory(folder))
      throw UsageError(fmt::format("--save-image {}: the folder {} does not exist; give a file in a folder you can "
                                   "write to",
                                   o.save_image, folder.string()));
  }
  const bool image_only = !o.save_image.empty() && o.nodes.empty() && run_options.empty();
  const std::vector<K8sJob> jobs = image_only ? std::vector<K8sJob>{} : checked_jobs(o, run_options);
  if (!o.save_image.empty()) save_image(o.save_image);
  if (image_only) return;
  if (o.out.empty()) o.out = "k8s/" + o.request.run_id;
  write_manifests(o, jobs);
}

}  // namespace

void add_k8s_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<K8sOptions>();
  o->request.data = default_data_root().string();
  auto* cmd = app.add_subcommand(
      "k8s",
      "Write Kubernetes Job manifests (JSON), one per node, that run `dlcbench run --envs host` in a pod pinned to the "
      "node: the container side, to compare with the same run on the node's bare host. Takes `dlcbench run`'s options "
      "that say what to measure (--workloads, --suite, --runs, --warmup, --iters, --threads, --seed, --batch, ...)");
  cmd->allow_extras();  // the run options, checked by `run --dry-run`
  cmd->add_option("--nodes", o->nodes, "Nodes to measure on, comma-separated, as `kubectl get nodes` names them")
      ->check(not_empty("node names, e.g. node-1,node-2"));
  cmd->add_option("--image", o->request.image,
                  "The worker image the nodes run (holds dlcbench at /opt/dlcbench/bin/dlcbench: see --save-image)")
      ->check(not_empty("an image reference, e.g. registry.example.com/dlcbench:1.0"));
  cmd->add_option("--namespace", o->request.namespace_name, "Namespace of the Jobs (default: kubectl's)")
      ->check(not_empty("a namespace"));
  cmd->add_option("--results-path", o->results_path,
                  "Folder on each node for the results (a hostPath, made if missing), mounted at /results")
      ->check(not_empty("an absolute folder on the nodes"))
      ->capture_default_str();
  cmd->add_option("--results-claim", o->request.results_claim,
                  "A PersistentVolumeClaim for the results instead of --results-path (ReadWriteMany for several nodes)")
      ->check(not_empty("a PersistentVolumeClaim's name"));
  cmd->add_option("--data", o->request.data,
                  "Data folder on each node (mounted read-only at /data), or synthetic")
      ->check(not_empty("a folder on the nodes, or synthetic"))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Folder for the manifests, new or empty (default: k8s/<run-id>)")
      ->check(not_empty("a folder"));
  cmd->add_option("--run-id", o->request.run_id,
                  "Names and labels the Jobs (dlcbench.run=ID); default: the time and a random part")
      ->check(not_empty("a run id of lowercase letters, digits and '-'"));
  cmd->add_option("--deadline", o->request.active_deadline_seconds,
                  "Seconds a Job may run before Kubernetes stops it (activeDeadlineSeconds)")
      ->check(whole_number_in(1, static_cast<long>(kMaxCaseTimeoutSeconds)))
      ->capture_default_str();
  cmd->add_option("--cpu-request", o->request.resources.cpu_request, "The pod's CPU request, e.g. 2 or 1500m")
      ->check(not_empty("a CPU quantity, e.g. 2 or 1500m"));
  cmd->add_option("--cpu-limit", o->request.resources.cpu_limit, "The pod's CPU limit, e.g. 2")
      ->check(not_empty("a CPU quantity, e.g. 2 or 1500m"));
  cmd->add_option("--memory-request", o->request.resources.memory_request, "The pod's memory request, e.g. 4Gi")
      ->check(not_empty("a memory quantity, e.g. 4Gi"));
  cmd->add_option("--memory-limit", o->request.resources.memory_limit, "The pod's memory limit, e.g. 8Gi")
      ->check(not_empty("a memory quantity, e.g. 8Gi"));
  cmd->add_option("--pod-env", o->pod_env,
                  "NAME=VALUE: a variable for the pod's run, e.g. OPENBLAS_CORETYPE=SkylakeX (repeatable)")
      ->check(not_empty("NAME=VALUE"));
  cmd->add_option("--save-image", o->save_image,
                  "Also write the worker image's root file system as a tar archive here, for `docker import` and a "
                  "push to the cluster's registry")
      ->check(not_empty("a file to write"));
  cmd->callback([o, cmd, &exit_code] {
    exit_code = exit_code_of([&] {
      o->results_path_given = cmd->get_option("--results-path")->count() > 0;
      run_k8s(*o, cmd->remaining());
      return kExitOk;
    });
  });
}

}  // namespace dlcbench::cli
