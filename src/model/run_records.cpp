#include "model/run_records.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_fields.h"

namespace dlcbench {
namespace {

using nlohmann::json;

using json_fields::bool_field;
using json_fields::int_field;
using json_fields::number_field;
using json_fields::string_field;
using json_fields::wrong_type;

// object[a][b] if both levels are objects holding them; else nullptr.
const json* nested(const json& object, const char* a, const char* b) {
  const auto outer = object.find(a);
  if (outer == object.end() || !outer->is_object()) return nullptr;
  const auto inner = outer->find(b);
  return inner == outer->end() ? nullptr : &*inner;
}

// plan.requested_fields: {"docker:cpus=1": ["/cgroup/cpu_quota"], ...}.
void read_requested_fields(const json& plan, ManifestPlan& m) {
  const auto fields = plan.find("requested_fields");
  if (fields == plan.end()) return;
  if (!fields->is_object()) wrong_type("manifest.json: plan.requested_fields", *fields, "an object of lists");
  for (const auto& [env, list] : fields->items()) {
    if (!list.is_array()) wrong_type("manifest.json: plan.requested_fields." + env, list, "a list of fields");
    for (const auto& f : list) {
      if (!f.is_string()) wrong_type("manifest.json: plan.requested_fields." + env, f, "a field name");
      m.requested_fields[env].push_back(f.get<std::string>());
    }
  }
  m.requested_fields_recorded = true;
}

}  // namespace

ManifestPlan read_manifest_plan(const Manifest& manifest) {
  if (!manifest.plan.is_object() || manifest.plan.empty())
    throw DataError("manifest.json has no plan: it is not a dlcbench results folder's manifest");
  ManifestPlan m;
  m.status = manifest.status;
  if (manifest.launches) m.launches = static_cast<int>(std::min<std::size_t>(*manifest.launches, std::numeric_limits<int>::max()));
  const json& plan = manifest.plan;
  const std::string where = "manifest.json: plan.";
  m.baseline = string_field(plan, "baseline", "host", where);
  m.allow_mismatch = bool_field(plan, "allow_mismatch", false, where);
  if (const auto margin = number_field(plan, "margin", where)) {
    if (!(*margin > 0 && *margin < 1))
      throw DataError(fmt::format("manifest.json: plan.margin is {}, not a share between 0 and 1", *margin));
    m.margin = *margin;
  }
  m.calibration = bool_field(plan, "calibration", false, where);
  m.runs = std::max(0, int_field(plan, "runs", 0, where));
  if (const auto precision = number_field(plan, "precision", where)) m.precision = *precision;

  const auto envs = plan.find("environments");
  if (envs == plan.end() || !envs->is_array())
    throw DataError("manifest.json: plan.environments is missing or not a list of environment labels");
  for (std::size_t i = 0; i < envs->size(); ++i) {
    const json& e = (*envs)[i];
    if (!e.is_string()) wrong_type(fmt::format("{}environments[{}]", where, i), e, "an environment label");
    m.environments.push_back(e.get<std::string>());
  }

  const auto cases = plan.find("cases");
  if (cases == plan.end() || !cases->is_array())
    throw DataError("manifest.json: plan.cases is missing or not a list of cases");
  for (std::size_t i = 0; i < cases->size(); ++i) {
    const json& c = (*cases)[i];
    const std::string case_name = fmt::format("{}cases[{}]", where, i);
    if (!c.is_object()) wrong_type(case_name, c, "an object");
    PlannedCase pc;
    const auto id = c.find("id");
    if (id == c.end() || !id->is_string())
      throw DataError(fmt::format("{}.id is missing or not a string", case_name));
    pc.id = id->get<std::string>();
    pc.workload = string_field(c, "workload", "", case_name + ".");
    try {
      pc.spec = c.get<CaseSpec>();
    } catch (const std::exception&) {
      // A case recorded without every field (older manifests, tests): what
      // is known is its workload.
      pc.spec = CaseSpec{};
      pc.spec.workload = pc.workload;
    }
    m.cases.push_back(std::move(pc));
  }
  read_requested_fields(plan, m);
  if (const auto ablation = plan.find("ablation"); ablation != plan.end()) m.ablation = ablation->get<AblationPlan>();
  return m;
}

ResultRecord read_result_record(const json& r) {
  const std::string where = "record.";
  if (!r.is_object()) wrong_type("a record", r, "a JSON object");
  ResultRecord rec;
  rec.type = string_field(r, "type", "", where);
  if (r.contains("case") && r["case"].is_string()) rec.case_id = r["case"].get<std::string>();
  if (r.contains("env") && r["env"].is_string()) rec.env = r["env"].get<std::string>();
  if (rec.type == "environment_unavailable" || rec.type == "environment_dropped")
    rec.reason = string_field(r, "reason", "", where);
  rec.round = int_field(r, "round", 0, where);
  if (rec.type == "sample") {
    const auto seconds = number_field(r, "seconds", where);
    if (!seconds || *seconds < 0)
      throw DataError(seconds ? fmt::format("a sample's seconds is {}, which is negative", *seconds)
                              : "a sample has no seconds");
    rec.seconds = *seconds;
    rec.phase = string_field(r, "phase", "", where);
    // Optional figures: anything but a finite number is ignored (a loss
    // that diverged is written as null).
    for (auto [key, out] : {std::pair{"work", &rec.work}, std::pair{"loss", &rec.loss}})
      if (const auto it = r.find(key); it != r.end() && it->is_number() && std::isfinite(it->get<double>()))
        *out = it->get<double>();
  } else if (rec.type == "command_startup") {
    const auto seconds = number_field(r, "seconds", where);
    if (!seconds || *seconds < 0)
      throw DataError(seconds ? fmt::format("a command's start-up seconds is {}, which is negative", *seconds)
                              : "a command's start-up has no seconds");
    rec.seconds = *seconds;
  } else if (rec.type == "metric_refused") {
    const auto count = number_field(r, "count", where);
    if (!count || *count < 1) throw DataError("a metric_refused record has no count of at least 1");
    rec.refused_count = static_cast<std::size_t>(*count);
    if (const auto values = r.find("values"); values != r.end() && values->is_array())
      for (const auto& v : *values)
        if (v.is_string()) rec.refused_values.push_back(v.get<std::string>());
  } else if (rec.type == "leftovers") {
    const auto processes = r.find("processes");
    if (processes == r.end() || !processes->is_array() || processes->empty())
      throw DataError("a leftovers record names no processes");
    for (const auto& p : *processes)
      rec.leftover_names.push_back(p.is_object() && p.contains("name") && p["name"].is_string()
                                       ? p["name"].get<std::string>()
                                       : std::string("?"));
    rec.ended_with = string_field(r, "ended_with", "SIGTERM", where);
  } else if (rec.type == "launch") {
    rec.ok = bool_field(r, "ok", false, where);
    rec.cause = string_field(r, "cause", "failed", where);
  } else if (rec.type == "fingerprint") {
    // dlcbench-probe's knows no data set: a command reads what it reads.
    if (const auto probe = r.find("probe"); probe != r.end() && probe->is_boolean() && probe->get<bool>())
      rec.dataset = "";
    if (const json* name = nested(r, "dataset", "name"); name && name->is_string()) rec.dataset = name->get<std::string>();
    if (const json* c = nested(r, "container", "in_container"); c && c->is_boolean()) rec.in_container = c->get<bool>();
    if (const json* fs = nested(r, "micro", "fs_type"); fs && fs->is_string()) rec.fs_type = fs->get<std::string>();
    // gpu-gemm's peak, gpu-copy's bandwidth limit.
    for (const char* key : {"estimated_peak_gflops", "estimated_limit_gb_per_s"})
      if (const json* limit = nested(r, "micro", key);
          limit && limit->is_number() && std::isfinite(limit->get<double>()) && limit->get<double>() > 0)
        rec.estimated_limit = limit->get<double>();
  }
  return rec;
}

}  // namespace dlcbench
