#include "analysis/likely_causes.h"

#include <algorithm>
#include <initializer_list>
#include <iterator>

#include <fmt/format.h>

namespace dlcbench {
namespace {

bool starts_with_any(const std::string& field, std::initializer_list<const char*> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const char* p) { return field.rfind(p, 0) == 0; });
}

// The causes a difference of each kind can produce.
std::vector<Cause> causes_of(DifferenceKind kind) {
  switch (kind) {
    case DifferenceKind::threads: return {Cause::fewer_busy_cpus, Cause::run_queue_wait};
    case DifferenceKind::cpus: return {Cause::throttled, Cause::run_queue_wait, Cause::fewer_busy_cpus};
    // A library may bring its own threads (OpenBLAS's, an OpenMP runtime) or not.
    case DifferenceKind::code:
    case DifferenceKind::settings: return {Cause::more_user_cpu, Cause::more_cpu, Cause::fewer_busy_cpus};
    case DifferenceKind::kernel: return {Cause::more_system_cpu, Cause::more_cpu};
    case DifferenceKind::memory: return {Cause::more_system_cpu};
    case DifferenceKind::files: return {Cause::more_system_cpu, Cause::fewer_busy_cpus};
    case DifferenceKind::other: return {};
  }
  return {};
}

// Libraries that do a training's arithmetic: named first where many differ.
bool computes(const std::string& field) {
  for (const char* part : {"blas", "lapack", "torch", "gomp", "omp", "mkl", "dnnl", "cudnn", "cublas", "libm.",
                           "libm-", "libc.", "libstdc++", "tensorflow", "xla"})
    if (field.find(part) != std::string::npos) return true;
  return false;
}

// The shared libraries that differ ("libraries/NAME", one mismatch each)
// as one difference: which libraries the command loaded is one cause,
// however many files it spans. Those that compute are named first.
std::vector<Mismatch> with_libraries_grouped(const std::vector<Mismatch>& mismatches) {
  std::vector<Mismatch> out, libraries;
  for (const auto& m : mismatches) (m.field.rfind("libraries/", 0) == 0 ? libraries : out).push_back(m);
  if (libraries.size() < 2) {
    out.insert(out.end(), libraries.begin(), libraries.end());
    return out;
  }
  std::stable_partition(libraries.begin(), libraries.end(), [](const Mismatch& m) { return computes(m.field); });
  constexpr std::size_t kNamed = 4;
  std::vector<std::string> base, other;
  for (std::size_t i = 0; i < libraries.size() && i < kNamed; ++i) {
    // A value names the file the library resolved to, or "not loaded".
    const std::string name = libraries[i].field.substr(std::string("libraries/").size());
    auto shown = [&](const std::string& value) { return value == "not loaded" ? name + " not loaded" : value; };
    base.push_back(shown(libraries[i].baseline_value));
    other.push_back(shown(libraries[i].other_value));
  }
  const std::string more =
      libraries.size() > kNamed ? fmt::format(" and {} more", libraries.size() - kNamed) : std::string();
  Mismatch grouped = libraries.front();
  grouped.field = fmt::format("libraries ({} differ)", libraries.size());
  grouped.baseline_value = fmt::format("{}{}", fmt::join(base, "; "), more);
  grouped.other_value = fmt::format("{}{}", fmt::join(other, "; "), more);
  out.push_back(std::move(grouped));
  return out;
}

}  // namespace

