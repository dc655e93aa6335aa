#include "cli/run_options.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "cli/option_checks.h"
#include "cluster/allreduce_run.h"
#include "cluster/slurm.h"
#include "core/errors.h"
#include "core/units.h"
#include "model/environment_request.h"
#include "model/plan.h"
#include "workloads/command_metric.h"
#include "workloads/micro/micro_workloads.h"
#include "workloads/registry.h"

namespace fs = std::filesystem;

namespace dlcbench::cli {
namespace {

// `-- COMMAND ARGS...` and the options that say how to run and read it.
// /data and /data/x, or /data and /data: the same place, or one inside the
// other.
bool mount_points_overlap(const std::string& a, const std::string& b) {
  const std::string x = fs::path(a).lexically_normal().string(), y = fs::path(b).lexically_normal().string();
  auto inside = [](const std::string& inner, const std::string& outer) {
    return inner == outer || (inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 &&
                              (outer.back() == '/' || inner[outer.size()] == '/'));
  };
  return inside(x, y) || inside(y, x);
}

// Where a container sees a host folder: not the root, and not in the file
// systems the runtime mounts itself (Docker: "cannot be mounted because it
// is located inside /proc").
void check_mount_point(const std::string& option, const std::string& given, const std::string& container_path) {
  const std::string path = fs::path(container_path).lexically_normal().string();
  if (path.empty() || path.front() != '/' || path == "/")
    throw UsageError(fmt::format("{} {}: containers would see the folder at '{}': give an absolute folder other "
                                 "than /, e.g. /work",
                                 option, given, container_path));
  for (const char* kernel : {"/proc", "/sys", "/dev"})
    if (mount_points_overlap(path, kernel))
      throw UsageError(fmt::format("{} {}: {} is where the runtime mounts the kernel's {} file system, so no "
                                   "folder can go there: give another place, e.g. /work",
                                   option, given, path, kernel + 1));
}

CommandSpec command_spec(const RunOptions& o) {
  CommandSpec c;
  c.argv = o.command;
  if (o.command.front().empty())
    throw UsageError("-- '': the command's program is an empty word: give the program to run after --, e.g. "
                     "-- sysbench cpu run");
  c.name = o.name.empty() ? fs::path(o.command.front()).filename().string() : o.name;
  if (c.name.empty() || !std::all_of(c.name.begin(), c.name.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.';
      })) {
    if (!o.name.empty())
      throw UsageError(fmt::format("--name '{}': give a name of letters, digits, '-', '_' and '.' for the case "
                                   "(it becomes cmd:NAME)",
                                   c.name));
    throw UsageError(fmt::format("the program {} cannot name the case (its file name '{}' is not letters, digits, '-', "
                                 "'_' and '.'): give --name NAME (it becomes cmd:NAME)",
                                 o.command.front(), c.name));
  }
  for (const auto& variable : split_list(o.pass_env)) {
    const char* value = std::getenv(variable.c_str());
    if (!value)
      throw UsageError(fmt::format("--pass-env {}: {} is not set here, so there is nothing to pass: set it, or leave "
                                   "it out",
                                   variable, variable));
    c.env.emplace_back(variable, value);
  }
  if (!o.workdir.empty()) {
    // HOST or HOST:CONTAINER (the container path is absolute, so the last
    // ":/" splits them even where the host path holds a colon).
    const auto split = o.workdir.rfind(":/");
    c.workdir = split == std::string::npos ? o.workdir : o.workdir.substr(0, split);
    if (split != std::string::npos) c.workdir_mount = o.workdir.substr(split + 1);
    if (!fs::is_directory(c.workdir))
      throw UsageError(fmt::format("--workdir {}: {} is not a folder: give a folder on this machine (mounted "
                                   "read-write, the command's working folder everywhere)",
                                   o.workdir, c.workdir));
    c.workdir = fs::absolute(c.workdir).string();
    check_mount_point("--workdir", o.workdir, c.workdir_mount);
  }
  if (o.data_mount.empty() || o.data_mount.front() != '/')
    throw UsageError(fmt::format("--data-mount {}: give an absolute path inside the container, e.g. /data",
                                 o.data_mount));
  c.data_mount = o.data_mount;
  if (o.data_given) check_mount_point("--data-mount", o.data_mount, c.data_mount);
  // Docker refuses a second mount on the same path ("Duplicate mount
  // point"), and one inside the other would be made in a read-only folder.
  if (!c.workdir.empty() && o.data_given && mount_points_overlap(c.workdir_mount, c.data_mount))
    throw UsageError(fmt::format("--workdir {}: containers would see it at {}, where --data is mounted ({}, "
                                 "--data-mount): give the working folder another place (--workdir {}:/work) or "
                                 "move the data (--data-mount /input)",
                                 o.workdir, c.workdir_mount, c.data_mount, c.workdir));
  if (!o.metric.empty())
    c.metric = parse_metric(o.metric, o.metric_unit.empty() ? "s/iteration" : o.metric_unit, o.higher_is_better);
  else if (o.higher_is_better || !o.metric_unit.empty())
    throw UsageError("--metric-unit and --higher-is-better describe the figures --metric reads: give --metric too "
                     "(without it the figure is each launch's run time, in s/launch)");
  return c;
}

// Flags that define the plan cannot be given with --resume: the plan is the
// one the manifest recorded, so the resumed launches measure what the
// earlier ones did. Only these may be given with it.
bool allowed_with_resume(const std::string& flag) {
  return flag == "--resume" || flag == "--keep-images" || flag == "--keep-going" || flag == "--help" ||
         flag == "--take-turns" || flag == "--verbose" || flag == "--store" || flag == "--no-store" ||
         flag == "--cgroup-parent";
}

}  // namespace

