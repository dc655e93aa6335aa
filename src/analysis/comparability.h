// Like for like: before an overhead is reported, the fingerprints of both
// environments must show the same binary, libraries, threads and BLAS kernel.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlcbench {

struct Mismatch {
  std::string field;           // e.g. "blas.core"
  std::string baseline_value;  // as printed by the worker
  std::string other_value;
};

// The fields compared, as JSON pointers into a fingerprint line.
const std::vector<std::string>& compared_fields();

// Differences in the compared fields between two fingerprints.
std::vector<Mismatch> compare_fingerprints(const nlohmann::json& baseline, const nlohmann::json& other);

// "binary_sha256: host 1a2b.. vs docker 3c4d.."; one line per mismatch.
std::string describe_mismatches(const std::vector<Mismatch>& mismatches, const std::string& baseline_env,
                                const std::string& other_env);

}  // namespace dlcbench
