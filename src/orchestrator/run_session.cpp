#include "orchestrator/run_session.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "analysis/analysis.h"
#include "core/errors.h"
#include "core/fingerprint.h"
#include "core/live_runs.h"
#include "model/manifest.h"
#include "core/process.h"
#include "core/results_file.h"
#include "core/words.h"
#include "gpu/gpu_loader.h"
#include "model/launch_progress.h"
#include "orchestrator/preflight.h"
#include "orchestrator/progress_line.h"
#include "orchestrator/wall_time_estimate.h"
#include "core/timer.h"
#include "orchestrator/resume.h"
#include "orchestrator/run_folder.h"
#include "orchestrator/scheduler.h"
#include "runtimes/environment.h"
#include "runtimes/leftovers.h"
#include "workloads/micro/external_tools.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

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

// One session of a run: the first, or one started by --resume.
struct Session {
  Plan plan{};       // as the manifest records it
  Plan scheduled{};  // what the scheduler gets (resume: the recorded rounds, none added)
  fs::path dir{};
  std::vector<std::pair<std::string, std::string>> worker_env{};
  Manifest manifest{};
  bool discovered = false;  // environments found on the machine, not named with --envs
  bool keep_images = false;
  std::set<LaunchKey> already_measured{};  // resume: by earlier sessions
  std::set<std::string> adopt_images{};    // resume: environments whose image a killed session imported
  bool resuming = false;
  bool take_turns = false;    // --take-turns
  bool keep_going = false;    // --keep-going
  int rounds_reached = 0;               // resume: by the earlier sessions
  std::vector<CellRuns> earlier_cells{};  // resume: what they measured, for the stopping rule
  std::string cgroup_parent{};  // containers' cgroup parent; empty: the runtime's default
  std::atomic<bool>* cancel = nullptr;  // set by a signal: stop, record the run as interrupted

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
  context.probe_only = !plan.cases.empty() && only_in_probe(plan);
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
// What preparing an environment made, from its description: "; image
// dlcbench-worker:ae3c (built)", "; rootfs built by dlcbench from ...".
std::string what_was_prepared(const nlohmann::json& described) {
  if (!described.is_object()) return "";
  if (const auto image = described.find("image"); image != described.end() && image->is_string())
    return fmt::format(": image {}{}", image->get<std::string>(),
                       described.value("image_built_by_dlcbench", false) ? " (built by dlcbench)" : "");
  if (const auto rootfs = described.find("rootfs"); rootfs != described.end() && rootfs->is_string())
    return fmt::format(": root file system {}", rootfs->get<std::string>());
  return "";
}

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
      const Stopwatch preparing;
      s.environment->prepare();
      session.manifest.environments[s.label] = s.environment->describe();
      std::cerr << fmt::format("  {} ready in {:.1f} s{}\n", s.label, preparing.seconds(),
                               what_was_prepared(session.manifest.environments[s.label]));
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
// why the run stops there, when it must.
std::optional<SessionEnd::Stop> check_like_for_like(Session& session, std::vector<ScheduledEnvironment>& environments,
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
    return SessionEnd::Stop::not_comparable;
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
    if (plan.precision > 0 && !d.above_precision && !outcome.interrupted)
      std::cerr << fmt::format("precision reached after {} rounds: every comparison's interval is within +-{:.1f}% "
                               "(the widest: {}, +-{:.1f}%)\n",
                               outcome.rounds, 100 * plan.precision, d.widest, 100 * d.widest_half_width);
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

// An environment the user named could not be prepared: the run ends with
// nothing (more) measured, its manifest saying why, and can be resumed once
// the cause is fixed.
SessionEnd::Stop end_unprepared(Session& session, const std::string& why) {
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
  return SessionEnd::Stop::not_prepared;
}

// Prepares the environments, checks like for like and measures:
// what every session of a run does once its manifest and results file exist.
SessionEnd measure(Session& session, ResultsWriter& results) {
  SessionEnd end{SessionEnd::Stop::measured, session.dir};
  PreparedEnvironments prepared;
  const Preparation preparation = prepare_environments(session, prepared, results);
  end.environment_missing = preparation.any_unavailable;
  if (!preparation.fatal.empty()) {
    end.stop = end_unprepared(session, preparation.fatal);
    return end;
  }

  ScheduleOptions options;
  options.run_id = session.manifest.run_id;
  options.worker_env = session.worker_env;
  options.load_generator = worker_program_beside(fs::read_symlink("/proc/self/exe"));
  options.cancel = session.cancel;
  options.already_measured = session.already_measured;
  options.rounds_reached = session.rounds_reached;
  options.earlier_cells = session.earlier_cells;
  options.take_turns = session.take_turns;
  ProgressLine progress;
  options.log = [&](const std::string& line) { progress.log(line); };
  options.progress = [&](const Progress& p) { progress.show(p); };
  if (!*session.cancel)
    if (const auto stopped = check_like_for_like(session, prepared.list, results, options)) {
      end.stop = *stopped;
      return end;
    }

  ScheduleResult outcome;
  if (!*session.cancel) outcome = run_schedule(session.scheduled, prepared.list, results, options);
  progress.clear();
  outcome.interrupted = outcome.interrupted || *session.cancel;
  results.sync();

  session.manifest.ended_at = now_iso();
  if (session.resuming) record_resumed_session(session, outcome, results.path());
  else record_first_session(session, outcome);
  session.save();
  end.interrupted = outcome.interrupted;
  end.failed_launches = outcome.failed_launches > 0;
  return end;
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
  m.plan = record_of(plan);
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

// The manifest of the run in `dir`, if this binary may continue it.
Manifest manifest_to_resume(const fs::path& dir) {
  Manifest manifest;
  try {
    manifest = read_manifest(dir / "manifest.json");
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("--resume {}: {}", dir.string(), e.what()));
  }
  if (manifest.run_id.empty() || !manifest.plan)
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
Session resume_session(const ResumeRequest& o, const Plan& plan, Manifest manifest, const ResumeState& state,
                       const std::vector<nlohmann::json>& records, std::vector<CellRuns> earlier_cells,
                       std::atomic<bool>& cancel) {
  Session session{.plan = plan,
                  .scheduled = plan,
                  .dir = o.dir,
                  .manifest = std::move(manifest),
                  .discovered = true,
                  .keep_images = o.keep_images,
                  .already_measured = state.measured,
                  .resuming = true,
                  .take_turns = o.take_turns,
                  .keep_going = o.keep_going,
                  .cgroup_parent = o.cgroup_parent,
                  .cancel = &cancel};
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

}  // namespace

SessionEnd run_new_session(const RunRequest& o, const PlannedRun& planned, std::atomic<bool>& cancel) {
  const Plan& plan = planned.plan;
  note_killed_runs_leftovers();

  std::string run_id = o.run_id;
  const fs::path dir = o.run_folder.empty()
                           ? create_run_folder(o.out, run_id, o.run_id)
                           : create_run_folder(o.run_folder.parent_path(), run_id, o.run_folder.filename().string());
  if (run_id.empty()) run_id = dir.filename().string();
  Session session{.plan = plan,
                  .scheduled = plan,
                  .dir = dir,
                  .worker_env = worker_environment(planned.threads, o.pin_threads),
                  .discovered = o.environments.empty(),
                  .keep_images = o.keep_images,
                  .take_turns = o.take_turns,
                  .keep_going = o.keep_going,
                  .cgroup_parent = o.cgroup_parent,
                  .cancel = &cancel};
  const RunFolderLock lock(dir);  // a `--resume` of this folder waits for the run to end
  const LiveRun live(run_id);     // what it makes is a live run's, never cleaned away (doctor --clean)
  session.manifest = new_manifest(session, run_id, o.command_line);
  if (!o.cluster_run.empty()) session.manifest.cluster = cluster_membership(o.cluster_run, o.cluster_node);
  session.save();

  ResultsWriter results(dir / "results.jsonl");
  std::cerr << fmt::format("dlcbench run {}: {} x {} x {}, {}; writing {}\n", run_id,
                           counted(plan.cases.size(), "case", "cases"),
                           counted(plan.environments.size(), "environment", "environments"),
                           counted(static_cast<std::size_t>(plan.runs), "run", "runs"),
                           counted(static_cast<std::size_t>(planned.threads), "thread", "threads"), dir.string());
  if (plan.ablation)
    for (const auto& why : plan.ablation->left_out) std::cerr << "note: explain: left out " << why << "\n";
  const fs::path earlier_runs = earlier_runs_folder(o);
  std::cerr << "estimate: " << estimate_words(estimate_wall_time(plan, earlier_runs), earlier_runs) << "\n";
  return measure(session, results);
}

// `dlcbench run --resume DIR`: measures the launches of DIR's run that have
// no successful launch record, with the recorded plan, into the same files.
SessionEnd resume_run(const ResumeRequest& o, std::atomic<bool>& cancel) {
  const fs::path& dir = o.dir;
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
    plan = plan_to_resume(*manifest.plan);
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
    return {SessionEnd::Stop::nothing_to_resume, dir};
  }
  check_data(plan);

  if (manifest.status == RunStatus::running) manifest.status = RunStatus::interrupted;  // killed: nothing runs it now
  ResumedSession entry;
  entry.at = now_iso();
  entry.command_line = o.command_line;
  entry.missing_launches = state.missing.size();
  entry.cut_off_launches = state.cut_off.size();
  entry.failed_launches = state.failed.size();
  entry.rounds = rounds;
  manifest.resumed.push_back(entry);
  Session session =
      resume_session(o, plan, std::move(manifest), state, records, std::move(earlier.earlier_cells), cancel);
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

}  // namespace dlcbench
