// `dlcbench run`: plans the cases, runs them round by round in every
// environment, saves every sample as it arrives and prints the comparison.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "analysis/analysis.h"
#include "core/companion_programs.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cluster/allreduce_run.h"
#include "model/cluster_manifest.h"
#include "cluster/cluster_run.h"
#include "cluster/slurm.h"
#include "gpu/gpu_loader.h"
#include "core/blas_check.h"
#include "core/errors.h"
#include "core/live_runs.h"
#include "runtimes/leftovers.h"
#include "core/fingerprint.h"
#include "core/manifest.h"
#include "core/process.h"
#include "core/results_file.h"
#include "core/units.h"
#include "core/words.h"
#include "data/dataset.h"
#include "data/fetch.h"
#include "data/training_data.h"
#include "orchestrator/ablation.h"
#include "orchestrator/plan.h"
#include "orchestrator/preflight.h"
#include "orchestrator/resume.h"
#include "orchestrator/scheduler.h"
#include "report/console.h"
#include "model/container_options.h"
#include "workloads/micro/external_tools.h"
#include "workloads/micro/micro_workloads.h"
#include "workloads/command_metric.h"
#include "workloads/registry.h"

namespace fs = std::filesystem;

namespace dlcbench::cli {
namespace {

std::atomic<bool> g_interrupted{false};

void on_signal(int) { g_interrupted.store(true); }

// Ctrl-C, SIGTERM, a terminal that hangs up and an output pipe whose reader
// went away (`dlcbench run | head`, a `tee` killed by Ctrl-C) all stop the
// run the same way: the launch in progress is stopped, the manifest says
// "interrupted", and everything the run made is removed. SIGPIPE's default
// would kill dlcbench on the spot, leaving images, bundles and a manifest
// that still says "running". A handler, unlike SIG_IGN, is reset by exec, so
// the programs dlcbench starts keep the default.
void stop_on_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaction(sig, &sa, nullptr);
}

// On a terminal, one line rewritten in place; elsewhere nothing (the log
// lines, one per launch, are the record).
class ProgressLine {
 public:
  ProgressLine() : terminal_(isatty(STDERR_FILENO) == 1) {}
  void show(const Progress& p) {
    if (!terminal_) return;
    const std::string eta = p.eta_seconds < 0 ? "?" : fmt::format("{}m{:02}s", static_cast<long>(p.eta_seconds) / 60,
                                                                     static_cast<long>(p.eta_seconds) % 60);
    std::cerr << fmt::format("\r\x1b[K[{}/{}] round {}/{}  {}  in {}  ETA {}", p.done, p.total, p.round, p.rounds,
                             p.case_id, p.env, eta)
              << std::flush;
    shown_ = true;
  }
  void log(const std::string& line) {
    if (shown_) std::cerr << "\r\x1b[K";
    shown_ = false;
    std::cerr << line << "\n";
  }
  // Before anything else is written (the report, "interrupted"): the live
  // line must not run into it.
  void clear() {
    if (shown_) std::cerr << "\r\x1b[K" << std::flush;
    shown_ = false;
  }
  ~ProgressLine() { clear(); }

