// Which differences between two environments are the likely causes of a
// significant overhead. A user's image differs from the host in many ways
// (its libraries, its variables, how it is isolated), each a possible
// cause; the counters say what moved (analysis/explanation.h: more user
// CPU, fewer busy CPUs, throttling, ...). A difference is likely where what
// it would change is what moved: a thread variable changes how many CPUs
// the work keeps busy, a library how much CPU it needs, a seccomp filter
// the time in the kernel. They are ranked by the milliseconds per batch of
// the cause they fit; those that fit nothing the counters claimed follow,
// as possible causes still.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/explanation.h"
#include "core/mismatch.h"

namespace dlcbench {

// What a fingerprint field is about, in the order a tie is broken in (a
// thread setting changes parallelism directly; a file system only when the
// work reads or writes).
enum class DifferenceKind {
  threads,  // OMP_NUM_THREADS and the like, the back end's and BLAS's thread counts
  cpus,     // affinity, CPU quota
  code,     // the libraries loaded, the binary, the BLAS library
  settings, // what tunes the libraries: BLAS kernel, thread and cache variables, the allocator's thresholds
  kernel,   // seccomp, speculation mitigations
  memory,   // /dev/shm, memlock, memory limit, transparent huge pages
  files,    // the file systems of the data and the scratch folder
  other,
};
DifferenceKind difference_kind(const std::string& field);
// "a thread setting", "the CPUs it may use", ...
const char* difference_kind_name(DifferenceKind kind);
// "threads", "cpus", ...: in the JSON report.
const char* difference_kind_key(DifferenceKind kind);

struct LikelyCause {
  Mismatch mismatch;
  DifferenceKind kind = DifferenceKind::other;
  // The claimed cause it fits, with that cause's milliseconds per batch;
  // none: it fits nothing the counters claimed.
  std::optional<Cause> fits;
  double ms = 0;
  int rank = 0;  // 1, 2, ... among those that fit a claimed cause; 0 for the rest
};

// The differences that are possible causes (Mismatch::possible_cause) of
// the overhead `e` explains, likeliest first; the shared libraries that
// differ ("libraries/NAME") as one, "libraries (N differ)", naming those
// that compute (BLAS, LAPACK, PyTorch, OpenMP, libm, ...) first. Empty unless the overhead is
// significant and explained (at least one cause claimed): without a
// measured cause no difference is likelier than another.
std::vector<LikelyCause> rank_likely_causes(const std::vector<Mismatch>& mismatches, const Explanation& e);

// "likely cause 1 (a thread setting; fits fewer CPUs kept busy, +41.0 ms
// per batch): variables/OMP_NUM_THREADS: host has none, docker has 1", or
// "possible cause (fits nothing measured): ..." for one that fits nothing.
std::string likely_cause_words(const LikelyCause& c, const std::string& baseline, const std::string& env,
                               const std::string& per);

}  // namespace dlcbench
