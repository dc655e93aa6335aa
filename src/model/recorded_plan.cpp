#include "model/recorded_plan.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_fields.h"
#include "model/container_options.h"
#include "model/environment_request.h"

namespace dlcbench {
namespace {

using nlohmann::json;
using json_fields::bool_field;
using json_fields::number_field;
using json_fields::string_field;
using json_fields::wrong_type;

const std::string kPlanField = "manifest.json: plan.";

// A number of rounds: a whole number from 0 to a million, so that a hand
// edit's 1e300 or -2 is refused rather than converted unchecked.
std::optional<int> rounds_field(const json& plan, const char* key) {
  const auto it = plan.find(key);
  if (it == plan.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0 || it->get<std::int64_t>() > 1'000'000)
    wrong_type(kPlanField + key, *it, "a number of rounds (a whole number from 0 to 1000000)");
  return static_cast<int>(it->get<std::int64_t>());
}

std::vector<std::string> labels_field(const json& plan) {
  const auto envs = plan.find("environments");
  if (envs == plan.end() || !envs->is_array())
    throw DataError("manifest.json: plan.environments is missing or not a list of environment labels");
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < envs->size(); ++i) {
    const json& e = (*envs)[i];
    if (!e.is_string()) wrong_type(fmt::format("{}environments[{}]", kPlanField, i), e, "an environment label");
    labels.push_back(e.get<std::string>());
  }
  return labels;
}

PlannedCase planned_case(const json& c, const std::string& name) {
  if (!c.is_object()) wrong_type(name, c, "an object");
  PlannedCase pc;
  const auto id = c.find("id");
  if (id == c.end() || !id->is_string()) throw DataError(fmt::format("{}.id is missing or not a string", name));
  pc.id = id->get<std::string>();
  pc.workload = string_field(c, "workload", "", name + ".");
  try {
    pc.spec = c.get<CaseSpec>();
  } catch (const std::exception&) {
    // A case recorded without every field (older manifests, tests): what is
    // known is its id and workload; `run --resume` refuses it.
    pc.spec = CaseSpec{};
    pc.spec.workload = pc.workload;
    pc.spec_complete = false;
  }
  return pc;
}

std::vector<PlannedCase> cases_field(const json& plan) {
  const auto cases = plan.find("cases");
  if (cases == plan.end() || !cases->is_array())
    throw DataError("manifest.json: plan.cases is missing or not a list of cases");
  std::vector<PlannedCase> read;
  for (std::size_t i = 0; i < cases->size(); ++i)
    read.push_back(planned_case((*cases)[i], fmt::format("{}cases[{}]", kPlanField, i)));
  return read;
}

// plan.requested_fields: {"docker:cpus=1": ["/cgroup/cpu_quota"], ...}.
std::optional<RequestedFields> requested_fields_field(const json& plan) {
  const auto fields = plan.find("requested_fields");
  if (fields == plan.end()) return std::nullopt;
  if (!fields->is_object()) wrong_type(kPlanField + "requested_fields", *fields, "an object of lists");
  RequestedFields read;
  for (const auto& [env, list] : fields->items()) {
    if (!list.is_array()) wrong_type(kPlanField + "requested_fields." + env, list, "a list of fields");
    auto& requested = read[env];  // an environment that asks for nothing keeps its empty list
    for (const auto& f : list) {
      if (!f.is_string()) wrong_type(kPlanField + "requested_fields." + env, f, "a field name");
      requested.push_back(f.get<std::string>());
    }
  }
  return read;
}

void read_limits(const json& plan, RecordedPlan& p) {
  p.runs = rounds_field(plan, "runs");
  p.max_runs = rounds_field(plan, "max_runs").value_or(0);
  p.until_cv = number_field(plan, "until_cv", kPlanField).value_or(0);
  p.precision = number_field(plan, "precision", kPlanField).value_or(0);
  p.max_time_seconds = number_field(plan, "max_time_seconds", kPlanField).value_or(0);
  p.margin = number_field(plan, "margin", kPlanField).value_or(kDefaultEquivalenceMargin);
  if (!(p.margin > 0 && p.margin < 1))
    throw DataError(fmt::format("manifest.json: plan.margin is {}, not a share between 0 and 1", p.margin));
  if (const auto timeout = number_field(plan, "case_timeout_seconds", kPlanField)) {
    if (!(*timeout > 0) || *timeout > 1e9)
      wrong_type(kPlanField + "case_timeout_seconds", plan.at("case_timeout_seconds"), "a time limit in seconds");
    p.case_timeout_seconds = *timeout;
  }
}

}  // namespace

