#include "model/plan.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "core/errors.h"

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

RecordedPlan record_of(const Plan& p) {
  RecordedPlan r;
  for (const auto& c : p.cases) r.cases.push_back({.id = c.id(), .workload = c.workload, .spec = c});
  for (const auto& e : p.environments) {
    r.environments.push_back(e.text);
    if (!e.written.empty() && e.written != e.text) r.written[e.text] = e.written;
  }
  r.runs = p.runs;
  r.until_cv = p.until_cv;
  r.precision = p.precision;
  r.max_time_seconds = p.max_time_seconds;
  r.max_runs = p.max_runs;
  r.margin = p.margin;
  r.calibration = p.calibration;
  r.hold_samples = p.hold_samples;
  r.seed = p.seed;
  r.data = p.data;
  r.case_timeout_seconds = p.case_timeout_seconds;
  r.baseline = p.baseline;
  r.allow_mismatch = p.allow_mismatch;
  // Written at plan time, so the analysis needs no knowledge of the runtimes'
  // options to tell a difference asked for from one nobody asked for.
  r.requested_fields = requested_fields_of(r);
  r.ablation = p.ablation;
  return r;
}

void to_json(nlohmann::json& j, const Plan& p) { j = record_of(p); }

Plan plan_to_resume(const RecordedPlan& r) {
  Plan p;
  for (const auto& c : r.cases) {
    if (!c.spec_complete)
      throw std::runtime_error(fmt::format("the manifest's plan records case {} without all its fields", c.id));
    if (c.spec.id() != c.id)
      throw std::runtime_error(fmt::format("case {} is identified as {} by this dlcbench", c.id, c.spec.id()));
    p.cases.push_back(c.spec);
  }
  try {
    for (const auto& label : r.environments) p.environments.push_back(parse_environment_request(r.written_as(label)));
  } catch (const UsageError& e) {
    throw std::runtime_error(fmt::format("the manifest's plan is not valid for this dlcbench: {}", e.what()));
  }
  if (!r.runs || !r.seed || !r.data || !r.case_timeout_seconds)
    throw std::runtime_error("the manifest's plan lacks its rounds, seed, data or case time limit");
  p.runs = *r.runs;
  p.until_cv = r.until_cv;
  p.precision = r.precision;
  p.max_time_seconds = r.max_time_seconds;
  p.max_runs = r.max_runs;
  p.margin = r.margin;
  p.calibration = r.calibration;
  p.hold_samples = r.hold_samples;
  p.seed = *r.seed;
  p.data = *r.data;
  p.case_timeout_seconds = *r.case_timeout_seconds;
  p.baseline = r.baseline;
  p.allow_mismatch = r.allow_mismatch;
  p.ablation = r.ablation;
  if (p.cases.empty() || p.environments.empty() || p.runs < 1)
    throw std::runtime_error("the manifest's plan has no cases, no environments or no rounds");
  return p;
}

}  // namespace dlcbench