// What is measured: workloads, back ends, devices, environments, batches.
void add_what_options(CLI::App* cmd, RunOptions& o) {
  cmd->add_option("--workloads", o.workloads,
                  "Comma-separated workloads (see `dlcbench list`); micro-benchmarks take a variant and options, "
                  "e.g. gemm/sgemm:n=2048,io-seq:size=1g,block=4m")
      ->check(not_empty("workloads, e.g. fcn5,startup (see `dlcbench list`)") & checked_by([](const std::string& text) {
                for (const auto& item : split_workload_list(text)) {
                  validate_workload_name(item.substr(0, item.find_first_of("/:")));
                  if (find_micro_workload(item.substr(0, item.find_first_of("/:")))) parse_micro_request(item);
                }
              }));
  cmd->add_option("--suite", o.suite, "Named workloads: default (fcn5,startup), micro (the CPU, memory and disk "
                                       "micro-benchmarks), paper (all of them and the four networks) or tools (dd, fio, ioping "
                                       "and hpcc next to dlcbench's own, those installed)")
      ->capture_default_str();
  cmd->add_option("--path", o.paths,
                  "Where io-seq and io-lat write, comma-separated: rootfs (the environment's own root file system), "
                  "tmpfs (a tmpfs mounted for the worker) or host folders (bind-mounted read-write in containers)")
      ->check(not_empty("rootfs, tmpfs or a folder"))
      ->capture_default_str();
  cmd->add_option("--backends", o.backends,
                  "Comma-separated back ends (default: torch; cuda when --device names gpu)")
      ->check(not_empty("back ends, e.g. torch,onednn (see `dlcbench list`)") & checked_by([](const std::string& text) {
                for (const auto& backend : split_list(text)) validate_backend_name(backend);
              }));
  cmd->add_option("--device", o.device, "cpu, gpu, or both (cpu,gpu): each back end runs on those it supports")
      ->check(not_empty("cpu, gpu or cpu,gpu"))
      ->capture_default_str();
  cmd->add_option("--envs", o.envs,
                  "Comma-separated environments with options, e.g. host,docker,docker:cpus=1,runc (default: host and "
                  "every runtime installed; see `dlcbench doctor` and `dlcbench list`)")
      ->check(not_empty("environments, e.g. host,docker (see `dlcbench doctor`)") & checked_by([](const std::string& text) {
                for (const auto& r : parse_environment_list(text))
                  check_options_fit_machine(r.name, r.container);
              }));
  cmd->add_option("--batch", o.batches, "Batch size, or a comma-separated sweep such as 64,128,256 (default: per workload)")
      ->check(whole_numbers_in(1, kMaxBatch));
  cmd->add_option("--input", o.input, "memory: batches from memory; disk: each step reads its batch from the data files (timed)")
      ->check(CLI::IsMember({"memory", "disk"}))
      ->capture_default_str();
}

