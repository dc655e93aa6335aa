#include "analysis/comparability.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/fingerprint.h"
#include "core/words.h"

namespace dlcbench {
namespace {

std::string value_at(const nlohmann::json& j, const std::string& pointer) {
  const nlohmann::json::json_pointer p(pointer);
  if (!j.contains(p)) return "(missing)";
  const auto& v = j.at(p);
  if (v.is_null()) return "none";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// Null, or an object whose every value is null: the fact could not be read.
bool unreadable(const nlohmann::json& j, const std::string& pointer) {
  const nlohmann::json::json_pointer p(pointer);
  if (!j.contains(p)) return false;  // an older fingerprint: compared as before
  const auto& v = j.at(p);
  if (v.is_null()) return true;
  return v.is_object() && !v.empty() && std::all_of(v.begin(), v.end(), [](const nlohmann::json& x) { return x.is_null(); });
}

// "libfoo.so.1 1234, libbar.so 99" present in `a` and not in `b`; "none" if nothing.
std::string only_in(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<std::string> out;
  for (const auto& x : a)
    if (std::find(b.begin(), b.end(), x) == b.end()) out.push_back(x.is_string() ? x.get<std::string>() : x.dump());
  if (out.empty()) return "nothing else";
  constexpr std::size_t kShown = 6;
  const std::size_t more = out.size() > kShown ? out.size() - kShown : 0;
  out.resize(std::min(out.size(), kShown));
  return fmt::format("also {}{}", fmt::join(out, ", "), more ? fmt::format(" and {} more", more) : "");
}

// "spectre_v2=Mitigation: ...; mds=none": the keys of `a` whose values
// differ in `b` (or that `b` lacks), as `a` has them.
std::string differing_keys(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<std::string> out;
  auto text = [](const nlohmann::json& v) { return v.is_null() ? std::string("none") : v.is_string() ? v.get<std::string>() : v.dump(); };
  for (const auto& [key, value] : a.items())
    if (!b.contains(key) || b.at(key) != value) out.push_back(key + "=" + text(value));
  for (const auto& [key, value] : b.items())
    if (!a.contains(key)) out.push_back(key + "=none");
  return out.empty() ? "the same" : fmt::format("{}", fmt::join(out, "; "));
}

constexpr const char* kSameImage =
    "let dlcbench build the image from its own binary (leave image= or rootfs= out), or rebuild yours from this "
    "dlcbench";

}  // namespace

const std::vector<ComparedField>& compared_fields() {
  // What must be equal for a difference in speed to be the environment's
  // doing: the code, the libraries, the parallelism, the CPUs and the data.
  static const std::vector<ComparedField> fields = [] {
    std::vector<ComparedField> f = {
        {"/binary_sha256", true, kSameImage},
        {"/dlcbench_version", true, kSameImage},
        {"/libc", true, kSameImage},
        {"/libraries/digest", true, kSameImage},
        {"/backend/library", true, kSameImage},
        {"/backend/version", true, kSameImage},
        {"/backend/threads/requested", true, "pass the same --threads to every environment (dlcbench run does)"},
        {"/backend/threads/intra_op", true,
         "the library chose a different thread count: pass --threads explicitly, or give both the same CPUs"},
        {"/blas/library", true, kSameImage},
        {"/blas/core", true,
         "OpenBLAS picked a different kernel: set OPENBLAS_CORETYPE (e.g. OPENBLAS_CORETYPE=Haswell) before "
         "`dlcbench run`, which passes it to every environment"},
        {"/blas/config", true, kSameImage},
        {"/blas/threads", true, "pass --threads explicitly so OpenBLAS uses the same count everywhere"},
        {"/allocator/mmap_threshold", true, "unset MALLOC_MMAP_THRESHOLD_ in one of the environments, or set it in both"},
        {"/allocator/trim_threshold", true, "unset MALLOC_TRIM_THRESHOLD_ in one of the environments, or set it in both"},
        {"/variables/OMP_NUM_THREADS", true, "pass --threads; do not set OMP_NUM_THREADS inside one image only"},
        {"/variables/OPENBLAS_NUM_THREADS", true, "pass --threads; do not set OPENBLAS_NUM_THREADS inside one image only"},
        {"/variables/OPENBLAS_CORETYPE", true, "set OPENBLAS_CORETYPE before `dlcbench run`, not inside one image"},
        {"/cpu/affinity", true,
         "give both the same CPUs: cpuset= on the container, or run dlcbench under `taskset -c LIST`"},
        {"/cpu/affinity_count", true, "give both the same CPUs: cpuset= on the container, or taskset for the host"},
        {"/cgroup/cpu_quota", true, "give the container the same quota as the baseline with cpus=N, or lift the quota"},
        // A memory limit slows nothing until the workload nears it.
        {"/cgroup/memory_limit_bytes", false, "give both the same limit with memory=SIZE"},
        {"/model/parameters", true, kSameImage},
        {"/dataset/name", true, "pass the same --data to every environment (dlcbench run does)"},
        {"/dataset/synthetic", true, "pass the same --data to every environment (dlcbench run does)"},
        {"/dataset/examples", true, "the data set differs between environments: check the data folder's files"},
        {"/dataset/sha256", true,
         "the data files differ between environments (or changed during the run): give every environment the same "
         "--data folder, and `dlcbench data fetch --force NAME` if its files were changed"},
    };
    for (const char* v : kCudaVariables)
      f.push_back({fmt::format("/variables/{}", v), true,
                   fmt::format("set {} before `dlcbench run`, which passes it to every environment, not inside one "
                               "image",
                               v)});
    // How the environment isolates the worker. A container differs from the
    // host in these by design (that is part of what it costs), so they never
    // stop a comparison; a report names them as possible causes. The IPC
    // namespace is recorded only: every container has its own.
    const std::vector<ComparedField> isolation = {
        {"/isolation/seccomp", false,
         "a seccomp filter checks every system call: seccomp=unconfined on the container (docker, podman) shows what "
         "the filter costs"},
        {"/isolation/speculation", false,
         "the process runs with other speculation controls; a seccomp filter can switch the Speculative Store Bypass "
         "mitigation on for it (kernels before 5.16, or spec_store_bypass_disable=seccomp): seccomp=unconfined on "
         "the container shows what that costs"},
        {"/isolation/mitigations", false,
         "the kernels mitigate CPU vulnerabilities differently (/sys/devices/system/cpu/vulnerabilities): compare on "
         "the same kernel booted with the same mitigations= options"},
        {"/isolation/shm_bytes", false,
         "/dev/shm has another size (Docker and Podman give a container 64 MiB): give the container the host's size "
         "with shm=SIZE (e.g. shm=1g), or the host's own /dev/shm with ipc=host"},
        {"/isolation/user_namespace", false,
         "the worker runs in a user namespace (rootless Podman or Docker map the container's IDs to a user's "
         "subordinate IDs): file-system permission checks and some system calls go through the mapping; compare "
         "with a rootful engine (leave out rootless=) to see what it costs"},
        {"/isolation/memlock_soft", false,
         "the locked-memory limit differs: give the container the host's (docker/podman run --ulimit "
         "memlock=SOFT:HARD, -1 for unlimited), or change the host's with `ulimit -l`"},
        {"/isolation/memlock_hard", false,
         "the locked-memory limit differs: give the container the host's (docker/podman run --ulimit "
         "memlock=SOFT:HARD, -1 for unlimited), or change the host's with `ulimit -Hl`"},
        {"/isolation/thp_enabled", false,
         "transparent huge pages are set differently (/sys/kernel/mm/transparent_hugepage/enabled); a container "
         "shares its host's setting, so another machine or a change during the run: set it the same for both"},
        {"/isolation/thp_defrag", false,
         "transparent huge pages defragment differently (/sys/kernel/mm/transparent_hugepage/defrag); a container "
         "shares its host's setting, so another machine or a change during the run: set it the same for both"},
        {"/isolation/data_fs", false,
         "the data folder lies on different file systems (a bind mount, an image's overlay, tmpfs): give every "
         "environment the same host folder with --data (dlcbench run mounts it into containers)"},
        {"/isolation/scratch_fs", false,
         "the worker writes (--path, else the temp folder) on different file systems, e.g. the host's disk against "
         "a container's overlay: what io-seq and io-lat measure; to remove it give both the same host folder as "
         "the I/O target"},
        {"/isolation/thread_variables", false,
         "the OMP_, MKL_, OPENBLAS_, KMP_ and GOMP_ variables differ: dlcbench run gives every environment only "
         "OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, MKL_NUM_THREADS (from --threads) and OPENBLAS_CORETYPE; unset the "
         "others where `dlcbench run` starts, or set the same in the image"},
    };
    for (auto field : isolation) {
      field.possible_cause = true;
      field.null_is_unknown = field.pointer == "/isolation/speculation" || field.pointer == "/isolation/mitigations" ||
                              field.pointer.rfind("/isolation/thp_", 0) == 0;
      f.push_back(std::move(field));
    }
    return f;
  }();
  return fields;
}

std::vector<Mismatch> compare_fingerprints(const nlohmann::json& baseline, const nlohmann::json& other,
                                           const std::vector<std::string>& requested) {
  std::vector<Mismatch> out;
  for (const auto& field : compared_fields()) {
    auto a = value_at(baseline, field.pointer), b = value_at(other, field.pointer);
    if (a == b) continue;
    if (field.null_is_unknown && (unreadable(baseline, field.pointer) || unreadable(other, field.pointer))) continue;
    if (field.pointer == "/libraries/digest") {
      // Name the libraries that differ rather than two digests.
      const nlohmann::json::json_pointer files("/libraries/files");
      if (baseline.contains(files) && other.contains(files)) {
        a = only_in(baseline.at(files), other.at(files));
        b = only_in(other.at(files), baseline.at(files));
      }
    }
    const nlohmann::json::json_pointer p(field.pointer);
    if (baseline.contains(p) && other.contains(p) && baseline.at(p).is_object() && other.at(p).is_object()) {
      // Name only the keys that differ (spectre_v2: ...), not two whole objects.
      a = differing_keys(baseline.at(p), other.at(p));
      b = differing_keys(other.at(p), baseline.at(p));
    } else {
      // An object against nothing: its size, not its whole text.
      auto size_of = [&](const nlohmann::json& j, std::string& shown) {
        if (j.contains(p) && j.at(p).is_object()) shown = counted(j.at(p).size(), "entry", "entries");
      };
      size_of(baseline, a);
      size_of(other, b);
    }
    const bool asked = std::find(requested.begin(), requested.end(), field.pointer) != requested.end();
    out.push_back({field.pointer.substr(1), a, b, asked, field.blocking, field.fix, field.possible_cause});
  }
  return out;
}

namespace {

// One library of a probe's list.
struct LoadedLibraryFact {
  std::string name;      // as mapped: "libz.so.1" or "libz.so.1.2.13"
  std::string build_id;  // "" where the file has none
  std::string text;      // "libz.so.1.2.13, build id 1a2b3c4d5e6f"
};

std::vector<LoadedLibraryFact> command_libraries_of(const nlohmann::json& fingerprint) {
  std::vector<LoadedLibraryFact> out;
  const nlohmann::json::json_pointer files("/command_libraries/files");
  if (!fingerprint.contains(files) || !fingerprint.at(files).is_array()) return out;
  for (const auto& f : fingerprint.at(files)) {
    if (!f.is_object()) continue;
    const std::string name = f.value("name", "");
    const std::string real = f.value("real_name", name), id = f.value("build_id", "");
    out.push_back(
        {name, id, fmt::format("{}{}", real, id.empty() ? "" : fmt::format(", build id {}", id.substr(0, 12)))});
  }
  return out;
}

// "libz.so.1.2.13" and "libz.so.1" are one library under two names (an
// image may hold its libraries under their short names): "libz.so".
std::string library_base_name(const std::string& name) {
  const auto so = name.find(".so");
  return so == std::string::npos ? name : name.substr(0, so + 3);
}

}  // namespace

std::vector<Mismatch> compare_command_fingerprints(const nlohmann::json& baseline, const nlohmann::json& other,
                                                   const std::vector<std::string>& requested) {
  std::vector<Mismatch> out = compare_fingerprints(baseline, other, requested);
  for (auto& m : out) {
    m.possible_cause = true;
    m.blocking = false;
  }
  // The same file (the same build id) under any name is the same library;
  // the rest are paired by base name, so each library is named once.
  const std::vector<LoadedLibraryFact> a = command_libraries_of(baseline), b = command_libraries_of(other);
  // Base name -> text, for the libraries of `side` whose file `across` lacks.
  auto unmatched = [](const std::vector<LoadedLibraryFact>& side, const std::vector<LoadedLibraryFact>& across) {
    std::set<std::string> ids;
    for (const auto& lib : across)
      if (!lib.build_id.empty()) ids.insert(lib.build_id);
    std::map<std::string, std::string> left;
    for (const auto& lib : side)
      if (lib.build_id.empty() || !ids.count(lib.build_id)) left.emplace(library_base_name(lib.name), lib.text);
    return left;
  };
  const auto a_left = unmatched(a, b), b_left = unmatched(b, a);
  const std::string fix = "build the image with the host's versions of the library, or measure the host with the "
                          "image's (the chroot environment runs the image's files without isolation)";
  for (const auto& [base, text] : a_left) {
    const auto it = b_left.find(base);
    if (it == b_left.end()) out.push_back({"libraries/" + base, text, "not loaded", false, false, fix, true});
    else if (it->second != text) out.push_back({"libraries/" + base, text, it->second, false, false, fix, true});
  }
  for (const auto& [base, text] : b_left)
    if (!a_left.count(base)) out.push_back({"libraries/" + base, "not loaded", text, false, false, fix, true});
  return out;
}

bool stops_comparison(const Mismatch& m) { return m.blocking && !m.requested && !m.possible_cause; }

bool stops_comparison(const std::vector<Mismatch>& mismatches) {
  return std::any_of(mismatches.begin(), mismatches.end(), [](const Mismatch& m) { return stops_comparison(m); });
}

std::string describe_mismatch(const Mismatch& m, const std::string& baseline_env, const std::string& other_env) {
  const std::string how =
      m.requested        ? "asked for"
      : m.possible_cause ? fmt::format("{}; {}", kPossibleCauseWords, m.fix)
      : m.blocking       ? fmt::format("not asked for; fix: {}", m.fix)
                         : fmt::format("not asked for, cannot change the speed by itself; to remove it: {}", m.fix);
  if (m.baseline_value.empty() && m.other_value.empty()) return fmt::format("{} ({})", m.field, how);
  return fmt::format("{}: {} has {}, {} has {} ({})", m.field, baseline_env, m.baseline_value, other_env,
                     m.other_value, how);
}

std::string describe_mismatches(const std::vector<Mismatch>& mismatches, const std::string& baseline_env,
                                const std::string& other_env) {
  std::string text;
  for (const auto& m : mismatches) text += fmt::format("  {}\n", describe_mismatch(m, baseline_env, other_env));
  return text;
}

}  // namespace dlcbench
