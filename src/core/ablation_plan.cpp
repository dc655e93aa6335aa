#include "core/ablation_plan.h"

#include <fmt/format.h>

#include "core/errors.h"

namespace dlcbench {
namespace {

struct FeatureInfo {
  AblationFeature feature;
  const char* name;
};

constexpr FeatureInfo kAblationFeatures[] = {
    {AblationFeature::seccomp, "seccomp"},         {AblationFeature::network, "network"},
    {AblationFeature::ipc, "ipc"},                 {AblationFeature::pid, "pid"},
    {AblationFeature::limits, "limits"},           {AblationFeature::scratch, "scratch"},
    {AblationFeature::platform, "platform"},       {AblationFeature::file_access, "file-access"},
    {AblationFeature::overlay, "overlay"},
};

}  // namespace

const char* ablation_feature_name(AblationFeature feature) {
  for (const auto& f : kAblationFeatures)
    if (f.feature == feature) return f.name;
  return "?";
}

std::optional<AblationFeature> ablation_feature_from_name(const std::string& name) {
  for (const auto& f : kAblationFeatures)
    if (name == f.name) return f.feature;
  return std::nullopt;
}

const std::vector<AblationFeature>& all_ablation_features() {
  static const std::vector<AblationFeature> all = [] {
    std::vector<AblationFeature> v;
    for (const auto& f : kAblationFeatures) v.push_back(f.feature);
    return v;
  }();
  return all;
}

void to_json(nlohmann::json& j, const AblationPlan& plan) {
  j = {{"of", plan.of}, {"variants", nlohmann::json::array()}, {"left_out", plan.left_out}};
  for (const auto& v : plan.variants)
    j["variants"].push_back({{"feature", ablation_feature_name(v.feature)}, {"env", v.label}, {"change", v.change}});
}

void from_json(const nlohmann::json& j, AblationPlan& plan) {
  try {
    plan.of = j.at("of").get<std::string>();
    plan.variants.clear();
    for (const auto& v : j.at("variants")) {
      const auto feature = ablation_feature_from_name(v.at("feature").get<std::string>());
      if (!feature) throw DataError(fmt::format("plan.ablation: unknown feature {}", v.at("feature").dump()));
      plan.variants.push_back({*feature, v.at("env").get<std::string>(), v.at("change").get<std::string>()});
    }
    plan.left_out = j.value("left_out", std::vector<std::string>{});
  } catch (const nlohmann::json::exception& e) {
    throw DataError(fmt::format("plan.ablation is not readable: {}", e.what()));
  }
}

}  // namespace dlcbench