// How often and how long: rounds, batches per launch, threads, data, where results go.
void add_repetition_options(CLI::App* cmd, RunOptions& o) {
  cmd->add_option("--runs", o.runs, "Rounds: launches of each case in each environment")
      ->check(whole_number_in(1, kMaxRuns))
      ->capture_default_str();
  cmd->add_option("--warmup", o.warmup,
                  "Warm-up batches (operations) per launch, reported apart (default: training 5, micro-benchmarks "
                  "their own, see `dlcbench list`)")
      ->check(whole_number_in(0, kMaxIters));
  cmd->add_option("--iters", o.iters,
                  "Measured batches (operations) per launch (default: training 20, micro-benchmarks their own)")
      ->check(whole_number_in(1, kMaxIters));
  cmd->add_option("--threads", o.threads,
                  "Compute threads in every environment (default: CPUs available; more than that is measured, with a "
                  "warning)")
      ->check(whole_number_in(1, kMaxThreads));
  cmd->add_flag("--pin-threads,!--no-pin-threads", o.pin_threads,
                "Bind the worker's OpenMP threads one per CPU (OMP_PROC_BIND=close, OMP_PLACES=threads) in every "
                "environment (default: on; recorded in the manifest)");
  cmd->add_flag("--hold-samples,!--no-hold-samples", o.hold_samples,
                "Workers print their measured samples when the measured phase ends, so dlcbench reads and writes "
                "nothing while batches are timed (default: on; --no-hold-samples streams each batch as it ends)");
  cmd->add_option("--data", o.data, "Data folder, or `synthetic`")
      ->check(not_empty("a data folder (see `dlcbench data fetch`) or synthetic"))
      ->each([&o](const std::string&) { o.data_given = true; })
      ->capture_default_str();
  cmd->add_option("--out", o.out, "Folder for results/<run-id>/")
      ->check(not_empty("a folder to write results in"))
      ->capture_default_str();
  cmd->add_option("--image", o.image,
                  "Image for docker and podman instead of building one (must hold /opt/dlcbench/bin/dlcbench)")
      ->check(not_empty("an image name"));
  cmd->add_option("--baseline", o.baseline, "Environment the others are compared with")
      ->check(not_empty("one of the environments in --envs"))
      ->capture_default_str();
}

// Order, limits, adaptive rounds, images, mismatches, dry run and resume.
void add_control_options(CLI::App* cmd, RunOptions& o) {
  cmd->add_option("--seed", o.seed, "Seed of the environment order per round (default: random, recorded)")
      ->check(whole_number_in(0, std::numeric_limits<long>::max()));
  cmd->add_option("--case-timeout", o.case_timeout, "Seconds before a launch is stopped as hung")
      ->check(seconds_up_to(kMaxCaseTimeoutSeconds))
      ->capture_default_str();
  cmd->add_option("--starts", o.starts, "Timed starts per round of the startup workload (each round reports their median)")
      ->check(whole_number_in(1, kMaxStarts))
      ->capture_default_str();
  cmd->add_option("--until-cv", o.until_cv,
                  "Add rounds after --runs while a case's coefficient of variation over runs is above this, e.g. 2%")
      ->check(not_empty("a coefficient of variation such as 2% or 0.02"));
  cmd->add_option("--precision", o.precision,
                  "Add rounds after --runs until every comparison's 95% interval is within +- this, e.g. 2% "
                  "(or --max-runs or --max-time is reached)")
      ->check(not_empty("an interval half-width such as 2% or 0.02"));
  cmd->add_option("--margin", o.margin,
                  "Equivalence margin: \"no overhead above 2%\" is said only when both intervals lie within +- this "
                  "(default: 2%)")
      ->check(not_empty("an equivalence margin such as 2% or 0.02"));
  cmd->add_option("--max-time", o.max_time,
                  "Add no round that would end after this much time from the start, e.g. 45m, 2h, 900 (seconds)")
      ->check(not_empty("a duration such as 45m"));
  cmd->add_option("--max-runs", o.max_runs,
                  "Most rounds in all, added ones included (default: 10 x --runs with --precision, 3 x with "
                  "--until-cv, else 1.5 x: room to replace disturbed runs)")
      ->check(whole_number_in(1, kMaxRuns));
  cmd->add_flag("--keep-images", o.keep_images,
                "Keep the worker images dlcbench imports into docker and podman (reused by later runs of this binary)");
  cmd->add_flag("--keep-going", o.keep_going,
                "Measure the other environments when one asked for cannot be prepared (the run then exits 1); "
                "without it such a run ends before measuring anything");
  cmd->add_flag("--allow-mismatch", o.allow_mismatch,
                "Measure and compare even when environments differ in ways nobody asked for (the report marks it)");
  cmd->add_flag("--dry-run", o.dry_run,
                "Check every option, the data and the BLAS kernel, print the plan and exit: nothing is launched or "
                "written");
  cmd->add_flag("--verbose", o.verbose,
                "Print the full report at the end (every statistic, comparison, counter and note, as `dlcbench "
                "report DIR --details`) instead of the answer alone");
  cmd->add_option("--store", o.store,
                  "The results store the run is added to at its end: a SQLite file or a postgresql:// URL (default: "
                  "DLCBENCH_STORE, else ~/.local/share/dlcbench/store.sqlite)")
      ->check(not_empty("a SQLite file path or a postgresql:// URL"));
  cmd->add_flag("--no-store", o.no_store, "Add the run to no results store (its folder is written as always)");
  cmd->add_option("--resume", o.resume,
                  "Continue the run in this folder (results/<run-id>): measure only the launches it lacks, with its "
                  "recorded plan, and append to its files; give no other option but --keep-images")
      ->check(not_empty("a run folder, results/<run-id>"));
}

