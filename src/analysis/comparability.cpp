#include "analysis/comparability.h"

#include <fmt/format.h>

namespace dlcbench {
namespace {

std::string value_at(const nlohmann::json& j, const std::string& pointer) {
  const nlohmann::json::json_pointer p(pointer);
  if (!j.contains(p)) return "(missing)";
  const auto& v = j.at(p);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

const std::vector<std::string>& compared_fields() {
  // What must be equal for a difference in speed to be the environment's
  // doing: the code, the libraries, the parallelism and the data.
  static const std::vector<std::string> fields = {
      "/binary_sha256",
      "/dlcbench_version",
      "/libc",
      "/backend/library",
      "/backend/version",
      "/backend/threads/requested",
      "/backend/threads/intra_op",
      "/blas/library",
      "/blas/core",
      "/blas/config",
      "/blas/threads",
      "/allocator/mmap_threshold",
      "/allocator/trim_threshold",
      "/variables/OMP_NUM_THREADS",
      "/variables/OPENBLAS_NUM_THREADS",
      "/variables/OPENBLAS_CORETYPE",
      "/cpu/affinity_count",
      "/model/parameters",
      "/dataset/name",
      "/dataset/synthetic",
      "/dataset/examples",
  };
  return fields;
}

std::vector<Mismatch> compare_fingerprints(const nlohmann::json& baseline, const nlohmann::json& other) {
  std::vector<Mismatch> out;
  for (const auto& field : compared_fields()) {
    auto a = value_at(baseline, field), b = value_at(other, field);
    if (a != b) out.push_back({field.substr(1), a, b});
  }
  return out;
}

std::string describe_mismatches(const std::vector<Mismatch>& mismatches, const std::string& baseline_env,
                                const std::string& other_env) {
  std::string text;
  for (const auto& m : mismatches)
    text += fmt::format("  {}: {} has {}, {} has {}\n", m.field, baseline_env, m.baseline_value, other_env,
                        m.other_value);
  return text;
}

}  // namespace dlcbench