 private:
  bool terminal_;
  bool shown_ = false;
};

std::string now_iso() {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
}

// Time, then a random part: two runs started in the same second (with the
// same --seed, say) name their folders and containers apart.
std::string make_run_id() {
  return fmt::format("{:%Y%m%d-%H%M%S}-{:04x}", fmt::gmtime(std::time(nullptr)), std::random_device{}() & 0xffff);
}

// The results folder (--out) and the run's own folder in it, named by a new
// run id. An --out that cannot be made (a file in its path, a read-only file
// system) is bad input; the folders made before the failure are removed.
fs::path create_run_folder(const fs::path& out, std::string& run_id, const std::string& name = "") {
  std::error_code error;
  std::vector<fs::path> missing;  // innermost first
  for (fs::path p = fs::absolute(out, error); !error && !p.empty() && !fs::exists(fs::symlink_status(p, error));
       p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  std::vector<fs::path> made;
  auto refuse = [&](const fs::path& folder, const std::string& why) {
    for (auto it = made.rbegin(); it != made.rend(); ++it) fs::remove(*it, error);
    throw UsageError(fmt::format("--out {}: cannot create the folder {}: {}; give a folder you can write to",
                                 out.string(), folder.string(), why));
  };
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (!fs::create_directory(*it, error) && error) refuse(*it, error.message());
    made.push_back(*it);
  }
  if (!fs::is_directory(out, error)) refuse(out, "it exists and is not a folder");
  // Made here and only here: a folder that exists belongs to another run.
  if (!name.empty()) {
    const fs::path dir = out / name;
    if (fs::create_directory(dir, error)) return dir;
    refuse(dir, error ? error.message() : "it exists: another run's folder (give another --run-id, or --resume it)");
  }
  for (;;) {
    run_id = make_run_id();
    const fs::path dir = out / run_id;
    if (fs::create_directory(dir, error)) return dir;
    if (error) refuse(dir, error.message());
  }
}

// Every case is a user's command (none of dlcbench's workloads); true for
// a plan without cases.
bool only_commands(const Plan& plan) {
  return std::all_of(plan.cases.begin(), plan.cases.end(), [](const CaseSpec& c) { return c.is_command(); });
}

// --dry-run: what a run with these options would measure.
void print_plan(const Plan& plan) {
  std::cout << fmt::format(
      "{} x {} x {} = {}{}\n", counted(plan.cases.size(), "case", "cases"),
      counted(plan.environments.size(), "environment", "environments"),
      counted(static_cast<std::size_t>(plan.runs), "round", "rounds"),
      counted(plan.cases.size() * plan.environments.size() * static_cast<std::size_t>(plan.runs), "launch", "launches"),
      plan.max_runs > plan.runs ? fmt::format(" (up to {} rounds: {})", plan.max_runs,
                                              plan.precision > 0  ? fmt::format("--precision {:.1f}%", 100 * plan.precision)
                                              : plan.until_cv > 0 ? fmt::format("--until-cv {:.1f}%", 100 * plan.until_cv)
                                                                  : std::string("replacing disturbed runs"))
                                : "");
  std::cout << "cases:\n";
  for (const auto& c : plan.cases) {
    if (!c.is_command())
      std::cout << fmt::format("  {}  (warm-up {}, measured {}, threads {})\n", c.id(), c.warmup, c.iters, c.threads);
    else if (c.command.metric.source == MetricSpec::Source::wall_time)
      std::cout << fmt::format("  {}  (one figure a launch: its wall time)\n", c.id());
    else
      std::cout << fmt::format("  {}  (each launch: its first {} figure{} warm-up, every later one measured; a tool "
                               "that prints one figure a launch needs --warmup 0)\n",
                               c.id(), c.warmup, c.warmup == 1 ? "" : "s");
  }
  std::cout << "environments:\n";
  for (const auto& e : plan.environments) {
    std::string role = e.text == plan.baseline ? "  (baseline)" : "";
    if (plan.ablation && e.text == plan.ablation->of) role = "  (explained)";
    if (plan.ablation)
      for (const auto& v : plan.ablation->variants)
        if (v.label == e.text) role = fmt::format("  (diagnostic variant, {}: {})", ablation_feature_name(v.feature), v.change);
    std::cout << fmt::format("  {}{}\n", e.text, role);
  }
  if (plan.ablation && !plan.ablation->left_out.empty()) {
    std::cout << "features left out:\n";
    for (const auto& why : plan.ablation->left_out) std::cout << fmt::format("  {}\n", why);
  }
  const bool commands_only = only_commands(plan);
  std::cout << fmt::format("data: {}\nseed: {}\ncase timeout: {:g} s\n",
                           commands_only && plan.data == kSyntheticData ? "none (a command gets a data folder with --data)"
                                                                        : plan.data,
                           plan.seed, plan.case_timeout_seconds);
  std::cout << "dry run: nothing was launched or written\n";
}

struct RunOptions {
  std::string workloads;  // empty: the suite's
  std::string suite = "default";
  std::string paths = "rootfs";
  std::string backends;  // empty: torch, and cuda with --device gpu
  std::string device = "cpu";
  std::string envs;  // empty: host and every runtime found
  std::string batches;
  std::string input = "memory";
  int runs = 20;
  std::optional<int> warmup;  // unset: each workload's own
  std::optional<int> iters;
  std::optional<int> threads;  // unset: every CPU this process may use
  std::string data = default_data_root().string();
  std::string out = "results";
  std::string image;
  std::string baseline = "host";
  std::optional<std::uint64_t> seed;  // unset: random, recorded
  double case_timeout = 1800;
  int starts = 10;
  bool allow_mismatch = false;
  bool keep_images = false;
  bool keep_going = false;  // an environment named in --envs that cannot be prepared is skipped, not fatal
  std::string until_cv;   // "2%" or "0.02"; empty: off
  std::string precision;  // "2%": add rounds until every interval is within +-2%; empty: off
  std::string margin;     // of the equivalence verdict; empty: 2%
  std::string max_time;   // "45m": no added round ends after it; empty: no limit
  int max_runs = 0;       // 0: by the targets given (set_repetition)
  std::string resume;    // a run folder to continue; empty: a new run
  bool dry_run = false;  // check and print the plan, launch nothing
  // `dlcbench explain ENV`: the environment explained and the features to
  // change one at a time (empty: every one that applies).
  std::string explain;
  std::string features;
  // `dlcbench calibrate`: --baseline against a copy of itself.
  bool calibrate = false;
  // Both on by default: they change where and when things run, not what is
  // measured, and lowered the A/A noise floor of the 2-vCPU development
  // machine from +-10% to +-2-6% (bench/README.md, "Noise at the source").
  bool pin_threads = true;   // bind the worker's OpenMP threads one per CPU
  bool hold_samples = true;  // workers print their measured samples when the phase ends
  // `run [options] -- COMMAND ARGS...`: a user's command (core/command_spec.h).
  std::vector<std::string> command;
  std::string name;         // the case is cmd:<name>; default: the program's file name
  std::string metric;       // a regex with one group, or json:FIELD; empty: wall time per launch
  std::string metric_unit;  // default: s/iteration
  bool higher_is_better = false;
  std::string pass_env;     // variables passed to the command, comma-separated
  std::string workdir;      // HOST[:CONTAINER], mounted read-write, the command's working folder
  std::string data_mount = "/data";
  bool data_given = false;  // --data on the command line (a command gets no data folder otherwise)
  // `run --slurm`: the plan on every node of an allocation (cluster/cluster_run.h).
  SlurmRequest slurm;
  std::vector<std::string> node_cpu_quota;  // NODE=CPUS
  bool allreduce = false;                   // --allreduce (cluster/allreduce_run.h)
  std::string allreduce_sizes;
  int allreduce_iterations = ClusterAllreduce{}.iterations;
  std::string run_id;        // the run's folder name under --out and its containers' label; empty: made up
  bool take_turns = false;   // hold the machine's turn for each launch (core/machine_turn.h)
  // A node's part of a cluster run (set by `slurm-node`, not by users): its
  // exact folder, its cluster run and node, and the cgroup its containers go
  // under (a node under a CPU quota).
  std::string run_folder, cluster_run, cluster_node, cgroup_parent;
};

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

// Fails early, before anything is launched, if a data set is missing or bad.
void check_data(const Plan& plan) {
  std::set<std::string> checked;
  for (const auto& c : plan.cases) {
    const WorkloadInfo* workload = find_workload(c.workload);
    if (!workload) continue;  // startup: no data
    if (!checked.insert(workload->model.dataset).second) continue;
    check_training_data(workload->model, plan.data);
    if (plan.data == kSyntheticData) continue;
    // Files changed since `data fetch` checked them still load, and would be
    // measured and reported as the data set: say so before the run.
    const std::string changed =
        installed_files_changed(workload->model.dataset, training_data_folder(workload->model, plan.data));
    if (!changed.empty()) std::cerr << "warning: " << changed << "\n";
  }
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
  return envs;
}

// Environments prepared for the run; whatever happens, what they made for it
// (bundles, scratch folders) is removed at the end.
struct PreparedEnvironments {
  std::vector<ScheduledEnvironment> list;
  ~PreparedEnvironments() {
    for (auto& e : list) {
      try {
        // A container client stopped at a timeout or by Ctrl-C can die after
        // the engine created its container but before it started it; such a
        // container never exits, so --rm never removes it, and removing it by
        // name at the time can come before the engine knows the name. The
        // run's label finds it now.
        if (e.unavailable.empty()) e.environment->remove_leftovers();
      } catch (const std::exception& ex) {
        std::cerr << fmt::format("warning: removing the containers this run left in {} failed: {}\n", e.label,
                                 ex.what());
      }
      try {
        e.environment->finish();
      } catch (const std::exception& ex) {
        std::cerr << fmt::format("warning: cleaning up {} failed: {}\n", e.label, ex.what());
      }
    }
  }
};

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

// One session of a run: the first, or one started by --resume.
struct Session {
  Plan plan;       // as the manifest records it
  Plan scheduled;  // what the scheduler gets (resume: the recorded rounds, none added)
  fs::path dir;
  std::vector<std::pair<std::string, std::string>> worker_env;
  Manifest manifest;
  bool discovered = false;  // environments found on the machine, not named with --envs
  bool keep_images = false;
  std::set<LaunchKey> already_measured;  // resume: by earlier sessions
  std::set<std::string> adopt_images;    // resume: environments whose image a killed session imported
  bool resuming = false;
  bool take_turns = false;    // --take-turns
  bool keep_going = false;    // --keep-going
  int rounds_reached = 0;               // resume: by the earlier sessions
  std::vector<CellRuns> earlier_cells{};  // resume: what they measured, for the stopping rule
  std::string cgroup_parent{};  // containers' cgroup parent; empty: the runtime's default