namespace {

// --run-id and --take-turns, which users give, and the options a node's
// part of a cluster run gets from `slurm-node`.
void add_run_folder_options(CLI::App* cmd, RunOptions& o) {
  cmd->add_option("--run-id", o.run_id,
                  "Name of the run's folder under --out, and of its containers (default: the time and a random part)")
      ->check(checked_by([](const std::string& id) {
        if (id.empty() || id.size() > 100 || id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != std::string::npos ||
            id[0] == '.' || id[0] == '-')
          throw UsageError("give letters, digits, '_', '.' and '-' (up to 100, not starting with '.' or '-')");
      }));
  cmd->add_flag("--take-turns", o.take_turns,
                "Each launch waits until no launch of another run started with --take-turns runs on this machine "
                "(the nodes of a test cluster share one machine; `run --slurm` sets it)");
  // Set by `slurm-node` for a node's part of a cluster run; not for users.
  // Shown in a group of their own: CLI11 names a hidden option in no error.
  const std::string node_group = "Set by run --slurm on each node (not for users)";
  const auto absolute = [](const std::string& what) {
    return checked_by([what](const std::string& path) {
      if (path.empty() || path[0] != '/') throw UsageError("give " + what);
    });
  };
  cmd->add_option("--run-folder", o.run_folder, "This node's run folder")
      ->check(absolute("an absolute folder"))
      ->group(node_group);
  cmd->add_option("--cluster-run", o.cluster_run, "The cluster run's id")
      ->check(not_empty("a cluster run's id"))
      ->group(node_group);
  cmd->add_option("--cluster-node", o.cluster_node, "This node's name")
      ->check(not_empty("a node's name"))
      ->group(node_group);
  cmd->add_option("--cgroup-parent", o.cgroup_parent, "The cgroup the containers go under (a node under a CPU quota)")
      ->check(absolute("a cgroup from the root, e.g. /dlcbench-node-x"))
      ->group(node_group);
}

}  // namespace

