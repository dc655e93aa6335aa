// manifest.json: what a run is (plan, settings, machine) and how it went.
// One struct, one to_json and one from_json: `dlcbench run` writes it,
// `run --resume` reads and extends it, `report`, `compare` and every report
// format read it. The format's version is checked in from_json and nowhere
// else. docs/report-json.md describes the JSON report, which is the format
// users' scripts read; the manifest is the run's own record.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/mismatch.h"
#include "model/recorded_plan.h"

namespace dlcbench {

// 2: preflight mismatches as core/mismatch.h writes them (version 1 wrote
// "baseline" and "value"; still read).
inline constexpr int kManifestSchemaVersion = 2;

enum class RunStatus {
  unknown,  // the manifest records none (or one this version does not know)
  running,  // the run is going on, or was killed before it could record its end
  completed,
  completed_with_failures,
  interrupted,
  not_comparable,  // the preflight stopped it: nothing was measured
  not_started,     // an environment named in --envs could not be prepared: nothing was measured
};

// As the manifest writes it: "completed with failures", "not comparable".
const char* run_status_text(RunStatus status);

// What --until-cv reached.
struct UntilCvOutcome {
  double target = 0;
  double highest_cv = 0;
  bool met = false;
};

// How the rounds added after --runs ended (orchestrator/stopping_rule.h),
// as the first session recorded it.
struct AddedRounds {
  int added = 0;                 // rounds measured beyond --runs
  int disturbed_launches = 0;    // successful launches judged disturbed and set aside
  std::string stopped;           // stop_reason_text: "the planned rounds (--runs) done", "--max-runs reached", ...
  double precision = 0;          // --precision asked for (0: none)
  std::optional<double> widest_half_width;  // --precision: the widest interval at the end; unset: one had none
  std::string widest;            // its case and environment
  double elapsed_seconds = 0;    // the session's measuring time
};

// Per environment label, what the preflight found against the baseline.
using PreflightFindings = std::map<std::string, std::vector<Mismatch>>;

// One `run --resume` session, as it recorded itself in "resumed".
struct ResumedSession {
  std::string at;
  std::vector<std::string> command_line;
  std::size_t missing_launches = 0;
  std::size_t cut_off_launches = 0;
  // The failed launches it found to measure again; when it ends, the
  // launches that failed in it.
  std::size_t failed_launches = 0;
  int rounds = 0;
  std::map<std::string, std::vector<std::string>> leftovers_removed;  // by environment
  std::optional<PreflightFindings> preflight;
  std::optional<RunStatus> outcome;  // not_comparable: the preflight stopped it
  std::optional<std::size_t> launches;
  std::string ended_at;
};

// A run that is one node's part of a cluster run (`run --slurm`): which
// cluster run, which node, and the Slurm job and step that ran it.
struct ClusterMembership {
  std::string run, node, job, step;
};

struct Manifest {
  int schema_version = kManifestSchemaVersion;
  std::string run_id;
  std::vector<std::string> command_line;
  std::string dlcbench_version;
  // The plan (model/recorded_plan.h); unset in a manifest that records none.
  std::optional<RecordedPlan> plan;
  // Per round, the environments' places in the plan in the order launched.
  std::vector<std::vector<std::size_t>> round_orders;
  std::map<std::string, std::string> worker_env;  // the variables every worker got
  nlohmann::json orchestrator = nlohmann::json::object();  // the orchestrator's fingerprint
  std::string started_at, ended_at;                        // ISO 8601, UTC; "" until known
  RunStatus status = RunStatus::unknown;
  // Per label: the environment as it described itself when prepared (its
  // runtime's fields), or {"unavailable": why}.
  std::map<std::string, nlohmann::json> environments;
  std::optional<PreflightFindings> preflight;
  std::optional<int> rounds;
  std::optional<std::size_t> launches, failed_launches;
  std::optional<UntilCvOutcome> until_cv;
  std::optional<AddedRounds> added_rounds;
  std::vector<ResumedSession> resumed;
  std::optional<ClusterMembership> cluster;

  // The sha256 of the dlcbench binary that started the run; "" if unrecorded.
  std::string binary_sha256() const;
};

// Optional fields that are unset are left out.
void to_json(nlohmann::json& j, const Manifest& m);
// Absent fields keep their defaults; a field of the wrong type is a
// DataError naming it, as is a manifest of a newer format version.
void from_json(const nlohmann::json& j, Manifest& m);

// read_json_file + from_json: throws DataError naming the file.
Manifest read_manifest(const std::filesystem::path& file);
void write_manifest(const std::filesystem::path& file, const Manifest& m);  // atomically

}  // namespace dlcbench