void to_json(json& j, const RecordedPlan& p) {
  j = json::object();
  j["cases"] = json::array();
  for (const auto& c : p.cases) {
    json recorded = c.spec_complete ? json(c.spec) : json{{"workload", c.workload}};
    recorded["id"] = c.id;  // as recorded: a version that computes it differently still finds its records
    j["cases"].push_back(std::move(recorded));
  }
  j["environments"] = p.environments;
  if (!p.written.empty()) j["environments_written"] = p.written;
  if (p.runs) j["runs"] = *p.runs;
  j["until_cv"] = p.until_cv;
  j["precision"] = p.precision;
  j["max_time_seconds"] = p.max_time_seconds;
  j["max_runs"] = p.max_runs;
  j["margin"] = p.margin;
  if (p.calibration) j["calibration"] = true;
  j["hold_samples"] = p.hold_samples;
  if (p.seed) j["seed"] = *p.seed;
  if (p.data) j["data"] = *p.data;
  if (p.case_timeout_seconds) j["case_timeout_seconds"] = *p.case_timeout_seconds;
  j["baseline"] = p.baseline;
  j["allow_mismatch"] = p.allow_mismatch;
  if (p.ablation) j["ablation"] = *p.ablation;
  j["requested_fields"] = p.requested_fields;
}

RecordedPlan read_recorded_plan(const json& plan) {
  if (!plan.is_object()) wrong_type("manifest.json: plan", plan, "an object");
  RecordedPlan p;
  p.cases = cases_field(plan);
  p.environments = labels_field(plan);
  if (const auto written = plan.find("environments_written"); written != plan.end()) {
    if (!written->is_object()) wrong_type(kPlanField + "environments_written", *written, "an object of texts");
    for (const auto& [label, text] : written->items()) {
      if (!text.is_string()) wrong_type(kPlanField + "environments_written." + label, text, "an environment as written");
      p.written[label] = text.get<std::string>();
    }
  }
  read_limits(plan, p);
  p.calibration = bool_field(plan, "calibration", false, kPlanField);
  p.hold_samples = bool_field(plan, "hold_samples", false, kPlanField);
  if (const auto seed = plan.find("seed"); seed != plan.end() && !seed->is_null()) {
    if (!seed->is_number_unsigned()) wrong_type(kPlanField + "seed", *seed, "a whole number");
    p.seed = seed->get<std::uint64_t>();
  }
  if (plan.contains("data")) p.data = string_field(plan, "data", "", kPlanField);
  p.baseline = string_field(plan, "baseline", "host", kPlanField);
  p.allow_mismatch = bool_field(plan, "allow_mismatch", false, kPlanField);
  p.requested_fields = requested_fields_field(plan).value_or(requested_fields_of(p));
  if (const auto ablation = plan.find("ablation"); ablation != plan.end()) {
    try {
      p.ablation = ablation->get<AblationPlan>();
    } catch (const nlohmann::json::exception& e) {
      throw DataError(fmt::format("manifest.json: plan.ablation cannot be read: {}", e.what()));
    }
  }
  return p;
}

RequestedFields requested_fields_of(const RecordedPlan& plan) {
  RequestedFields fields;
  for (const auto& label : plan.environments) {
    const auto one = requested_fields_of(std::vector<std::string>{plan.written_as(label)});
    fields[label] = one.empty() ? std::vector<std::string>{} : one.begin()->second;
  }
  return fields;
}

RequestedFields requested_fields_of(const std::vector<std::string>& labels) {
  RequestedFields fields;
  for (const auto& label : labels) {
    try {
      fields[label] = fields_changed_by(parse_environment_request(label).options);
    } catch (const std::exception&) {
      // A label this version no longer parses: nothing counts as asked for.
      fields[label] = {};
    }
  }
  return fields;
}

}  // namespace dlcbench
