#include "orchestrator/planning.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>

#include "core/blas_check.h"
#include "core/fingerprint.h"
#include "core/limits.h"
#include "core/companion_programs.h"
#include "core/errors.h"
#include "core/process.h"
#include "core/words.h"
#include "data/dataset.h"
#include "data/fetch.h"
#include "data/training_data.h"
#include "orchestrator/ablation.h"
#include "orchestrator/plan.h"
#include "runtimes/environment.h"
#include "workloads/micro/external_tools.h"
#include "runtimes/rootless.h"
#include "workloads/loader/loader.h"
#include "workloads/micro/micro_workloads.h"
#include "workloads/registry.h"
#include "workloads/micro/syscall_cost.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

// --data: a folder, or the name of a data set `dlcbench data fetch` knows
// (`--data mnist`), which means the folder it fetched into, where no folder
// of that name is here.
fs::path data_location(const std::string& given) {
  const auto names = fetchable_datasets();
  std::error_code error;
  if (std::find(names.begin(), names.end(), given) != names.end() && !fs::exists(given, error))
    return default_data_root();
  return given;
}

// The BLAS kernel against the CPU: a kernel the CPU cannot run would kill
// every worker with SIGILL, so the run stops before it starts; an older
// kernel than the CPU allows is only a warning (the comparison stays fair).
void check_blas(const Plan& plan) {
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  const auto verdict =
      check_blas_kernel(blas_info().value("core", std::string()), read_cpu_isa(), forced ? forced : "");
  if (verdict.ok) return;
  if (verdict.would_crash) throw UsageError(verdict.message);
  if (!plan.cases.empty()) std::cerr << "warning: " << verdict.message << "\n";
}

// A thread pool larger than an environment's CPU quota or cpuset: measured
// as that environment's overhead, which may not be the question asked.
void warn_threads_beyond_cpus(const Plan& plan, int threads) {
  // A user's command runs the threads it starts itself, not --threads.
  if (only_commands(plan)) return;
  for (const auto& env : plan.environments) {
    const std::string why = threads_beyond_cpus(env.text, env.container, threads);
    if (why.empty()) continue;
    std::cerr << "warning: " << why << "\n";
    // explain's variants are the explained environment with one feature
    // changed: once, for it, says it for them.
    if (plan.ablation) return;
  }
}

// host, and every runtime whose program is installed. One that is installed
// but cannot run here is skipped with a note, not counted as a failure.
std::vector<std::string> default_environments() {
  std::vector<std::string> envs;
  for (const auto& name : environment_names())
    // chroot needs a root file system named with rootfs=: never found.
    if (name == "host" || (name != "chroot" && find_program(runtime_program(name)))) envs.push_back(name);
  // Rootless Podman joins them where scripts/rootless-user.sh set it up (as
  // root; a user's own podman is rootless already).
  if (geteuid() == 0 && find_program("podman") && rootless_problems(kDefaultRootlessUser).empty())
    envs.push_back(fmt::format("podman:rootless={}", kDefaultRootlessUser));
  // Rootless Docker where that user's dockerd runs (scripts/with-rootless-docker.sh).
  if (geteuid() == 0 && find_program("docker") && rootless_problems(kDefaultRootlessUser).empty() &&
      rootless_docker_running(kDefaultRootlessUser))
    envs.push_back(fmt::format("docker:rootless={}", kDefaultRootlessUser));
  return envs;
}

// Named sets of workloads, as --suite.
const std::map<std::string, std::string>& suites() {
  static const std::map<std::string, std::string> all = {
      {"default", "fcn5,startup"},
      {"micro", "gemm,hpl,hpcg,stream,io-seq,io-lat"},
      {"paper", "gemm,hpl,hpcg,stream,io-seq,io-lat,fcn5,alexnet,resnet56,lstm,startup"},
      // The real tools next to dlcbench's own, where installed.
      {"tools", "io-seq,dd,fio,io-lat,ioping,hpl:n=4096,hpcc/hpl,stream/triad,hpcc/stream"},
  };
  return all;
}

