// A difference between the fingerprints of two environments, as the
// preflight records it in the manifest and the reports show it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace dlcbench {

struct Mismatch {
  std::string field;           // e.g. "blas/core"
  std::string baseline_value;  // as printed by the worker
  std::string other_value;
  bool requested = false;      // an environment option asked for it
  bool blocking = true;        // false: shown, but cannot change the speed by itself
  std::string fix;             // how to make the two equal
};

// {"field", "baseline_value", "other_value", "requested", "blocking", "fix"}.
void to_json(nlohmann::json& j, const Mismatch& m);
// Also reads the keys manifests of schema version 1 wrote ("baseline",
// "value", no "fix"). Throws DataError naming a field of the wrong type.
void from_json(const nlohmann::json& j, Mismatch& m);

}  // namespace dlcbench
