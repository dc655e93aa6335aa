#include "model/plan.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "core/errors.h"
#include "model/container_options.h"

namespace dlcbench {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) items.push_back(item);
  return items;
}

std::vector<std::string> split_workload_list(const std::string& text) {
  std::vector<std::string> items;
  for (const auto& item : split_list(text)) {
    const auto colon = item.find(':'), eq = item.find('=');
    const bool continues = !items.empty() && eq != std::string::npos && (colon == std::string::npos || eq < colon) &&
                           items.back().find(':') != std::string::npos;
    if (continues) items.back() += "," + item;
    else items.push_back(item);
  }
  return items;
}

std::vector<std::vector<std::size_t>> round_orders(std::size_t environments, int runs,
                                                   std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<std::size_t>> orders;
  for (int r = 0; r < runs; ++r) {
    std::vector<std::size_t> order(environments);
    std::iota(order.begin(), order.end(), std::size_t{0});
    // Fisher-Yates with our own draw: std::shuffle's use of the generator is
    // not specified, and the recorded order must be reproducible everywhere.
    for (std::size_t i = order.size(); i > 1; --i)
      std::swap(order[i - 1], order[rng() % i]);
    orders.push_back(std::move(order));
  }
  return orders;
}

void to_json(nlohmann::json& j, const Plan& p) {
  j["cases"] = p.cases;
  j["environments"] = nlohmann::json::array();
  for (const auto& e : p.environments) j["environments"].push_back(e.text);
  j["runs"] = p.runs;
  j["until_cv"] = p.until_cv;
  j["precision"] = p.precision;
  j["max_time_seconds"] = p.max_time_seconds;
  j["max_runs"] = p.max_runs;
  j["margin"] = p.margin;
  if (p.calibration) j["calibration"] = true;
  j["hold_samples"] = p.hold_samples;
  j["seed"] = p.seed;
  j["data"] = p.data;
  j["case_timeout_seconds"] = p.case_timeout_seconds;
  j["baseline"] = p.baseline;
  j["allow_mismatch"] = p.allow_mismatch;
  if (p.ablation) j["ablation"] = *p.ablation;
  // Written at plan time, so the analysis needs no knowledge of the runtimes'
  // options to tell a difference asked for from one nobody asked for.
  std::vector<std::string> labels;
  for (const auto& e : p.environments) labels.push_back(e.text);
  j["requested_fields"] = requested_fields_of(labels);
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

ManifestPlan read_plan_of_run(const Manifest& manifest) {
  ManifestPlan plan = read_manifest_plan(manifest);
  if (!plan.requested_fields_recorded) plan.requested_fields = requested_fields_of(plan.environments);
  return plan;
}

Plan plan_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("the manifest has no plan");
  Plan p;
  try {
    for (const auto& c : j.at("cases")) {
      CaseSpec spec = c.get<CaseSpec>();
      const std::string recorded = c.at("id").get<std::string>();
      if (spec.id() != recorded)
        throw std::runtime_error(fmt::format("case {} is identified as {} by this dlcbench", recorded, spec.id()));
      p.cases.push_back(std::move(spec));
    }
    // Each label as recorded, "#2" suffixes included, so labels match results.jsonl.
    for (const auto& e : j.at("environments")) p.environments.push_back(parse_environment_request(e.get<std::string>()));
    // Rounds as whole numbers in range: nlohmann would convert 1e300 to an int unchecked.
    auto rounds = [&](const char* key, bool required) {
      if (!required && !j.contains(key)) return 0;
      const auto& v = j.at(key);
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > 1'000'000)
        throw std::runtime_error(fmt::format("the manifest's plan has {} = {}, not a number of rounds", key, v.dump()));
      return static_cast<int>(v.get<std::int64_t>());
    };
    p.runs = rounds("runs", true);
    p.until_cv = j.value("until_cv", 0.0);
    p.precision = j.value("precision", 0.0);
    p.max_time_seconds = j.value("max_time_seconds", 0.0);
    p.max_runs = rounds("max_runs", false);
    p.margin = j.value("margin", kDefaultEquivalenceMargin);
    p.calibration = j.value("calibration", false);
    p.hold_samples = j.value("hold_samples", false);
    if (!(p.margin > 0 && p.margin < 1))
      throw std::runtime_error(fmt::format("the manifest's plan has margin = {}, not a share between 0 and 1", p.margin));
    if (!j.at("seed").is_number_integer())
      throw std::runtime_error("the manifest's plan has a seed that is not a whole number");
    p.seed = j.at("seed").get<std::uint64_t>();
    p.data = j.at("data").get<std::string>();
    p.case_timeout_seconds = j.at("case_timeout_seconds").get<double>();
    if (!(p.case_timeout_seconds > 0) || p.case_timeout_seconds > 1e9)
      throw std::runtime_error(fmt::format("the manifest's plan has case_timeout_seconds = {}, not a time limit",
                                           j.at("case_timeout_seconds").dump()));
    p.baseline = j.at("baseline").get<std::string>();
    p.allow_mismatch = j.value("allow_mismatch", false);
    if (j.contains("ablation")) p.ablation = j.at("ablation").get<AblationPlan>();
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("the manifest's plan cannot be read: {}", e.what()));
  } catch (const DataError& e) {
    throw std::runtime_error(fmt::format("the manifest's plan cannot be read: {}", e.what()));
  } catch (const UsageError& e) {
    throw std::runtime_error(fmt::format("the manifest's plan is not valid for this dlcbench: {}", e.what()));
  }
  if (p.cases.empty() || p.environments.empty() || p.runs < 1)
    throw std::runtime_error("the manifest's plan has no cases, no environments or no rounds");
  return p;
}

}  // namespace dlcbench
