#include "analysis/run_records.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "core/errors.h"

namespace dlcbench {
namespace {

using nlohmann::json;

// A short, printable form of a value for an error message.
std::string shown(const json& value) {
  std::string text = value.dump(-1, ' ', true, json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

[[noreturn]] void wrong_type(const std::string& where, const json& value, const char* expected) {
  throw DataError(fmt::format("{} is {}, not {}", where, shown(value), expected));
}

// Each reader: the object's field `key`, `fallback` when absent or null.
// `prefix` + `key` names the field in errors ("manifest.json: plan.baseline").
std::string string_field(const json& object, const char* key, const std::string& fallback, const std::string& prefix) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  if (!it->is_string()) wrong_type(prefix + key, *it, "a string");
  return it->get<std::string>();
}

bool bool_field(const json& object, const char* key, bool fallback, const std::string& prefix) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) wrong_type(prefix + key, *it, "true or false");
  return it->get<bool>();
}

// A whole number that fits an int: a float such as 1e300 would be undefined
// behaviour to convert.
int int_field(const json& object, const char* key, int fallback, const std::string& prefix) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  const bool fits = (it->is_number_unsigned() &&
                     it->get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())) ||
                    (it->is_number_integer() && !it->is_number_unsigned() &&
                     it->get<std::int64_t>() >= std::numeric_limits<int>::min() &&
                     it->get<std::int64_t>() <= std::numeric_limits<int>::max());
  if (!fits) wrong_type(prefix + key, *it, "a whole number in the range of int");
  return static_cast<int>(it->get<std::int64_t>());
}

std::optional<double> number_field(const json& object, const char* key, const std::string& prefix) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (!it->is_number() || !std::isfinite(it->get<double>())) wrong_type(prefix + key, *it, "a finite number");
  return it->get<double>();
}

// object[a][b] if both levels are objects holding them; else nullptr.
const json* nested(const json& object, const char* a, const char* b) {
  const auto outer = object.find(a);
  if (outer == object.end() || !outer->is_object()) return nullptr;
  const auto inner = outer->find(b);
  return inner == outer->end() ? nullptr : &*inner;
}

}  // namespace

ManifestPlan read_manifest_plan(const json& manifest) {
  if (!manifest.is_object() || !manifest.contains("plan") || !manifest["plan"].is_object())
    throw DataError("manifest.json has no plan: it is not a dlcbench results folder's manifest");
  ManifestPlan m;
  m.schema_version = int_field(manifest, "schema_version", 1, "manifest.json: ");
  m.status = string_field(manifest, "status", "unknown", "manifest.json: ");
  if (const int launches = int_field(manifest, "launches", -1, "manifest.json: "); launches >= 0) m.launches = launches;
  const json& plan = manifest.at("plan");
  const std::string where = "manifest.json: plan.";
  m.baseline = string_field(plan, "baseline", "host", where);
  m.allow_mismatch = bool_field(plan, "allow_mismatch", false, where);

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
  } else if (rec.type == "launch") {
    rec.ok = bool_field(r, "ok", false, where);
    rec.cause = string_field(r, "cause", "failed", where);
  } else if (rec.type == "fingerprint") {
    if (const json* name = nested(r, "dataset", "name"); name && name->is_string()) rec.dataset = name->get<std::string>();
    if (const json* c = nested(r, "container", "in_container"); c && c->is_boolean()) rec.in_container = c->get<bool>();
    if (const json* fs = nested(r, "micro", "fs_type"); fs && fs->is_string()) rec.fs_type = fs->get<std::string>();
    if (const json* peak = nested(r, "micro", "estimated_peak_gflops");
        peak && peak->is_number() && std::isfinite(peak->get<double>()) && peak->get<double>() > 0)
      rec.estimated_peak_gflops = peak->get<double>();
  }
  return rec;
}

}  // namespace dlcbench