DifferenceKind difference_kind(const std::string& field) {
  if (starts_with_any(field, {"variables/OMP_NUM_THREADS", "variables/OPENBLAS_NUM_THREADS",
                              "variables/MKL_NUM_THREADS", "backend/threads", "blas/threads"}))
    return DifferenceKind::threads;
  if (starts_with_any(field, {"cpu/", "cgroup/cpu"})) return DifferenceKind::cpus;
  if (starts_with_any(field, {"blas/core", "blas/config", "variables/", "isolation/thread_variables", "allocator/"}))
    return DifferenceKind::settings;
  if (starts_with_any(field, {"libraries", "command_libraries", "blas/", "backend/", "binary_sha256",
                              "dlcbench_version", "libc"}))
    return DifferenceKind::code;
  if (starts_with_any(field, {"isolation/seccomp", "isolation/speculation", "isolation/mitigations", "security"}))
    return DifferenceKind::kernel;
  if (starts_with_any(field, {"isolation/shm", "isolation/memlock", "isolation/thp", "cgroup/memory"}))
    return DifferenceKind::memory;
  if (starts_with_any(field, {"isolation/data_fs", "isolation/scratch_fs", "dataset/"})) return DifferenceKind::files;
  return DifferenceKind::other;
}

namespace {

// Each kind's key in the JSON report and its name in words.
struct DifferenceKindWords {
  DifferenceKind kind;
  const char* key;
  const char* name;
};
constexpr DifferenceKindWords kDifferenceKindWords[] = {
    {DifferenceKind::threads, "threads", "a thread setting"},
    {DifferenceKind::cpus, "cpus", "the CPUs it may use"},
    {DifferenceKind::code, "code", "the code it runs"},
    {DifferenceKind::settings, "settings", "a library's setting"},
    {DifferenceKind::kernel, "kernel", "the kernel's checks"},
    {DifferenceKind::memory, "memory", "memory"},
    {DifferenceKind::files, "files", "a file system"},
    {DifferenceKind::other, "other", "other"},
};

const DifferenceKindWords& words_of(DifferenceKind kind) {
  for (const auto& w : kDifferenceKindWords)
    if (w.kind == kind) return w;
  return kDifferenceKindWords[std::size(kDifferenceKindWords) - 1];
}

}  // namespace

const char* difference_kind_name(DifferenceKind kind) { return words_of(kind).name; }
const char* difference_kind_key(DifferenceKind kind) { return words_of(kind).key; }

std::vector<LikelyCause> rank_likely_causes(const std::vector<Mismatch>& mismatches, const Explanation& e) {
  std::vector<LikelyCause> out;
  if (e.status != ExplanationStatus::explained) return out;
  for (const auto& m : with_libraries_grouped(mismatches)) {
    if (!m.possible_cause) continue;
    LikelyCause c{m, difference_kind(m.field), std::nullopt, 0, 0};
    for (Cause cause : causes_of(c.kind))
      for (const auto& share : e.causes)
        if (share.cause == cause && share.claimed && (!c.fits || share.ms.difference > c.ms)) {
          c.fits = cause;
          c.ms = share.ms.difference;
        }
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const LikelyCause& a, const LikelyCause& b) {
    if (a.fits.has_value() != b.fits.has_value()) return a.fits.has_value();
    if (a.fits && a.ms != b.ms) return a.ms > b.ms;
    return a.kind < b.kind;
  });
  int rank = 0;
  for (auto& c : out) c.rank = c.fits ? ++rank : 0;
  return out;
}

std::string likely_cause_words(const LikelyCause& c, const std::string& baseline, const std::string& env,
                               const std::string& per) {
  const std::string what = fmt::format("{}: {} has {}, {} has {}", c.mismatch.field, baseline,
                                       c.mismatch.baseline_value.empty() ? "none" : c.mismatch.baseline_value, env,
                                       c.mismatch.other_value.empty() ? "none" : c.mismatch.other_value);
  if (!c.fits)
    return fmt::format("possible cause ({}; fits nothing the counters claimed): {}", difference_kind_name(c.kind), what);
  return fmt::format("likely cause {} ({}; fits {}, {:+.1f} ms per {}): {}; {}", c.rank, difference_kind_name(c.kind),
                     cause_name(*c.fits), c.ms, per, what, c.mismatch.fix);
}

}  // namespace dlcbench