// The workload items of --workloads, or of --suite: a suite runs the
// external tools that are installed and says which are not.
std::vector<std::string> workload_items(const RunRequest& o) {
  auto suite = suites().find(o.suite);
  if (suite == suites().end()) {
    std::vector<std::string> names;
    for (const auto& [name, list] : suites()) names.push_back(fmt::format("{} ({})", name, list));
    throw UsageError(fmt::format("--suite {}: valid suites are {}", o.suite, fmt::join(names, "; ")));
  }
  if (!o.workloads.empty() && o.suite != "default")
    throw UsageError("--suite and --workloads both name workloads: give one of them");
  if (!o.workloads.empty()) return o.workloads;
  // A command alone, unless workloads are named too.
  if (o.command && o.suite == "default") return {};
  std::vector<std::string> items = split_workload_list(suite->second);
  std::erase_if(items, [](const std::string& item) {
    if (!external_tool_missing(item)) return false;
    std::cerr << "warning: " << tool_missing_message(*find_external_tool(item.substr(0, item.find_first_of("/:"))))
              << "\n";
    return true;
  });
  return items;
}

// Unless named, the back ends are LibTorch on the CPU and cuda on the GPU.
// One this build lacks, or one without any of the devices asked for, is
// left out, saying why; the run goes on with the others.
std::vector<std::string> usable_backends(const RunRequest& o, const std::vector<std::string>& devices) {
  const bool gpu_asked = std::find(devices.begin(), devices.end(), "gpu") != devices.end();
  const bool cpu_asked = std::find(devices.begin(), devices.end(), "cpu") != devices.end();
  std::vector<std::string> backends = o.backends;
  if (backends.empty() && gpu_asked)
    backends = cpu_asked ? std::vector<std::string>{"torch", "cuda"} : std::vector<std::string>{"cuda"};
  if (backends.empty()) backends = {"torch"};
  std::vector<std::string> usable;
  for (const auto& backend : backends) {
    std::string why = backend_unavailable(backend);
    const BackendInfo* info = find_backend(backend);
    if (why.empty() && info && std::none_of(devices.begin(), devices.end(), [&](const std::string& d) {
          return std::find(info->devices.begin(), info->devices.end(), d) != info->devices.end();
        }))
      why = fmt::format("it does not run on --device {} (devices: {})", fmt::join(devices, ","), fmt::join(info->devices, ", "));
    if (!why.empty()) {
      std::cerr << "warning: leaving out --backends " << backend << ": " << why << "\n";
      continue;
    }
    usable.push_back(backend);
  }
  if (usable.empty() && !backends.empty())
    throw UsageError(fmt::format("none of --backends {} can run here on --device {}: see the warnings above",
                                 fmt::join(backends, ","), fmt::join(devices, ",")));
  return usable;
}

PlanRequest plan_request(const RunRequest& o) {
  PlanRequest request;
  request.workloads = workload_items(o);
  request.io_targets = o.io_targets;
  request.devices = o.devices;
  for (const auto& device : request.devices)
    if (device != "cpu" && device != "gpu")
      throw UsageError(fmt::format("--device {}: valid devices are cpu and gpu (or both: cpu,gpu)", device));
  request.backends = usable_backends(o, request.devices);
  request.batches = o.batches;
  request.warmup = o.warmup;
  request.iters = o.iters;
  const int cpus = usable_cpu_count();
  request.threads = o.threads.value_or(cpus);
  if (request.threads > cpus)
    std::cerr << fmt::format("warning: --threads {} is more than the {} CPU{} this process may use: the threads will "
                             "take turns on them (oversubscription), and that is what will be measured; leave "
                             "--threads out to use {}\n",
                             request.threads, cpus, cpus == 1 ? "" : "s", cpus);
  request.input = o.input;
  request.starts = o.starts;
  request.command = o.command;
  return request;
}

