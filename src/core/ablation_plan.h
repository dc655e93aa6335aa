// The ablation of `dlcbench explain` as a plan records it: the environment
// explained and its variants, each with one isolation feature changed
// (orchestrator/ablation.h makes them; analysis/ablation_shares.h reads
// them back from the manifest).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlcbench {

enum class AblationFeature { seccomp, network, ipc, pid, limits, scratch, platform, file_access, overlay };

// "seccomp", "network", ..., "file-access": as --features names them.
const char* ablation_feature_name(AblationFeature feature);
std::optional<AblationFeature> ablation_feature_from_name(const std::string& name);
const std::vector<AblationFeature>& all_ablation_features();

struct AblationVariant {
  AblationFeature feature = AblationFeature::seccomp;
  std::string label;   // the variant's environment, e.g. "docker:seccomp=unconfined"
  std::string change;  // in words: "seccomp unconfined instead of the engine's default profile"
};

struct AblationPlan {
  std::string of;  // the environment explained, as the user wrote it
  std::vector<AblationVariant> variants;
  // Features left out of the default set, each with why ("runsc: gVisor's
  // kernel keeps its own PID namespace").
  std::vector<std::string> left_out;
};

// As the manifest's plan records it, and back (DataError naming the field).
void to_json(nlohmann::json& j, const AblationPlan& plan);
void from_json(const nlohmann::json& j, AblationPlan& plan);

}  // namespace dlcbench
