// `dlcbench run`: plans the cases, runs them round by round in every
// environment, saves every sample as it arrives and prints the comparison.
// `explain` and `calibrate` are runs too (explain_command.cpp,
// calibrate_command.cpp); the three share the options (run_options.h) and
// this path: options -> RunRequest -> plan -> session -> report.
#include "cli/run_command.h"

#include <signal.h>

#include <atomic>
#include <iostream>

#include <fmt/format.h>

#include "analysis/analysis.h"
#include "cli/commands.h"
#include "cli/store_recording.h"
#include "cluster/allreduce_run.h"
#include "cluster/cluster_run.h"
#include "cluster/slurm.h"
#include "core/errors.h"
#include "core/results_file.h"
#include "core/words.h"
#include "model/cluster_manifest.h"
#include "model/plan.h"
#include "orchestrator/planning.h"
#include "orchestrator/run_folder.h"
#include "orchestrator/run_session.h"
#include "orchestrator/wall_time_estimate.h"
#include "report/console.h"
#include "store/store_location.h"
#include "store/stored_run.h"

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
    if (plan.ablation)
      for (const auto& c : plan.ablation->combinations)
        if (c.label == e.text)
          role = fmt::format("  (factorial cell: {} changed together)", ablation_features_name(c.features));
    std::cout << fmt::format("  {}{}\n", e.text, role);
  }
  if (plan.ablation && plan.ablation->factorial)
    std::cout << fmt::format("design: full factorial over {} feature{} ({} environments besides the baseline), for "
                             "each feature's Shapley share and the residual\n",
                             plan.ablation->variants.size(), plan.ablation->variants.size() == 1 ? "" : "s",
                             1u << plan.ablation->variants.size());
  else if (plan.ablation)
    std::cout << fmt::format("design: one feature at a time ({} features; a full factorial takes at most {}: name "
                             "them with --features), so the shares need not add up\n",
                             plan.ablation->variants.size(), kMaxFactorialFeatures);
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

// `run --slurm`: the plan checked here, measured by every node's own run.
int run_on_slurm(const RunOptions& o, const Plan& plan, const std::vector<std::string>& command_line,
                 const std::optional<StoreLocation>& store) {
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
  const int rc = run_cluster(start, dir, run_id);
  // Only this process, which submitted the run, writes the store.
  if (store && rc != kExitInterrupted && !add_cluster_to_store(*store, dir) && rc == kExitOk) return kExitFailure;
  return rc;
}

// The report, computed from the files exactly as `dlcbench report` does,
// and the run's exit code.
int report_run(const SessionEnd& end, bool verbose, const std::optional<StoreLocation>& store) {
  switch (end.stop) {
    case SessionEnd::Stop::not_prepared: return kExitFailure;
    case SessionEnd::Stop::not_comparable: return kExitNotComparable;
    case SessionEnd::Stop::nothing_to_resume: return kExitOk;
    case SessionEnd::Stop::measured: break;
  }
  const fs::path& dir = end.dir;
  const auto content = read_results(dir / "results.jsonl");
  const Manifest manifest = read_manifest(dir / "manifest.json");
  const Analysis analysis = analyze(manifest, content.records);
  std::cout << (verbose ? render_console(analysis)
                        : render_answer(analysis, fmt::format("dlcbench report {} --details", dir.string())));
  std::cout << fmt::format("\nresults: {}\n", dir.string());
  // A completed run goes into the results store too; a store that fails
  // loses nothing (the folder is the record) but is an error all the same.
  bool store_failed = false;
  if (store && storable(manifest.status) && !end.interrupted) {
    const StoreOutcome stored = add_to_store(*store, manifest, content, analysis, dir);
    if (stored.stored) {
      std::cout << fmt::format("stored in {}\n", stored.description);
    } else {
      std::cerr << fmt::format("error: {}; the run's folder {} is complete: `dlcbench store add {}` adds it once the "
                               "store is mended\n",
                               stored.error, dir.string(), dir.string());
      store_failed = true;
    }
  }
  if (end.interrupted) {
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
  return (end.environment_missing || end.failed_launches || store_failed) ? kExitFailure : kExitOk;
}

int run(const RunOptions& o, const std::vector<std::string>& command_line) {
  const RunRequest request = run_request(o, command_line);
  const PlannedRun planned = plan_run(request);
  const auto store = store_location(o.store, o.no_store);  // bad input is said before anything runs
  if (request.dry_run) {
    print_plan(planned.plan);
    const std::filesystem::path earlier = earlier_runs_folder(request);
    std::cout << "estimate: " << estimate_words(estimate_wall_time(planned.plan, earlier), earlier) << "\n";
    return kExitOk;
  }
  if (request.on_slurm) return run_on_slurm(o, planned.plan, command_line, store);
  return report_run(run_new_session(request, planned, g_interrupted), o.verbose, store);
}

int resume(const RunOptions& o, const CLI::App* cmd) {
  const ResumeRequest request = resume_request(o, cmd, invocation());
  const auto store = store_location(o.store, o.no_store);
  if (is_cluster_run(request.dir)) {
    const int rc = resume_cluster(request.dir, fs::read_symlink("/proc/self/exe"), &g_interrupted);
    if (store && rc != kExitInterrupted && !add_cluster_to_store(*store, request.dir) && rc == kExitOk) return kExitFailure;
    return rc;
  }
  return report_run(resume_run(request, g_interrupted), o.verbose, store);
}

}  // namespace

// The run and resume paths of the three commands, with their errors as exit codes.
void run_or_resume(const RunOptions& o, const CLI::App* cmd, int& exit_code) {
  stop_on_signals();
  try {
    exit_code = o.resume.empty() ? run(o, invocation()) : resume(o, cmd);
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << "\n";
    exit_code = kExitUsage;
  } catch (const DataError& e) {
    std::cerr << "error: " << e.what() << "\n";
    exit_code = kExitUsage;
  }
}

void add_run_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Measure workloads on the host and in container runtimes, and compare");
  add_run_options(cmd, *o);
  cmd->callback([o, cmd, &exit_code] { run_or_resume(*o, cmd, exit_code); });
}

void add_options_of_a_chosen_run(CLI::App* cmd, RunOptions& o) {
  add_what_options(cmd, o);
  cmd->get_option("--envs")->group("");
  add_repetition_options(cmd, o);
  add_control_options(cmd, o);
  cmd->add_option("command", o.command)->group("");
}

}  // namespace dlcbench::cli