// --runs, and the rounds that may be added after them: replacements for
// disturbed runs, --precision, --until-cv, within --max-runs and --max-time.
void set_repetition(const RunRequest& o, Plan& plan) {
  plan.runs = o.runs;
  plan.until_cv = o.until_cv;
  plan.precision = o.precision;
  plan.margin = o.margin;
  plan.max_time_seconds = o.max_time_seconds;
  // Room for added rounds: with a target, 3 x --runs for --until-cv (as
  // before) and 10 x for --precision; without, half as many again, for
  // replacements of disturbed runs.
  const int room = plan.precision > 0 ? 10 * o.runs : plan.until_cv > 0 ? 3 * o.runs : o.runs + (o.runs + 1) / 2;
  plan.max_runs = o.max_runs > 0 ? o.max_runs : static_cast<int>(std::min<long>(room, kMaxRuns));
  if (plan.max_runs < plan.runs)
    throw UsageError(fmt::format("--max-runs {} is below --runs {}: it counts every round, the planned ones too",
                                 plan.max_runs, plan.runs));
  if ((plan.until_cv > 0 || plan.precision > 0) && plan.max_runs == plan.runs)
    throw UsageError(fmt::format("--max-runs {} equals --runs: {} cannot add a round; give a larger --max-runs",
                                 plan.max_runs, plan.precision > 0 ? "--precision" : "--until-cv"));
  if (plan.until_cv > 0)
    std::cerr << "note: --until-cv stops on the spread of each environment's runs, which on a busy machine may never "
                 "fall below the target; --precision stops on what the verdict needs, the width of each "
                 "comparison's interval\n";
}

// `dlcbench explain ENV`: the baseline, ENV as it is, and its variants.
std::vector<EnvironmentRequest> ablation_environments(const RunRequest& o, Plan& plan) {
  const EnvironmentRequest& explained = *o.explained;
  if (!find_program(runtime_program(explained.name)) && explained.name != "host")
    throw UsageError(fmt::format("dlcbench explain {}: {} is not installed: run `apt-get install {}` (or "
                                 "scripts/install-deps.sh)",
                                 explained.text, explained.name, explained.name == "runsc" ? "runsc" : explained.name));
  AblationContext context;
  context.kvm_usable = kvm_platform_usable();
  for (const auto& c : plan.cases)
    if (c.io_target == "rootfs") context.writes_rootfs = true;
  plan.ablation = plan_ablation(explained, o.features, context);
  std::vector<std::string> labels = {o.baseline, explained.text};
  for (const auto& v : plan.ablation->variants) labels.push_back(v.label);
  for (const auto& c : plan.ablation->combinations) labels.push_back(c.label);
  std::vector<EnvironmentRequest> requests;
  for (const auto& label : labels) {
    if (std::any_of(requests.begin(), requests.end(), [&](const auto& r) { return r.text == label; })) continue;
    requests.push_back(parse_environment_request(label));
  }
  return requests;
}

// A command the host cannot start fails every host launch with "exited with
// status 127": said now, before anything runs. (In a container the program
// is the image's, which only a launch can tell.)
void check_host_programs(const Plan& plan) {
  const bool on_host = std::any_of(plan.environments.begin(), plan.environments.end(),
                                   [](const EnvironmentRequest& e) { return e.name == "host"; });
  if (!on_host) return;
  for (const auto& c : plan.cases) {
    if (!c.is_command() || c.command.argv.empty()) continue;
    const std::string& program = c.command.argv.front();
    if (program.find('{') != std::string::npos) continue;  // {workdir}/run.sh: a placeholder's folder
    // A relative path starts from the working folder the probe enters.
    std::string resolved = program;
    if (program.find('/') != std::string::npos && program.front() != '/' && !c.command.workdir.empty())
      resolved = (fs::path(c.command.workdir) / program).string();
    if (find_program(resolved)) continue;
    if (program.find('/') == std::string::npos)
      throw UsageError(fmt::format("the command's program {} is not on this machine's PATH, so every launch on the "
                                   "host would fail: install it, give its full path, or leave host out of --envs",
                                   program));
    throw UsageError(fmt::format("the command's program {} is not an executable file here, so every launch on the "
                                 "host would fail: give the path of the program (a relative one starts from "
                                 "--workdir), or leave host out of --envs",
                                 program));
  }
}

