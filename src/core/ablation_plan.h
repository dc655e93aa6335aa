// The ablation of `dlcbench explain` as a plan records it: the environment
// explained and its variants, each with one isolation feature changed
// (orchestrator/ablation.h makes them; analysis/ablation_shares.h reads
// them back from the manifest).
#pragma once

#include <cstddef>
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
// "seccomp+network": the features of a factorial cell.
std::string ablation_features_name(const std::vector<AblationFeature>& features);

struct AblationVariant {
  AblationFeature feature = AblationFeature::seccomp;
  std::string label;   // the variant's environment, e.g. "docker:seccomp=unconfined"
  std::string change;  // in words: "seccomp unconfined instead of the engine's default profile"
};

// Several features changed at once: a cell of the full factorial design.
struct AblationCombination {
  std::vector<AblationFeature> features;  // two or more, in the plan's order
  std::string label;                      // e.g. "docker:ipc=host,seccomp=unconfined"
};

struct AblationPlan {
  std::string of;  // the environment explained, as the user wrote it
  std::vector<AblationVariant> variants;
  // With at most kMaxFactorialFeatures variants the plan is a full
  // factorial: every combination of two or more of them is run too, so that
  // each feature's Shapley share and the residual (all of them changed,
  // against the baseline) can be computed. Empty with one variant.
  bool factorial = false;
  std::vector<AblationCombination> combinations;
  // Features left out of the default set, each with why ("runsc: gVisor's
  // kernel keeps its own PID namespace").
  std::vector<std::string> left_out;
};

// 2^3 = 8 environments besides the baseline: beyond that a full factorial
// costs more launches than a user waits for.
inline constexpr std::size_t kMaxFactorialFeatures = 3;

// As the manifest's plan records it, and back (DataError naming the field).
void to_json(nlohmann::json& j, const AblationPlan& plan);
void from_json(const nlohmann::json& j, AblationPlan& plan);

}  // namespace dlcbench
