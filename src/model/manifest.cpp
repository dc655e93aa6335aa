#include "model/manifest.h"

#include <array>
#include <utility>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_fields.h"
#include "core/results_file.h"

namespace dlcbench {
namespace {

using nlohmann::json;
using json_fields::int_field;
using json_fields::optional_int_field;
using json_fields::string_field;
using json_fields::wrong_type;

constexpr std::array<std::pair<RunStatus, const char*>, 6> kStatusTexts = {{
    {RunStatus::running, "running"},
    {RunStatus::completed, "completed"},
    {RunStatus::completed_with_failures, "completed with failures"},
    {RunStatus::interrupted, "interrupted"},
    {RunStatus::not_comparable, "not comparable"},
    {RunStatus::not_started, "not started"},
}};

RunStatus run_status_of(const std::string& text) {
  for (const auto& [status, words] : kStatusTexts)
    if (text == words) return status;
  return RunStatus::unknown;
}

// The value at `key` when present and not null, checked to be of the kind
// `is` tests; nullptr otherwise.
template <typename Test>
const json* field(const json& object, const char* key, Test is, const char* expected, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  if (!is(*it)) wrong_type(where + key, *it, expected);
  return &*it;
}

const json* object_field(const json& o, const char* key, const std::string& where) {
  return field(o, key, [](const json& v) { return v.is_object(); }, "an object", where);
}

const json* array_field(const json& o, const char* key, const std::string& where) {
  return field(o, key, [](const json& v) { return v.is_array(); }, "a list", where);
}

std::vector<std::string> strings_field(const json& o, const char* key, const std::string& where) {
  std::vector<std::string> out;
  if (const json* list = array_field(o, key, where))
    for (const auto& item : *list) {
      if (!item.is_string()) wrong_type(where + key, item, "a list of strings");
      out.push_back(item.get<std::string>());
    }
  return out;
}

std::optional<std::size_t> count_field(const json& o, const char* key, const std::string& where) {
  const auto n = optional_int_field(o, key, where);
  if (n && *n < 0) wrong_type(where + key, o.at(key), "a count (0 or more)");
  return n ? std::optional<std::size_t>(static_cast<std::size_t>(*n)) : std::nullopt;
}

PreflightFindings preflight_of(const json& findings, const std::string& where) {
  PreflightFindings out;
  for (const auto& [env, list] : findings.items()) {
    if (!list.is_array()) wrong_type(where + env, list, "a list of mismatches");
    auto& mismatches = out[env];
    for (const auto& m : list) mismatches.push_back(m.get<Mismatch>());
  }
  return out;
}

json preflight_json(const PreflightFindings& findings) {
  json j = json::object();
  for (const auto& [env, list] : findings) j[env] = list;
  return j;
}

json resumed_json(const ResumedSession& s) {
  json j = {{"at", s.at},
            {"command_line", s.command_line},
            {"missing_launches", s.missing_launches},
            {"cut_off_launches", s.cut_off_launches},
            {"failed_launches", s.failed_launches},
            {"rounds", s.rounds}};
  if (!s.leftovers_removed.empty()) j["leftovers_removed"] = s.leftovers_removed;
  if (s.preflight) j["preflight"] = preflight_json(*s.preflight);
  if (s.outcome) j["outcome"] = run_status_text(*s.outcome);
  if (s.launches) j["launches"] = *s.launches;
  if (!s.ended_at.empty()) j["ended_at"] = s.ended_at;
  return j;
}

ResumedSession resumed_of(const json& j, const std::string& where) {
  if (!j.is_object()) wrong_type(where, j, "an object");
  const std::string in = where + ".";
  ResumedSession s;
  s.at = string_field(j, "at", "", in);
  s.command_line = strings_field(j, "command_line", in);
  s.missing_launches = count_field(j, "missing_launches", in).value_or(0);
  s.cut_off_launches = count_field(j, "cut_off_launches", in).value_or(0);
  s.failed_launches = count_field(j, "failed_launches", in).value_or(0);
  s.rounds = int_field(j, "rounds", 0, in);
  if (const json* left = object_field(j, "leftovers_removed", in))
    for (const auto& [env, names] : left->items()) s.leftovers_removed[env] = strings_field(*left, env.c_str(), in);
  if (const json* p = object_field(j, "preflight", in)) s.preflight = preflight_of(*p, in + "preflight.");
  if (const std::string outcome = string_field(j, "outcome", "", in); !outcome.empty())
    s.outcome = run_status_of(outcome);
  s.launches = count_field(j, "launches", in);
  s.ended_at = string_field(j, "ended_at", "", in);
  return s;
}

void read_run_fields(const json& j, Manifest& m, const std::string& in) {
  if (const json* orders = array_field(j, "round_orders", in)) {
    for (const auto& order : *orders) {
      if (!order.is_array()) wrong_type(in + "round_orders", order, "a list of environment places");
      auto& round = m.round_orders.emplace_back();
      for (const auto& place : order) {
        if (!place.is_number_unsigned()) wrong_type(in + "round_orders", place, "an environment's place (0 or more)");
        round.push_back(place.get<std::size_t>());
      }
    }
  }
  if (const json* env = object_field(j, "worker_env", in))
    for (const auto& [name, value] : env->items()) m.worker_env[name] = string_field(*env, name.c_str(), "", in + "worker_env.");
  if (const json* envs = object_field(j, "environments", in))
    for (const auto& [label, described] : envs->items()) m.environments[label] = described;
  if (const json* p = object_field(j, "preflight", in)) m.preflight = preflight_of(*p, in + "preflight.");
  m.rounds = optional_int_field(j, "rounds", in);
  m.launches = count_field(j, "launches", in);
  m.failed_launches = count_field(j, "failed_launches", in);
  if (const json* cv = object_field(j, "until_cv", in)) {
    const std::string at = in + "until_cv.";
    m.until_cv = UntilCvOutcome{json_fields::number_field(*cv, "target", at).value_or(0),
                                json_fields::number_field(*cv, "highest_cv", at).value_or(0),
                                json_fields::bool_field(*cv, "met", false, at)};
  }
  if (const json* added = object_field(j, "added_rounds", in)) {
    const std::string at = in + "added_rounds.";
    AddedRounds a;
    a.added = json_fields::int_field(*added, "added", 0, at);
    a.disturbed_launches = json_fields::int_field(*added, "disturbed_launches", 0, at);
    a.stopped = string_field(*added, "stopped", "", at);
    a.precision = json_fields::number_field(*added, "precision", at).value_or(0);
    a.widest_half_width = json_fields::number_field(*added, "widest_half_width", at);
    a.widest = string_field(*added, "widest", "", at);
    a.elapsed_seconds = json_fields::number_field(*added, "elapsed_seconds", at).value_or(0);
    m.added_rounds = a;
  }
  if (const json* resumed = array_field(j, "resumed", in))
    for (std::size_t i = 0; i < resumed->size(); ++i)
      m.resumed.push_back(resumed_of((*resumed)[i], fmt::format("{}resumed[{}]", in, i)));
  if (const json* cluster = object_field(j, "cluster", in)) {
    const std::string at = in + "cluster.";
    m.cluster = ClusterMembership{string_field(*cluster, "run", "", at), string_field(*cluster, "node", "", at),
                                  string_field(*cluster, "job", "", at), string_field(*cluster, "step", "", at)};
  }
}

}  // namespace

const char* run_status_text(RunStatus status) {
  for (const auto& [s, words] : kStatusTexts)
    if (s == status) return words;
  return "unknown";
}

std::string Manifest::binary_sha256() const {
  if (!orchestrator.is_object()) return "";
  const auto it = orchestrator.find("binary_sha256");
  return it != orchestrator.end() && it->is_string() ? it->get<std::string>() : "";
}

void to_json(json& j, const Manifest& m) {
  j = {{"schema_version", m.schema_version},
       {"run_id", m.run_id},
       {"command_line", m.command_line},
       {"dlcbench_version", m.dlcbench_version},
       {"plan", m.plan ? json(*m.plan) : json::object()},
       {"round_orders", m.round_orders},
       {"worker_env", m.worker_env},
       {"orchestrator", m.orchestrator},
       {"started_at", m.started_at},
       {"status", run_status_text(m.status)},
       {"environments", m.environments}};
  if (!m.ended_at.empty()) j["ended_at"] = m.ended_at;
  if (m.preflight) j["preflight"] = preflight_json(*m.preflight);
  if (m.rounds) j["rounds"] = *m.rounds;
  if (m.launches) j["launches"] = *m.launches;
  if (m.failed_launches) j["failed_launches"] = *m.failed_launches;
  if (m.until_cv)
    j["until_cv"] = {{"target", m.until_cv->target}, {"highest_cv", m.until_cv->highest_cv}, {"met", m.until_cv->met}};
  if (m.added_rounds) {
    const AddedRounds& a = *m.added_rounds;
    j["added_rounds"] = {{"added", a.added},
                         {"disturbed_launches", a.disturbed_launches},
                         {"stopped", a.stopped},
                         {"precision", a.precision},
                         {"widest_half_width", a.widest_half_width ? json(*a.widest_half_width) : json(nullptr)},
                         {"widest", a.widest},
                         {"elapsed_seconds", a.elapsed_seconds}};
  }
  if (m.cluster)
    j["cluster"] = {{"run", m.cluster->run}, {"node", m.cluster->node}, {"job", m.cluster->job}, {"step", m.cluster->step}};
  if (!m.resumed.empty()) {
    j["resumed"] = json::array();
    for (const auto& s : m.resumed) j["resumed"].push_back(resumed_json(s));
  }
}

void from_json(const json& j, Manifest& m) {
  const std::string in = "manifest.json: ";
  if (!j.is_object()) wrong_type("manifest.json", j, "a JSON object");
  m = Manifest{};
  m.schema_version = int_field(j, "schema_version", 1, in);
  if (m.schema_version > kManifestSchemaVersion)
    throw DataError(fmt::format("manifest.json has format version {}, newer than this dlcbench reads ({}): use the "
                                "dlcbench that wrote it, or update dlcbench",
                                m.schema_version, kManifestSchemaVersion));
  m.run_id = string_field(j, "run_id", "", in);
  m.command_line = strings_field(j, "command_line", in);
  m.dlcbench_version = string_field(j, "dlcbench_version", "", in);
  if (const json* plan = object_field(j, "plan", in); plan && !plan->empty()) m.plan = read_recorded_plan(*plan);
  if (const json* orchestrator = object_field(j, "orchestrator", in)) m.orchestrator = *orchestrator;
  m.started_at = string_field(j, "started_at", "", in);
  m.ended_at = string_field(j, "ended_at", "", in);
  m.status = run_status_of(string_field(j, "status", "", in));
  read_run_fields(j, m, in);
}

Manifest read_manifest(const std::filesystem::path& file) {
  const json j = read_json_file(file);
  try {
    return j.get<Manifest>();
  } catch (const DataError& e) {
    throw DataError(fmt::format("{}: {}", file.string(), e.what()));
  }
}

void write_manifest(const std::filesystem::path& file, const Manifest& m) { write_json_atomically(file, m); }

}  // namespace dlcbench