Plan make_plan(const RunRequest& o, const PlanRequest& request) {
  Plan plan;
  plan.cases = expand_cases(request);
  if (o.kind == RunRequest::Kind::explain) {
    plan.environments = ablation_environments(o, plan);
  } else if (o.kind == RunRequest::Kind::calibrate) {
    plan.environments = parse_environment_list(o.baseline + "," + o.baseline);
    plan.calibration = true;
  } else if (o.environments.empty() && o.command) {
    // The runtimes found have no image of the command: the default would
    // measure the host alone and compare nothing.
    throw UsageError("a command runs in the environments you name, each with your image or root file system: give "
                     "--envs, e.g. --envs host,docker:image=IMAGE or --envs host,runc:rootfs=DIR (`dlcbench doctor` "
                     "lists the runtimes here)");
  } else
    plan.environments = o.environments.empty()
                            ? parse_environment_list(fmt::format("{}", fmt::join(default_environments(), ",")))
                            : o.environments;
  std::vector<std::string> env_names;
  for (auto& r : plan.environments) {
    if ((r.name == "docker" || r.name == "podman") && !o.image.empty() && !r.options.count("image"))
      r = with_container_option(r, "image", o.image);
    env_names.push_back(r.text);
  }
  plan.allow_mismatch = o.allow_mismatch;
  plan.hold_samples = o.hold_samples;
  plan.count_calls = std::any_of(plan.cases.begin(), plan.cases.end(), [](const CaseSpec& c) {
    return c.workload == kSyscallWorkload && c.variant == kSyscallTable;
  });
  set_repetition(o, plan);
  plan.seed = o.seed ? *o.seed : std::random_device{}();
  plan.data = o.data == kSyntheticData ? o.data : fs::absolute(data_location(o.data)).string();
  // A command gets a data folder only when one is named.
  const bool commands_only = only_commands(plan);
  if (commands_only && !o.data_given) plan.data = kSyntheticData;
  if (commands_only && plan.data != kSyntheticData && !fs::is_directory(plan.data))
    throw UsageError(fmt::format("--data {}: not a folder: give the folder the command reads (mounted read-only at "
                                 "--data-mount, {} by default)",
                                 o.data, o.data_mount));
  // A placeholder with nothing to stand for would become "" ("ls {data}"
  // listed the working folder).
  for (const auto& c : plan.cases) {
    if (!c.is_command()) continue;
    for (const auto& arg : c.command.argv) {
      if (arg.find("{data}") != std::string::npos && plan.data == kSyntheticData)
        throw UsageError(fmt::format("{{data}} in the command's argument '{}': give --data FOLDER, the folder it "
                                     "stands for (mounted read-only at --data-mount, {} by default)",
                                     arg, o.data_mount));
      if (arg.find("{workdir}") != std::string::npos && c.command.workdir.empty())
        throw UsageError(fmt::format("{{workdir}} in the command's argument '{}': give --workdir FOLDER, the folder "
                                     "it stands for (mounted read-write, the command's working folder)",
                                     arg));
    }
  }
  check_host_programs(plan);
  plan.case_timeout_seconds = o.case_timeout_seconds;
  plan.baseline = o.baseline;
  if (std::none_of(plan.environments.begin(), plan.environments.end(),
                   [&](const auto& e) { return e.text == plan.baseline; }))
    throw UsageError(fmt::format("--baseline {}: that environment is not among --envs ({})", plan.baseline,
                                 fmt::join(env_names, ",")));
  if (request.input == "disk" && plan.data == kSyntheticData)
    throw UsageError("--input disk reads batches from the data set's files; synthetic data has none: pass --data");
  return plan;
}