// `run --slurm` and its knobs, and the options a node's part of it gets.
void add_cluster_options(CLI::App* cmd, RunOptions& o) {
  const std::string group = "Cluster (Slurm)";
  CLI::Option* slurm = cmd->add_flag("--slurm", o.slurm.enabled,
                "Run the plan on every node of a Slurm allocation (sbatch, one job step per node), each node's "
                "results in nodes/<node>/ of one run folder, and report them merged")
      ->group(group);
  cmd->add_option("--nodes", o.slurm.nodes, "--slurm: nodes to allocate (default: every node of the partition that is up)")
      ->check(CLI::PositiveNumber)
      ->group(group);
  cmd->add_option("--nodelist", o.slurm.nodelist, "--slurm: these nodes (Slurm's list syntax, e.g. n[1-4])")
      ->check(not_empty("nodes, e.g. n[1-4]"))
      ->group(group);
  cmd->add_option("--partition", o.slurm.partition, "--slurm: the partition (default: Slurm's default)")
      ->check(not_empty("a partition"))
      ->group(group);
  cmd->add_option("--account", o.slurm.account, "--slurm: the account to charge")->check(not_empty("an account"))->group(group);
  cmd->add_option("--time", o.slurm.time_limit, "--slurm: the job's time limit, as sbatch reads it (e.g. 30:00)")
      ->check(not_empty("a time limit, e.g. 30:00"))
      ->group(group);
  cmd->add_option("--sbatch-arg", o.slurm.sbatch_args,
                  "--slurm: one more argument for sbatch, passed as is (repeat for more; write --sbatch-arg=--exclusive)")
      ->allow_extra_args(false)
      ->check(not_empty("an argument for sbatch, e.g. --sbatch-arg=--exclusive"))
      ->group(group);
  cmd->add_option("--stage", o.slurm.stage,
                  "--slurm: a node-local folder each node writes its results in; copied back into the run folder "
                  "after the job (default: the nodes write into the run folder, which must be shared)")
      ->check(checked_by([](const std::string& dir) {
        if (!fs::path(dir).is_absolute())
          throw UsageError("give an absolute node-local folder, e.g. /tmp/dlcbench (each node resolves it alone)");
      }))
      ->group(group);
  cmd->add_flag("--shared-folder", o.slurm.shared_folder,
                "--slurm: the run folder is on a file system every node sees (when dlcbench cannot tell)")
      ->group(group);
  cmd->add_option("--node-cpu-quota", o.node_cpu_quota,
                  "--slurm: NODE=CPUS: run everything on that node under a CPU quota (a node made slow on purpose, "
                  "to check that the report shows it as node spread)")
      ->allow_extra_args(false)
      ->check(checked_by([](const std::string& entry) { parse_node_cpu_quota(entry); }))
      ->group(group);
  cmd->add_flag("--allreduce", o.allreduce,
                "--slurm: after the nodes' runs, time an MPI all-reduce across them (Open MPI, one rank per node, "
                "srun --mpi=pmix) on the host and in each container environment, --runs rounds")
      ->needs(slurm)
      ->group(group);
  cmd->add_option("--allreduce-sizes", o.allreduce_sizes,
                  "--allreduce: message sizes in bytes (K, M, G: powers of 1024; default 8K,1M,16M)")
      ->check(checked_by([](const std::string& text) { parse_allreduce_sizes(text); }))
      ->group(group);
  cmd->add_option("--allreduce-iterations", o.allreduce_iterations,
                  "--allreduce: timed calls per size and round (default 50, after 5 untimed)")
      ->check(CLI::PositiveNumber)
      ->group(group);
  add_run_folder_options(cmd, o);
}

// A user's command: `dlcbench run [options] -- COMMAND ARGS...`.
void add_command_options(CLI::App* cmd, RunOptions& o) {
  cmd->add_option("command", o.command,
                  "A command to measure, after --: run as given (no shell) in every environment under dlcbench-probe; "
                  "{data} and {workdir} in its arguments become those folders as each environment sees them");
  cmd->add_option("--name", o.name, "The command's case name, cmd:NAME (default: the program's file name)")
      ->check(not_empty("a name of letters, digits, '-', '_' and '.'"));
  cmd->add_option("--metric", o.metric,
                  "Read per-iteration figures from the command's output: a regular expression with one capture "
                  "group, e.g. 'step ([0-9.]+) s', or json:FIELD for JSON lines (default: each launch's wall time)")
      ->check(not_empty("a regular expression with one group, or json:FIELD"));
  cmd->add_option("--metric-unit", o.metric_unit, "The unit of --metric's figures (default: s/iteration)")
      ->check(not_empty("a unit, e.g. s/step or images/s"));
  cmd->add_flag("--higher-is-better", o.higher_is_better,
                "--metric's figures are rates (images/s): higher is better (default: times, lower is better)");
  cmd->add_option("--pass-env", o.pass_env,
                  "Variables passed from here to the command in every environment, comma-separated (recorded with "
                  "their values)")
      ->check(not_empty("variable names, e.g. OMP_NUM_THREADS,CUDA_VISIBLE_DEVICES"));
  cmd->add_option("--workdir", o.workdir,
                  "HOST[:CONTAINER]: a folder mounted read-write (at /work in containers by default) and the "
                  "command's working folder in every environment")
      ->check(not_empty("a folder"));
  cmd->add_option("--data-mount", o.data_mount, "Where containers see --data (default: /data)")
      ->capture_default_str();
}


