// Like for like: before an overhead is reported, the fingerprints of both
// environments must show the same binary, libraries, threads, BLAS kernel,
// CPUs and limits. A difference the user asked for (docker:cpus=1) is shown
// as such; one nobody asked for stops the comparison.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/mismatch.h"

namespace dlcbench {

struct ComparedField {
  std::string pointer;  // JSON pointer into a fingerprint line
  bool blocking;
  std::string fix;
  // How the environment isolates the worker (/isolation/...): never blocking,
  // but named in reports as a possible cause of an overhead.
  bool possible_cause = false;
  // Every kernel has it, so null (or an object of nulls) means the
  // environment could not read it (gVisor shows no speculation controls, no
  // vulnerabilities and no huge-page settings): unknown, not different.
  bool null_is_unknown = false;
};

// How a report names a difference in isolation (Mismatch::possible_cause).
inline constexpr const char* kPossibleCauseWords = "differs by isolation, a possible cause of an overhead";

// The fields compared.
const std::vector<ComparedField>& compared_fields();

// Differences in the compared fields between two fingerprints. Fields in
// `requested` (JSON pointers, from the environment options of either side)
// are marked as asked for.
std::vector<Mismatch> compare_fingerprints(const nlohmann::json& baseline, const nlohmann::json& other,
                                           const std::vector<std::string>& requested = {});

// A user's command (`run -- COMMAND`), fingerprinted by dlcbench-probe: its
// image is expected to differ from the host, so every difference is a
// possible cause of an overhead, never a reason to stop; the shared
// libraries its processes loaded are compared one by one ("libraries/
// libopenblas.so.0: host has libopenblasp-r0.3.21.so (build id ...), docker
// has ..."), from the probe's "libraries" lists under "command_libraries".
std::vector<Mismatch> compare_command_fingerprints(const nlohmann::json& baseline, const nlohmann::json& other,
                                                   const std::vector<std::string>& requested = {});

// True when a mismatch nobody asked for could change the speed. Differences
// in isolation (possible causes) never stop a comparison.
bool stops_comparison(const std::vector<Mismatch>& mismatches);
// One difference that stops it: blocking, asked for by nobody, and not one
// containers have by design.
bool stops_comparison(const Mismatch& mismatch);

// One mismatch in words: "blas/core: host has Zen, docker has Haswell (not asked for; fix: ...)".
std::string describe_mismatch(const Mismatch& m, const std::string& baseline_env, const std::string& other_env);

// One line per mismatch: "  blas/core: host has Zen, docker has Haswell (not asked for; fix: ...)".
std::string describe_mismatches(const std::vector<Mismatch>& mismatches, const std::string& baseline_env,
                                const std::string& other_env);

}  // namespace dlcbench
