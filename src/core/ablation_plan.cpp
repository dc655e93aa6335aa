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

namespace {

std::vector<std::string> feature_names(const std::vector<AblationFeature>& features) {
  std::vector<std::string> names;
  for (AblationFeature f : features) names.emplace_back(ablation_feature_name(f));
  return names;
}

}  // namespace

std::string ablation_features_name(const std::vector<AblationFeature>& features) {
  return fmt::format("{}", fmt::join(feature_names(features), "+"));
}

void to_json(nlohmann::json& j, const AblationPlan& plan) {
  j = {{"of", plan.of}, {"variants", nlohmann::json::array()}, {"left_out", plan.left_out}};
  for (const auto& v : plan.variants)
    j["variants"].push_back({{"feature", ablation_feature_name(v.feature)}, {"env", v.label}, {"change", v.change}});
  j["factorial"] = plan.factorial;
  j["combinations"] = nlohmann::json::array();
  for (const auto& c : plan.combinations)
    j["combinations"].push_back({{"features", feature_names(c.features)}, {"env", c.label}});
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
    // Manifests written before the factorial design have neither field.
    plan.factorial = j.value("factorial", false);
    plan.combinations.clear();
    for (const auto& c : j.value("combinations", nlohmann::json::array())) {
      AblationCombination combination{{}, c.at("env").get<std::string>()};
      for (const auto& name : c.at("features")) {
        const auto feature = ablation_feature_from_name(name.get<std::string>());
        if (!feature) throw DataError(fmt::format("plan.ablation.combinations: unknown feature {}", name.dump()));
        combination.features.push_back(*feature);
      }
      plan.combinations.push_back(std::move(combination));
    }
    plan.left_out = j.value("left_out", std::vector<std::string>{});
  } catch (const nlohmann::json::exception& e) {
    throw DataError(fmt::format("plan.ablation is not readable: {}", e.what()));
  }
}

}  // namespace dlcbench