  fs::path manifest_file() const { return dir / "manifest.json"; }
  void save() const { write_manifest(manifest_file(), manifest); }
  // A resumed session's own entry in the manifest.
  ResumedSession& this_resume() { return manifest.resumed.back(); }
};

// What every environment of the session needs to know to prepare itself:
// the image's extra files (external tools, the CUDA plugin's libraries).
EnvironmentContext environment_context(const Session& session) {
  const Plan& plan = session.plan;
  EnvironmentContext context{worker_program_beside(fs::read_symlink("/proc/self/exe")), session.manifest.run_id, false,
                             session.keep_images,
                             {}};
  std::vector<std::string> planned;
  for (const auto& c : plan.cases) planned.push_back(c.workload);
  context.image_extras = tool_image_files(planned);
  context.cgroup_parent = session.cgroup_parent;
  context.gpu = std::any_of(plan.cases.begin(), plan.cases.end(), [](const CaseSpec& c) { return c.device == "gpu"; });
  context.command_only = !plan.cases.empty() && only_commands(plan);
  if (!context.gpu) return context;
  // The run goes on: the GPU cases fail with the cause, the others are measured.
  if (const std::string why = gpu_unavailable_reason(); !why.empty())
    std::cerr << "warning: the GPU cases cannot run here and will be recorded as failed: " << why << "\n";
  if (gpu_plugin_built() && fs::exists(gpu_plugin_path())) {
    try {
      auto extras = gpu_image_extras();
      context.image_extras.insert(context.image_extras.end(), extras.begin(), extras.end());
    } catch (const std::exception& e) {
      // Images without the plugin: their GPU cases fail saying it is missing.
      std::cerr << "warning: the CUDA plugin's libraries cannot go into the container images, so the GPU cases "
                   "in containers will fail: "
                << e.what() << "\n";
    }
  }
  return context;
}

// What the killed session left running would compete with the new launches.
void remove_leftovers_of_earlier_session(Session& session, ScheduledEnvironment& s) {
  try {
    const auto removed = s.environment->remove_leftovers();
    if (removed.empty()) return;
    std::cerr << fmt::format("removed what the earlier session left in {}: {}\n", s.label, fmt::join(removed, ", "));
    session.this_resume().leftovers_removed[s.label] = removed;
  } catch (const std::exception& e) {
    std::cerr << fmt::format("warning: could not remove what the earlier session left in {}: {}\n", s.label,
                             e.what());
  }
}

// What preparing the environments found.
struct Preparation {
  bool any_unavailable = false;  // one the run cannot do without: the run exits 1
  std::string fatal;             // one named in --envs, without --keep-going: nothing is measured; why
};

// Prepares every environment of the plan into `prepared`, recording each in
// the manifest; stops at the first one the user named that cannot run,
// unless --keep-going.
Preparation prepare_environments(Session& session, PreparedEnvironments& prepared, ResultsWriter& results) {
  const EnvironmentContext context = environment_context(session);
  Preparation preparation;
  bool& any_unavailable = preparation.any_unavailable;
  for (const auto& request_env : session.plan.environments) {
    EnvironmentContext env_context = context;
    env_context.adopt_image = session.adopt_images.count(request_env.text) > 0;
    ScheduledEnvironment s{request_env.text, make_environment(request_env, env_context), ""};
    std::cerr << fmt::format("preparing {} ...\n", s.label);
    try {
      s.environment->prepare();
      session.manifest.environments[s.label] = s.environment->describe();
      // `dlcbench explain`: a variant is there to diagnose ENV, not as an
      // environment anyone deploys.
      if (session.plan.ablation)
        for (const auto& v : session.plan.ablation->variants)
          if (v.label == s.label)
            session.manifest.environments[s.label]["diagnostic"] = {
                {"variant_of", session.plan.ablation->of},
                {"feature", ablation_feature_name(v.feature)},
                {"change", v.change}};
      if (session.resuming) remove_leftovers_of_earlier_session(session, s);
    } catch (const EnvironmentUnavailable& e) {
      s.unavailable = e.what();
      // Asked for by name, its absence fails the run; found on the machine
      // but unusable, it is only noted.
      const bool needed = !session.discovered || s.label == session.plan.baseline;
      any_unavailable = any_unavailable || needed;
      session.manifest.environments[s.label] = {{"unavailable", s.unavailable}};
      results.append({{"type", "environment_unavailable"}, {"env", s.label}, {"reason", s.unavailable}});
      const AblationVariant* variant = nullptr;
      if (session.plan.ablation)
        for (const auto& v : session.plan.ablation->variants)
          if (v.label == s.label) variant = &v;
      if (needed && !variant && !session.keep_going) {
        preparation.fatal = fmt::format("environment {} could not be prepared: {}", s.label, s.unavailable);
        prepared.list.push_back(std::move(s));
        break;
      }
      if (variant)
        std::cerr << fmt::format("error: dlcbench explain: the variant {} ({}: {}) cannot run here, and the other "
                                 "environments are measured without it: {}\n",
                                 s.label, ablation_feature_name(variant->feature), variant->change, s.unavailable);
      else
        std::cerr << fmt::format("warning: environment {} is unavailable and will be skipped: {}\n", s.label,
                                 s.unavailable);
    }
    prepared.list.push_back(std::move(s));
  }
  session.save();
  return preparation;
}

// The fingerprints of every environment before anything is measured (again
// on resume: the machine may have changed since the first session). Returns
// an exit code when the run must stop there.
std::optional<int> check_like_for_like(Session& session, std::vector<ScheduledEnvironment>& environments,
                                       ResultsWriter& results, const ScheduleOptions& options) {
  const Plan& plan = session.plan;
  const PreflightResult preflight = run_preflight(plan, environments, results, options);
  PreflightFindings findings;
  for (const auto& [env, mismatches] : preflight.mismatches)
    if (!mismatches.empty()) findings[env] = mismatches;
  (session.resuming ? session.this_resume().preflight : session.manifest.preflight) = findings;
  for (const auto& [env, cause] : preflight.failures)
    std::cerr << fmt::format("warning: could not take the fingerprint of {} before the run: {}\n", env, cause);
  if (preflight.stops && !plan.allow_mismatch) {
    if (session.resuming) {
      session.this_resume().outcome = RunStatus::not_comparable;  // the earlier sessions' status stands
    } else {
      session.manifest.ended_at = now_iso();
      session.manifest.status = RunStatus::not_comparable;
    }
    session.save();
    std::cerr << "error: the environments would not run like for like, so nothing was measured.\n"
              << preflight.message
              << "Fix the differences above, or pass --allow-mismatch to measure anyway (the report then "
                 "marks every such comparison).\n";
    return kExitNotComparable;
  }
  if (preflight.stops)
    std::cerr << "warning: measuring despite differences nobody asked for (--allow-mismatch):\n" << preflight.message;
  session.save();
  return std::nullopt;
}

// Why the rounds stopped where they did, over every session so far.
void record_added_rounds(Manifest& m, const Plan& plan, const ScheduleResult& outcome, int rounds) {
  if (!outcome.decision) return;
  const RoundDecision& d = *outcome.decision;
  AddedRounds added;
  added.added = std::max(0, rounds - plan.runs);
  // A resumed session adds its own to the earlier sessions'.
  added.disturbed_launches = outcome.disturbed_launches + (m.added_rounds ? m.added_rounds->disturbed_launches : 0);
  added.stopped = stop_reason_text(d.stop);
  added.precision = plan.precision;
  if (plan.precision > 0 && !std::isnan(d.widest_half_width)) added.widest_half_width = d.widest_half_width;
  added.widest = d.widest;
  added.elapsed_seconds = outcome.elapsed_seconds + (m.added_rounds ? m.added_rounds->elapsed_seconds : 0);
  m.added_rounds = added;
}

// How the first session went.
void record_first_session(Session& session, const ScheduleResult& outcome) {
  const Plan& plan = session.plan;
  Manifest& m = session.manifest;
  m.status = outcome.interrupted         ? RunStatus::interrupted
             : outcome.failed_launches ? RunStatus::completed_with_failures
                                       : RunStatus::completed;
  m.rounds = outcome.rounds;
  m.round_orders = round_orders(plan.environments.size(), std::max(outcome.rounds, plan.runs), plan.seed);
  record_added_rounds(m, plan, outcome, outcome.rounds);
  if (outcome.decision) {
    const RoundDecision& d = *outcome.decision;
    if (plan.precision > 0 && d.above_precision)
      std::cerr << fmt::format("warning: {} after {} rounds: {} of the comparisons' intervals are still wider than "
                               "--precision {:.1f}% (the widest: {}, {}); allow more rounds or time, or quiet the "
                               "machine (`dlcbench calibrate` says how many runs it needs)\n",
                               stop_reason_text(d.stop), outcome.rounds, d.above_precision, 100 * plan.precision,
                               d.widest, std::isnan(d.widest_half_width) ? std::string("no interval")
                                                                         : fmt::format("+-{:.1f}%", 100 * d.widest_half_width));
  }
  if (plan.until_cv > 0) {
    m.until_cv = UntilCvOutcome{plan.until_cv, outcome.final_cv, !outcome.cv_target_missed};
    if (outcome.cv_target_missed)
      std::cerr << fmt::format("warning: after {} rounds (--max-runs) the highest CV over runs is still {:.1f}%, "
                               "above --until-cv {:.1f}%: the machine is noisier than the target; quiet it (stop "
                               "other load, pin CPUs) or accept a wider interval\n",
                               outcome.rounds, 100 * outcome.final_cv, 100 * plan.until_cv);
  }
  m.launches = static_cast<std::size_t>(outcome.launches);
  m.failed_launches = static_cast<std::size_t>(outcome.failed_launches);
}

// How a resumed session went, and the run over every session: launches
// recorded, and failures no later launch made good.
void record_resumed_session(Session& session, const ScheduleResult& outcome, const fs::path& results_file) {
  const Plan& plan = session.plan;
  Manifest& m = session.manifest;
  const auto content = read_results(results_file);
  const int rounds = std::max(session.rounds_reached, outcome.rounds);
  const ResumeState after =
      find_missing_launches(plan, round_orders(plan.environments.size(), rounds, plan.seed), content.records);
  m.launches = static_cast<std::size_t>(std::count_if(content.records.begin(), content.records.end(),
                                                      [](const nlohmann::json& r) {
                                                        return r.value("type", "") == "launch";
                                                      }));
  m.failed_launches = after.failed.size();
  m.rounds = rounds;
  record_added_rounds(m, plan, outcome, rounds);
  m.round_orders = round_orders(plan.environments.size(), std::max(rounds, plan.runs), plan.seed);
  m.status = outcome.interrupted   ? RunStatus::interrupted
             : after.failed.empty() ? RunStatus::completed
                                    : RunStatus::completed_with_failures;
  ResumedSession& entry = session.this_resume();
  entry.launches = static_cast<std::size_t>(outcome.launches);
  entry.failed_launches = static_cast<std::size_t>(outcome.failed_launches);
  entry.ended_at = m.ended_at;
}

// The report, computed from the files exactly as `dlcbench report` does,
// and the run's exit code.
int report_run(const Session& session, const ScheduleResult& outcome, bool any_unavailable) {
  const fs::path& dir = session.dir;
  const auto content = read_results(dir / "results.jsonl");
  const Analysis analysis = analyze(read_plan_of_run(read_manifest(session.manifest_file())), content.records);
  std::cout << render_console(analysis);
  std::cout << fmt::format("\nresults: {}\n", dir.string());
  if (outcome.interrupted) {
    std::cerr << "interrupted: the samples measured so far are in " << (dir / "results.jsonl").string()
              << "; the manifest records the run as interrupted; `dlcbench run --resume " << dir.string()
              << "` measures the rest\n";
    return kExitInterrupted;
  }
  if (!analysis.comparable) {
    std::cerr << "error: some environments did not run like for like (see NOT COMPARED above); fix the "
                 "settings that differ, then run again\n";
    return kExitNotComparable;
  }
  return (any_unavailable || outcome.failed_launches) ? kExitFailure : kExitOk;
}

// An environment the user named could not be prepared: the run ends with
// nothing (more) measured, its manifest saying why, and can be resumed once
// the cause is fixed.
int end_unprepared(Session& session, const std::string& why) {
  if (session.resuming) {
    session.this_resume().outcome = RunStatus::not_started;  // the earlier sessions' status stands
  } else {
    session.manifest.status = RunStatus::not_started;
    session.manifest.ended_at = now_iso();
  }
  session.save();
  std::cerr << fmt::format("error: {}. Nothing was measured. Fix that and `dlcbench run --resume {}`, leave it out "
                           "of --envs, or give --keep-going to measure the others without it\n",
                           why, session.dir.string());
  return kExitFailure;
}

// Prepares the environments, checks like for like, measures and reports:
// what every session of a run does once its manifest and results file exist.
int measure(Session& session, ResultsWriter& results) {
  PreparedEnvironments prepared;
  const Preparation preparation = prepare_environments(session, prepared, results);
  const bool any_unavailable = preparation.any_unavailable;
  if (!preparation.fatal.empty()) return end_unprepared(session, preparation.fatal);

  ScheduleOptions options;
  options.run_id = session.manifest.run_id;
  options.worker_env = session.worker_env;
  options.cancel = &g_interrupted;
  options.already_measured = session.already_measured;
  options.rounds_reached = session.rounds_reached;
  options.earlier_cells = session.earlier_cells;
  options.take_turns = session.take_turns;
  ProgressLine progress;
  options.log = [&](const std::string& line) { progress.log(line); };
  options.progress = [&](const Progress& p) { progress.show(p); };
  if (!g_interrupted)
    if (const auto stopped = check_like_for_like(session, prepared.list, results, options)) return *stopped;

  ScheduleResult outcome;
  if (!g_interrupted) outcome = run_schedule(session.scheduled, prepared.list, results, options);
  progress.clear();
  outcome.interrupted = outcome.interrupted || g_interrupted;
  results.sync();

  session.manifest.ended_at = now_iso();
  if (session.resuming) record_resumed_session(session, outcome, results.path());
  else record_first_session(session, outcome);
  session.save();
  return report_run(session, outcome, any_unavailable);
}

// The workload items of --workloads, or of --suite: a suite runs the
// external tools that are installed and says which are not.
std::vector<std::string> workload_items(const RunOptions& o) {
  auto suite = suites().find(o.suite);
  if (suite == suites().end()) {
    std::vector<std::string> names;
    for (const auto& [name, list] : suites()) names.push_back(fmt::format("{} ({})", name, list));
    throw UsageError(fmt::format("--suite {}: valid suites are {}", o.suite, fmt::join(names, "; ")));
  }
  if (!o.workloads.empty() && o.suite != "default")
    throw UsageError("--suite and --workloads both name workloads: give one of them");
  if (!o.workloads.empty()) return split_workload_list(o.workloads);
  // A command alone, unless workloads are named too.
  if (!o.command.empty() && o.suite == "default") return {};
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
std::vector<std::string> usable_backends(const RunOptions& o, const std::vector<std::string>& devices) {
  const bool gpu_asked = std::find(devices.begin(), devices.end(), "gpu") != devices.end();
  const bool cpu_asked = std::find(devices.begin(), devices.end(), "cpu") != devices.end();
  const std::string backends =
      !o.backends.empty() ? o.backends : gpu_asked ? (cpu_asked ? "torch,cuda" : "cuda") : "torch";
  std::vector<std::string> usable;
  for (const auto& backend : split_list(backends)) {
    std::string why = backend_unavailable(backend);
    const BackendInfo* info = find_backend(backend);
    if (why.empty() && info && std::none_of(devices.begin(), devices.end(), [&](const std::string& d) {
          return std::find(info->devices.begin(), info->devices.end(), d) != info->devices.end();
        }))
      why = fmt::format("it does not run on --device {} (devices: {})", o.device, fmt::join(info->devices, ", "));
    if (!why.empty()) {
      std::cerr << "warning: leaving out --backends " << backend << ": " << why << "\n";
      continue;
    }
    usable.push_back(backend);
  }
  if (usable.empty() && !split_list(backends).empty())
    throw UsageError(fmt::format("none of --backends {} can run here on --device {}: see the warnings above",
                                 backends, o.device));
  return usable;
}

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

PlanRequest plan_request(const RunOptions& o) {
  PlanRequest request;
  request.workloads = workload_items(o);
  request.io_targets = split_list(o.paths);
  request.devices = split_list(o.device);
  for (const auto& device : request.devices)
    if (device != "cpu" && device != "gpu")
      throw UsageError(fmt::format("--device {}: valid devices are cpu and gpu (or both: cpu,gpu)", device));
  request.backends = usable_backends(o, request.devices);
  for (const auto& b : split_list(o.batches)) {
    try {
      request.batches.push_back(std::stoi(b));
    } catch (const std::exception&) {
      throw UsageError(fmt::format("--batch: '{}' is not a number", b));
    }
  }
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
  if (!o.command.empty()) request.command = command_spec(o);
  return request;
}

// --runs, and the rounds that may be added after them: replacements for
// disturbed runs, --precision, --until-cv, within --max-runs and --max-time.
void set_repetition(const RunOptions& o, Plan& plan) {
  plan.runs = o.runs;
  if (!o.until_cv.empty()) plan.until_cv = parse_share("--until-cv", o.until_cv, "a coefficient of variation");
  if (!o.precision.empty()) plan.precision = parse_share("--precision", o.precision, "an interval half-width");
  if (!o.margin.empty()) plan.margin = parse_share("--margin", o.margin, "an equivalence margin");
  if (!o.max_time.empty()) plan.max_time_seconds = parse_duration("--max-time", o.max_time);
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
std::vector<EnvironmentRequest> ablation_environments(const RunOptions& o, Plan& plan) {
  if (!o.envs.empty())
    throw UsageError("dlcbench explain runs the baseline, the environment it explains and that environment's "
                     "variants: leave --envs out (give --baseline for another baseline)");
  EnvironmentRequest explained = parse_environment_request(o.explain);
  if (!find_program(runtime_program(explained.name)) && explained.name != "host")
    throw UsageError(fmt::format("dlcbench explain {}: {} is not installed: run `apt-get install {}` (or "
                                 "scripts/install-deps.sh)",
                                 o.explain, explained.name, explained.name == "runsc" ? "runsc" : explained.name));
  AblationContext context;
  context.kvm_usable = kvm_platform_usable();
  for (const auto& c : plan.cases)
    if (c.io_target == "rootfs") context.writes_rootfs = true;
  plan.ablation = plan_ablation(explained, split_list(o.features), context);
  std::vector<std::string> labels = {o.baseline, o.explain};
  for (const auto& v : plan.ablation->variants) labels.push_back(v.label);
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

Plan make_plan(const RunOptions& o, const PlanRequest& request) {
  Plan plan;
  plan.cases = expand_cases(request);
  if (!o.explain.empty()) {
    plan.environments = ablation_environments(o, plan);
  } else if (o.calibrate) {
    if (!o.envs.empty())
      throw UsageError("dlcbench calibrate measures --baseline against a copy of itself: leave --envs out (give "
                       "--baseline docker to calibrate inside Docker)");
    plan.environments = parse_environment_list(o.baseline + "," + o.baseline);
    plan.calibration = true;
  } else if (o.envs.empty() && !o.command.empty()) {
    // The runtimes found have no image of the command: the default would
    // measure the host alone and compare nothing.
    throw UsageError("a command runs in the environments you name, each with your image or root file system: give "
                     "--envs, e.g. --envs host,docker:image=IMAGE or --envs host,runc:rootfs=DIR (`dlcbench doctor` "
                     "lists the runtimes here)");
  } else
    plan.environments = parse_environment_list(
        o.envs.empty() ? fmt::format("{}", fmt::join(default_environments(), ",")) : o.envs);
  std::vector<std::string> env_names;
  for (auto& r : plan.environments) {
    if ((r.name == "docker" || r.name == "podman") && !o.image.empty() && !r.options.count("image"))
      r = with_container_option(r, "image", o.image);
    env_names.push_back(r.text);
  }
  plan.allow_mismatch = o.allow_mismatch;
  plan.hold_samples = o.hold_samples;
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
  plan.case_timeout_seconds = o.case_timeout;
  plan.baseline = o.baseline;
  if (std::none_of(plan.environments.begin(), plan.environments.end(),
                   [&](const auto& e) { return e.text == plan.baseline; }))
    throw UsageError(fmt::format("--baseline {}: that environment is not among --envs ({})", plan.baseline,
                                 fmt::join(env_names, ",")));
  if (request.input == "disk" && plan.data == kSyntheticData)
    throw UsageError("--input disk reads batches from the data set's files; synthetic data has none: pass --data");
  return plan;
}

// Identical settings for every worker, wherever it runs.
std::vector<std::pair<std::string, std::string>> worker_environment(int threads, bool pin_threads) {
  std::vector<std::pair<std::string, std::string>> env;
  for (const char* v : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"})
    env.emplace_back(v, std::to_string(threads));
  // --pin-threads: the OpenMP threads one per CPU the worker may use, in
  // order; it changes where threads run, not how many or what they compute.
  if (pin_threads) {
    env.emplace_back("OMP_PROC_BIND", "close");
    env.emplace_back("OMP_PLACES", "threads");
  }
  if (const char* core = std::getenv("OPENBLAS_CORETYPE"); core && *core) env.emplace_back("OPENBLAS_CORETYPE", core);
  // The host worker inherits them; a container only sees what it is given.
  for (const char* v : kCudaVariables)
    if (const char* value = std::getenv(v); value && *value) env.emplace_back(v, value);
  return env;
}

// The manifest of a new run, as it stands before anything is prepared.
Manifest new_manifest(const Session& session, const std::string& run_id, const std::vector<std::string>& command_line) {
  const Plan& plan = session.plan;
  Manifest m;
  m.run_id = run_id;
  m.command_line = command_line;
  m.dlcbench_version = DLCBENCH_VERSION;
  m.plan = plan;
  m.round_orders = round_orders(plan.environments.size(), plan.runs, plan.seed);  // more if added
  for (const auto& [k, v] : session.worker_env) m.worker_env[k] = v;
  m.orchestrator = environment_fingerprint();
  m.started_at = now_iso();
  m.status = RunStatus::running;
  return m;
}

// The Slurm job and step this process runs in, if any.
ClusterMembership cluster_membership(const std::string& run, const std::string& node) {
  const char* job = std::getenv("SLURM_JOB_ID");
  const char* step = std::getenv("SLURM_STEP_ID");
  return {run, node, job ? job : "", step ? step : ""};
}

// `run --slurm`: the plan checked here, measured by every node's own run.
int run_on_slurm(const RunOptions& o, const Plan& plan, const std::vector<std::string>& command_line) {
  ClusterRunStart start;
  start.request = o.slurm;
  // Checked when parsed (add_cluster_options).
  for (const auto& entry : o.node_cpu_quota) start.request.cpu_quota.insert(parse_node_cpu_quota(entry));
  start.check = check_cluster_request(start.request, o.out);
  if (start.request.nodelist.empty()) start.request.nodes = start.check.nodes;  // every node found, when none given
  // Past "run": the user's options as typed, less the cluster's own.
  std::vector<std::string> typed(command_line.begin() + std::min<std::ptrdiff_t>(2, static_cast<std::ptrdiff_t>(command_line.size())),
                                 command_line.end());
  start.node_arguments = node_run_arguments(typed);
  start.seed = plan.seed;
  start.command_line = command_line;
  start.self_exe = fs::read_symlink("/proc/self/exe");
  start.cancel = &g_interrupted;
  if (o.allreduce) {
    ClusterAllreduce a;
    a.environments = allreduce_environments(plan.environments, a.left_out);
    if (!o.allreduce_sizes.empty()) a.sizes_bytes = parse_allreduce_sizes(o.allreduce_sizes);
    a.iterations = o.allreduce_iterations;
    a.rounds = plan.runs;
    for (const auto& why : a.left_out) std::cerr << "warning: --allreduce: left out " << why << "\n";
    start.allreduce = a;
  }
  std::string run_id = o.run_id;
  const fs::path dir = create_run_folder(o.out, run_id, o.run_id);
  return run_cluster(start, dir, run_id);
}

// What runs killed with SIGKILL left in $TMPDIR (their folders hold root
// file systems, so they add up), said at the start of the next run; the
// containers and image tags they may have left are doctor --clean's to find.
void note_killed_runs_leftovers() {
  std::map<std::string, std::size_t> left;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(fs::temp_directory_path(), error)) {
    const std::string id = run_id_of_scratch_folder(entry.path().filename().string());
    if (!id.empty() && run_liveness(id) == RunLiveness::ended) ++left[id];
  }
  if (left.empty()) return;
  std::vector<std::string> runs;
  for (const auto& [id, folders] : left) runs.push_back(fmt::format("{} ({})", id, counted(folders, "folder", "folders")));
  std::cerr << fmt::format("note: runs killed before they could clean up left scratch folders in {}: {}; "
                           "`dlcbench doctor --clean` removes them and whatever else they left\n",
                           fs::temp_directory_path().string(), fmt::join(runs, ", "));
}

// Every environment of the plan checked as far as it can be before the run
// starts (Environment::check: the program, the engine, image=, rootfs=, a
// seccomp profile), so that a dry run passes only what the run would take.
// One the user named that cannot run is bad input, unless --keep-going;
// one found by discovery, or an explain variant, is left out with a note.
void check_environments(const RunOptions& o, const Plan& plan) {
  EnvironmentContext context{worker_program_beside(fs::read_symlink("/proc/self/exe")), "", false, false, {}};
  context.gpu = std::any_of(plan.cases.begin(), plan.cases.end(), [](const CaseSpec& c) { return c.device == "gpu"; });
  context.command_only = !plan.cases.empty() && only_commands(plan);
  for (const auto& request : plan.environments) {
    try {
      make_environment(request, context)->check();
    } catch (const EnvironmentUnavailable& e) {
      const bool named = request.text == plan.baseline || !o.envs.empty() || o.calibrate || request.text == o.explain;
      if (named && !o.keep_going)
        throw UsageError(fmt::format("environment {} cannot run here: {}. Fix that, leave {} out{}, or give "
                                     "--keep-going to measure the others without it",
                                     request.text, e.what(), request.text,
                                     o.envs.empty() ? "" : " of --envs"));
      // The run's own preparation says it again, once, where it skips it.
      if (o.dry_run)
        std::cerr << fmt::format("note: environment {} cannot run here and will be skipped: {}\n", request.text,
                                 e.what());
    }
  }
}

int run(const RunOptions& o, const std::vector<std::string>& command_line) {
  const PlanRequest request = plan_request(o);
  const Plan plan = make_plan(o, request);
  check_data(plan);
  check_blas(plan);
  warn_threads_beyond_cpus(plan, request.threads);
  // A cluster run's nodes check their own machines.
  if (!o.slurm.enabled) check_environments(o, plan);
  if (o.dry_run) {
    print_plan(plan);
    return kExitOk;
  }

  if (o.slurm.enabled) return run_on_slurm(o, plan, command_line);
  note_killed_runs_leftovers();

  std::string run_id = o.run_id;
  const fs::path dir = o.run_folder.empty() ? create_run_folder(o.out, run_id, o.run_id)
                                            : create_run_folder(fs::path(o.run_folder).parent_path(), run_id,
                                                                fs::path(o.run_folder).filename().string());
  if (run_id.empty()) run_id = dir.filename().string();
  Session session{plan, plan, dir, worker_environment(request.threads, o.pin_threads), {}, o.envs.empty(), o.keep_images, {}, {},
                  false};
  session.take_turns = o.take_turns;
  session.keep_going = o.keep_going;
  session.cgroup_parent = o.cgroup_parent;
  const RunFolderLock lock(dir);  // a `--resume` of this folder waits for the run to end
  const LiveRun live(run_id);     // what it makes is a live run's, never cleaned away (doctor --clean)
  session.manifest = new_manifest(session, run_id, command_line);
  if (!o.cluster_run.empty()) session.manifest.cluster = cluster_membership(o.cluster_run, o.cluster_node);
  session.save();

  ResultsWriter results(dir / "results.jsonl");
  std::cerr << fmt::format("dlcbench run {}: {} x {} x {}, {}; writing {}\n", run_id,
                           counted(plan.cases.size(), "case", "cases"),
                           counted(plan.environments.size(), "environment", "environments"),
                           counted(static_cast<std::size_t>(plan.runs), "run", "runs"),
                           counted(static_cast<std::size_t>(request.threads), "thread", "threads"), dir.string());
  if (plan.ablation)
    for (const auto& why : plan.ablation->left_out) std::cerr << "note: explain: left out " << why << "\n";
  return measure(session, results);
}

// Flags that define the plan cannot be given with --resume: the plan is the
// one the manifest recorded, so the resumed launches measure what the
// earlier ones did. Only these may be given with it.
bool allowed_with_resume(const std::string& flag) {
  return flag == "--resume" || flag == "--keep-images" || flag == "--keep-going" || flag == "--help" ||
         flag == "--take-turns" ||
         flag == "--cgroup-parent";
}

// The manifest of the run in `dir`, if this binary may continue it.
Manifest manifest_to_resume(const fs::path& dir) {
  Manifest manifest;
  try {
    manifest = read_manifest(dir / "manifest.json");
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("--resume {}: {}", dir.string(), e.what()));
  }
  if (manifest.run_id.empty() || manifest.plan.empty())
    throw UsageError(fmt::format("--resume {}: manifest.json is not a dlcbench run's manifest (no run id or plan)",
                                 dir.string()));
  if (const std::string why = binary_difference(manifest, self_executable_sha256()); !why.empty())
    throw UsageError(fmt::format("cannot resume {}: {}", dir.string(), why));
  return manifest;
}

// The orders are derived from the seed; recorded ones that differ would
// mean a dlcbench that shuffles differently wrote this run.
void check_round_orders(const fs::path& dir, const Manifest& manifest,
                        const std::vector<std::vector<std::size_t>>& orders) {
  const auto& recorded = manifest.round_orders;
  for (std::size_t r = 0; r < std::min(recorded.size(), orders.size()); ++r)
    if (recorded[r] != orders[r])
      throw UsageError(fmt::format("cannot resume {}: the environment order recorded for round {} differs from the "
                                   "one this dlcbench derives from the seed; start a new run",
                                   dir.string(), r + 1));
}

// The session that measures what `state` found missing, as the earlier
// sessions did: their worker settings, discovery and images.
Session resume_session(const RunOptions& o, const Plan& plan, Manifest manifest, const ResumeState& state,
                       const std::vector<nlohmann::json>& records, std::vector<CellRuns> earlier_cells) {
  Session session{plan, plan, o.resume, {}, std::move(manifest), true, o.keep_images, state.measured, {}, true};
  const Manifest& m = session.manifest;
  // At least the rounds the earlier sessions reached; the stopping rule adds
  // more as it would have in one session, from everything they measured,
  // within what --max-time has left.
  session.rounds_reached = state.rounds;
  session.earlier_cells = earlier_cells;
  if (plan.max_time_seconds > 0)
    session.scheduled.max_time_seconds = std::max(1e-3, plan.max_time_seconds - earlier_measuring_seconds(records));
  // The settings every worker got in the earlier sessions, whatever this shell has now.
  for (const auto& [k, v] : m.worker_env) session.worker_env.emplace_back(k, v);
  // Environments found by discovery (no --envs) that cannot run are only noted.
  session.discovered = std::none_of(m.command_line.begin(), m.command_line.end(),
                                    [](const std::string& arg) { return arg.rfind("--envs", 0) == 0; });
  for (auto& env : session.plan.environments) {
    const auto found = m.environments.find(env.text);
    const nlohmann::json described =
        found != m.environments.end() && found->second.is_object() ? found->second : nlohmann::json::object();
    // --image reached the engines as an option the label does not show.
    if (described.contains("image") && !described.value("image_built_by_dlcbench", true) && !env.options.count("image"))
      env = with_container_option(env, "image", described["image"].get<std::string>());
    if (described.value("image_built_by_dlcbench", false) && !described.value("image_kept_after_run", true))
      session.adopt_images.insert(env.text);
  }
  session.scheduled.environments = session.plan.environments;
  return session;
}

// The manifest keeps the names of --pass-env's variables, never their
// values: a resumed run reads them from its own environment again.
void read_passed_variables(Plan& plan, const fs::path& dir) {
  for (auto& c : plan.cases)
    for (auto& [name, value] : c.command.env) {
      if (const char* now = std::getenv(name.c_str())) value = now;
      else if (value.empty())  // an older manifest held the value
        throw UsageError(fmt::format("--resume {}: the run passes {} to its command (--pass-env), and {} is not set "
                                     "here: set it as it was for the run",
                                     dir.string(), name, name));
    }
}

// `dlcbench run --resume DIR`: measures the launches of DIR's run that have
// no successful launch record, with the recorded plan, into the same files.
int resume_run(const RunOptions& o) {
  const fs::path dir = o.resume;
  if (is_cluster_run(dir)) return resume_cluster(dir, fs::read_symlink("/proc/self/exe"), &g_interrupted);
  for (const auto& file : {dir / "manifest.json", dir / "results.jsonl"})
    if (!fs::is_regular_file(file))
      throw UsageError(fmt::format("--resume {}: there is no {} there; give the folder of a run, "
                                   "results/<run-id>, as `dlcbench run` printed it",
                                   dir.string(), file.filename().string()));
  const RunFolderLock lock(dir);
  Manifest manifest = manifest_to_resume(dir);
  const LiveRun live(manifest.run_id);
  Plan plan;
  try {
    plan = plan_from_json(manifest.plan);
  } catch (const std::runtime_error& e) {
    throw UsageError(fmt::format("cannot resume {}: {}; start a new run", dir.string(), e.what()));
  }
  read_passed_variables(plan, dir);
  const auto records = read_results(dir / "results.jsonl").records;
  const int rounds = recorded_rounds(plan, records);
  const auto orders = round_orders(plan.environments.size(), rounds, plan.seed);
  check_round_orders(dir, manifest, orders);
  ResumeState state = find_missing_launches(plan, orders, records);
  state.rounds = rounds;
  ScheduleOptions earlier;
  earlier.rounds_reached = rounds;
  earlier.earlier_cells = earlier_cell_runs(manifest, records);
  if (state.missing.empty() && !resume_adds_round(plan, earlier, earlier_measuring_seconds(records))) {
    std::cerr << fmt::format("run {}: every launch of its {} was measured; nothing to resume\n", manifest.run_id,
                             counted(static_cast<std::size_t>(rounds), "round", "rounds"));
    if (manifest.status != RunStatus::completed) {
      // Killed after its last launch: only the manifest did not say so.
      manifest.status = RunStatus::completed;
      if (manifest.ended_at.empty()) manifest.ended_at = now_iso();
      write_manifest(dir / "manifest.json", manifest);
    }
    return kExitOk;
  }
  check_data(plan);

  if (manifest.status == RunStatus::running) manifest.status = RunStatus::interrupted;  // killed: nothing runs it now
  ResumedSession entry;
  entry.at = now_iso();
  entry.command_line = invocation();
  entry.missing_launches = state.missing.size();
  entry.cut_off_launches = state.cut_off.size();
  entry.failed_launches = state.failed.size();
  entry.rounds = rounds;
  manifest.resumed.push_back(entry);
  Session session = resume_session(o, plan, std::move(manifest), state, records, std::move(earlier.earlier_cells));
  session.take_turns = o.take_turns;
  session.keep_going = o.keep_going;
  session.cgroup_parent = o.cgroup_parent;
  session.save();

  ResultsWriter results(dir / "results.jsonl");
  // Before any line of this session: ends every launch the earlier one left unfinished (see analysis.cpp).
  results.append({{"type", "resume"},
                  {"at", entry.at},
                  {"missing_launches", state.missing.size()},
                  {"cut_off_launches", state.cut_off.size()}});
  results.sync();
  std::cerr << fmt::format("dlcbench run --resume {}: {} of {} left to measure ({} cut off, {} failed before) in "
                           "{}; appending to {}\n",
                           session.manifest.run_id, state.missing.size(),
                           counted(state.missing.size() + state.measured.size(), "launch", "launches"),
                           state.cut_off.size(), state.failed.size(),
                           counted(static_cast<std::size_t>(rounds), "round", "rounds"), dir.string());
  if (plan.max_runs > plan.runs)
    std::cerr << fmt::format("  then rounds are added, up to --max-runs {}, as the first session would have: a "
                             "replacement for each disturbed run{}\n",
                             plan.max_runs,
                             plan.precision > 0 || plan.until_cv > 0 ? ", and until the targets are met" : "");
  return measure(session, results);
}

}  // namespace

namespace {

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
  cmd->add_option("--resume", o.resume,
                  "Continue the run in this folder (results/<run-id>): measure only the launches it lacks, with its "
                  "recorded plan, and append to its files; give no other option but --keep-images")
      ->check(not_empty("a run folder, results/<run-id>"));
}

// A user's command: `dlcbench run [options] -- COMMAND ARGS...`.
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

// The run and resume paths of both commands, with their errors as exit codes.
void run_or_resume(const RunOptions& o, const CLI::App* cmd, int& exit_code) {
  stop_on_signals();
  try {
    if (!o.resume.empty()) {
      for (const CLI::Option* option : cmd->get_options())
        if (option->count() > 0 && !allowed_with_resume(option->get_name()))
          throw UsageError(fmt::format("{} cannot be given with --resume: a resumed run keeps the plan recorded in "
                                       "{}/manifest.json, so that every launch measures the same thing. Leave out "
                                       "{}, or start a new run without --resume for a different plan",
                                       option->get_name(), o.resume, option->get_name()));
      exit_code = resume_run(o);
      return;
    }
    exit_code = run(o, invocation());
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << "\n";
    exit_code = kExitUsage;
  } catch (const DataError& e) {
    std::cerr << "error: " << e.what() << "\n";
    exit_code = kExitUsage;
  }
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Measure workloads on the host and in container runtimes, and compare");
  add_what_options(cmd, *o);
  add_repetition_options(cmd, *o);
  add_control_options(cmd, *o);
  add_command_options(cmd, *o);
  add_cluster_options(cmd, *o);
  cmd->callback([o, cmd, &exit_code] {
    o->data_given = cmd->get_option("--data")->count() > 0;
    run_or_resume(*o, cmd, exit_code);
  });
}

// calibrate and explain choose their environments themselves and refuse
// --envs with the reason (make_plan); their --help leaves it out.
namespace {
void hide_envs_option(CLI::App* cmd) { cmd->get_option("--envs")->group(""); }

// `-- CMD` after calibrate or explain: taken, so that the refusal says what
// to do instead of CLI11's "argument was not expected".
void refuse_command_after(CLI::App* cmd, std::vector<std::string>& command) {
  cmd->add_option("command", command)->group("");
}
}  // namespace

void add_calibrate_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<RunOptions>();
  o->calibrate = true;
  auto* cmd = app.add_subcommand(
      "calibrate",
      "Measure the baseline against a copy of itself, interleaved (an A/A run), and print this machine's noise floor: "
      "the smallest overhead a run of this size can resolve, and the rounds a given --precision needs per workload");
  add_what_options(cmd, *o);
  hide_envs_option(cmd);
  add_repetition_options(cmd, *o);
  add_control_options(cmd, *o);
  refuse_command_after(cmd, o->command);
  cmd->callback([o, cmd, &exit_code] {
    if (!o->command.empty()) {
      std::cerr << "error: dlcbench calibrate measures dlcbench's own workloads; for a command, measure it against a "
                   "copy of its environment: dlcbench run --envs host,host -- COMMAND (an A/A run)\n";
      exit_code = kExitUsage;
      return;
    }
    if (!o->resume.empty()) {
      std::cerr << fmt::format("error: a calibration is resumed like any run: `dlcbench run --resume {}`\n", o->resume);
      exit_code = kExitUsage;
      return;
    }
    run_or_resume(*o, cmd, exit_code);
  });
}

void add_explain_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand(
      "explain",
      "Measure an environment against the baseline and against variants of it with one isolation feature changed at "
      "a time (seccomp, namespaces, cgroup limits, scratch storage, gVisor's options): each feature's share of the "
      "overhead");
  cmd->add_option("environment", o->explain, "The environment to explain, with its options, e.g. docker:cpus=1 or runsc")
      ->required()
      ->check(not_empty("an environment, e.g. docker or runsc:platform=ptrace") & checked_by([](const std::string& text) {
                const auto r = parse_environment_request(text);
                check_options_fit_machine(r.name, r.container);
              }));
  cmd->add_option("--features", o->features,
                  "Features to change, comma-separated (default: every one that applies): seccomp, network, ipc, "
                  "pid, limits, scratch, platform, file-access, overlay")
      ->check(not_empty("features, e.g. seccomp,network"));
  add_what_options(cmd, *o);
  hide_envs_option(cmd);
  add_repetition_options(cmd, *o);
  add_control_options(cmd, *o);
  refuse_command_after(cmd, o->command);
  cmd->callback([o, cmd, &exit_code] {
    if (!o->command.empty()) {
      std::cerr << "error: dlcbench explain changes one isolation feature at a time for dlcbench's own workloads; "
                   "a command cannot be explained yet: compare it with dlcbench run --envs host,ENV -- COMMAND, "
                   "and give the variants as environments (e.g. docker,docker:seccomp=unconfined)\n";
      exit_code = kExitUsage;
      return;
    }
    if (!o->resume.empty()) {
      // The positional environment is required, so resuming goes by run.
      std::cerr << fmt::format("error: an explain run is resumed like any run: `dlcbench run --resume {}` (its "
                               "manifest holds the variants)\n",
                               o->resume);
      exit_code = kExitUsage;
      return;
    }
    run_or_resume(*o, cmd, exit_code);
  });
}

}  // namespace dlcbench::cli
