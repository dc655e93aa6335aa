// One benchmark case: what the worker trains or measures, and how.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace dlcbench {

inline constexpr const char* kSyntheticData = "synthetic";

struct CaseSpec {
  std::string workload = "fcn5";
  std::string backend = "torch";
  std::string device = "cpu";
  int batch = 64;
  int warmup = 5;
  int iters = 20;
  int threads = 1;
  std::uint64_t seed = 42;
  // "memory": batches come from the data set loaded before timing;
  // "disk": each step reads its batch from the data set's files, timed.
  std::string input = "memory";

  // Identifies the case in results and reports, e.g. "fcn5/torch/cpu/b64",
  // with "/disk" appended when batches are read from disk.
  std::string id() const;
  // Arguments that make `dlcbench worker` run this case; the data location is
  // added by the environment, which knows where the data is mounted.
  std::vector<std::string> worker_args() const;
};

void to_json(nlohmann::json& j, const CaseSpec& c);
void from_json(const nlohmann::json& j, CaseSpec& c);

}  // namespace dlcbench