// Every environment of the plan checked as far as it can be before the run
// starts (Environment::check: the program, the engine, image=, rootfs=, a
// seccomp profile), so that a dry run passes only what the run would take.
// One the user named that cannot run is bad input, unless --keep-going;
// one found by discovery, or an explain variant, is left out with a note.
void check_environments(const RunRequest& o, const Plan& plan) {
  EnvironmentContext context{worker_program_beside(fs::read_symlink("/proc/self/exe")), "", false, false, {}};
  context.gpu = std::any_of(plan.cases.begin(), plan.cases.end(), [](const CaseSpec& c) { return c.device == "gpu"; });
  context.command_only = !plan.cases.empty() && only_commands(plan);
  context.probe_only = !plan.cases.empty() && only_in_probe(plan);
  for (const auto& request : plan.environments) {
    try {
      make_environment(request, context)->check();
    } catch (const EnvironmentUnavailable& e) {
      const bool named = request.text == plan.baseline || !o.environments.empty() ||
                         o.kind == RunRequest::Kind::calibrate || (o.explained && request.text == o.explained->text);
      if (named && !o.keep_going)
        throw UsageError(fmt::format("environment {} cannot run here: {}. Fix that, leave {} out{}, or give "
                                     "--keep-going to measure the others without it",
                                     request.text, e.what(), request.text,
                                     o.environments.empty() ? "" : " of --envs"));
      // The run's own preparation says it again, once, where it skips it.
      if (o.dry_run)
        std::cerr << fmt::format("note: environment {} cannot run here and will be skipped: {}\n", request.text,
                                 e.what());
    }
  }
}

}  // namespace

// Every case is a user's command (none of dlcbench's workloads); true for
// a plan without cases.
bool only_commands(const Plan& plan) {
  return std::all_of(plan.cases.begin(), plan.cases.end(), [](const CaseSpec& c) { return c.is_command(); });
}

bool only_in_probe(const Plan& plan) {
  return std::all_of(plan.cases.begin(), plan.cases.end(), [](const CaseSpec& c) { return c.runs_in_probe(); });
}

// Fails early, before anything is launched, if a data set is missing or bad.
void check_data(const Plan& plan) {
  std::set<std::string> checked;
  for (const auto& c : plan.cases) {
    const WorkloadInfo* workload = find_workload(c.workload);
    const bool loader = c.workload == kLoaderWorkload;
    if (!workload && !loader) continue;  // startup and the other micro-benchmarks: no data
    const DataNeed need = loader ? loader_data_need(c.variant) : workload->model.data_need();
    if (!checked.insert(need.dataset).second) continue;
    if (loader && plan.data == kSyntheticData)
      throw UsageError(fmt::format("{} reads the {} files in worker processes, as a DataLoader does; synthetic data "
                                   "has none: give --data, or fetch the set with `dlcbench data fetch {}`",
                                   c.id(), need.dataset, need.dataset));
    check_training_data(need, plan.data);
    if (plan.data == kSyntheticData) continue;
    // Files changed since `data fetch` checked them still load, and would be
    // measured and reported as the data set: say so before the run.
    const std::string changed = installed_files_changed(need.dataset, training_data_folder(need, plan.data));
    if (!changed.empty()) std::cerr << "warning: " << changed << "\n";
  }
}

PlannedRun plan_run(const RunRequest& request) {
  const PlanRequest cases = plan_request(request);
  PlannedRun planned{make_plan(request, cases), cases.threads};
  const Plan& plan = planned.plan;
  check_data(plan);
  check_blas(plan);
  warn_threads_beyond_cpus(plan, cases.threads);
  // A cluster run's nodes check their own machines.
  if (!request.on_slurm) check_environments(request, plan);
  return planned;
}

}  // namespace dlcbench