namespace {

std::vector<int> batch_sizes(const std::string& text) {
  std::vector<int> sizes;
  for (const auto& b : split_list(text)) {
    try {
      sizes.push_back(std::stoi(b));
    } catch (const std::exception&) {
      throw UsageError(fmt::format("--batch: '{}' is not a number", b));
    }
  }
  return sizes;
}

RunRequest::Kind kind_of(const RunOptions& o) {
  if (!o.explain.empty()) return RunRequest::Kind::explain;
  return o.calibrate ? RunRequest::Kind::calibrate : RunRequest::Kind::run;
}

// explain and calibrate choose their environments themselves.
std::vector<EnvironmentRequest> named_environments(const RunOptions& o) {
  if (o.envs.empty()) return {};
  if (!o.explain.empty())
    throw UsageError("dlcbench explain runs the baseline, the environment it explains and that environment's "
                     "variants: leave --envs out (give --baseline for another baseline)");
  if (o.calibrate)
    throw UsageError("dlcbench calibrate measures --baseline against a copy of itself: leave --envs out (give "
                     "--baseline docker to calibrate inside Docker)");
  return parse_environment_list(o.envs);
}

}  // namespace

RunRequest run_request(const RunOptions& o, const std::vector<std::string>& command_line) {
  RunRequest r;
  r.kind = kind_of(o);
  if (!o.workloads.empty()) r.workloads = split_workload_list(o.workloads);
  r.suite = o.suite;
  r.io_targets = split_list(o.paths);
  r.backends = split_list(o.backends);
  r.devices = split_list(o.device);
  r.environments = named_environments(o);
  r.batches = batch_sizes(o.batches);
  r.input = o.input;
  if (!o.command.empty()) r.command = command_spec(o);
  if (!o.explain.empty()) r.explained = parse_environment_request(o.explain);
  r.features = split_list(o.features);
  r.runs = o.runs;
  r.warmup = o.warmup;
  r.iters = o.iters;
  r.threads = o.threads;
  if (!o.until_cv.empty()) r.until_cv = parse_share("--until-cv", o.until_cv, "a coefficient of variation");
  if (!o.precision.empty()) r.precision = parse_share("--precision", o.precision, "an interval half-width");
  if (!o.margin.empty()) r.margin = parse_share("--margin", o.margin, "an equivalence margin");
  if (!o.max_time.empty()) r.max_time_seconds = parse_duration("--max-time", o.max_time);
  r.max_runs = o.max_runs;
  r.starts = o.starts;
  r.case_timeout_seconds = o.case_timeout;
  r.seed = o.seed;
  r.pin_threads = o.pin_threads;
  r.hold_samples = o.hold_samples;
  r.data = o.data;
  r.data_given = o.data_given;
  r.data_mount = o.data_mount;
  r.image = o.image;
  r.baseline = o.baseline;
  r.allow_mismatch = o.allow_mismatch;
  r.keep_images = o.keep_images;
  r.keep_going = o.keep_going;
  r.take_turns = o.take_turns;
  r.dry_run = o.dry_run;
  r.on_slurm = o.slurm.enabled;
  r.out = o.out;
  r.run_id = o.run_id;
  r.run_folder = o.run_folder;
  r.cluster_run = o.cluster_run;
  r.cluster_node = o.cluster_node;
  r.cgroup_parent = o.cgroup_parent;
  r.command_line = command_line;
  return r;
}

void add_run_options(CLI::App* cmd, RunOptions& o) {
  add_what_options(cmd, o);
  add_repetition_options(cmd, o);
  add_control_options(cmd, o);
  add_command_options(cmd, o);
  add_cluster_options(cmd, o);
}

RunRequest run_request_of_words(const std::vector<std::string>& words) {
  CLI::App app{"dlcbench"};
  RunOptions o;
  CLI::App* cmd = app.add_subcommand("run");
  add_run_options(cmd, o);
  std::vector<std::string> args = {"run"};
  args.insert(args.end(), words.begin(), words.end());
  std::reverse(args.begin(), args.end());  // CLI11 takes a vector last argument first
  app.parse(args);
  return run_request(o, words);
}

ResumeRequest resume_request(const RunOptions& o, const CLI::App* cmd, const std::vector<std::string>& command_line) {
  for (const CLI::Option* option : cmd->get_options())
    if (option->count() > 0 && !allowed_with_resume(option->get_name()))
      throw UsageError(fmt::format("{} cannot be given with --resume: a resumed run keeps the plan recorded in "
                                   "{}/manifest.json, so that every launch measures the same thing. Leave out "
                                   "{}, or start a new run without --resume for a different plan",
                                   option->get_name(), o.resume, option->get_name()));
  return {o.resume, o.keep_images, o.keep_going, o.take_turns, o.cgroup_parent, command_line};
}

}  // namespace dlcbench::cli
