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
  // A difference in how the environment isolates the worker (seccomp,
  // /dev/shm, file systems, ...): a container differs from the host in these
  // by design, so they never stop a comparison, but a report names them as
  // possible causes of an overhead.
  bool possible_cause = false;
};

// {"field", "baseline_value", "other_value", "requested", "blocking", "fix"},
// and "possible_cause": true where it is set (left out when false, so the
// mismatches of older runs serialise as they did).
void to_json(nlohmann::json& j, const Mismatch& m);
// Also reads the keys manifests of schema version 1 wrote ("baseline",
// "value", no "fix"); "possible_cause" is false when absent. Throws
// DataError naming a field of the wrong type.
void from_json(const nlohmann::json& j, Mismatch& m);

}  // namespace dlcbench
