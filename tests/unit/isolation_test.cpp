#include "core/isolation.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/comparability.h"
#include "core/fingerprint.h"
#include "core/mismatch.h"
#include "report/report_model.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using json = nlohmann::json;

TEST(Isolation, ProcStatusLinesByKey) {
  const auto status = parse_proc_status(
      "Name:\tdlcbench\nSeccomp:\t2\nSeccomp_filters:\t1\nSpeculation_Store_Bypass:\tthread force mitigated\n"
      "SpeculationIndirectBranch:\tconditional enabled\nno colon here\n");
  EXPECT_EQ(status.at("Seccomp"), "2");
  EXPECT_EQ(status.at("Speculation_Store_Bypass"), "thread force mitigated");
  const auto speculation = process_speculation(status);
  EXPECT_EQ(speculation["store_bypass"], "thread force mitigated");
  EXPECT_EQ(speculation["indirect_branch"], "conditional enabled");
  // An older kernel says nothing: null, not "".
  EXPECT_TRUE(process_speculation({})["store_bypass"].is_null());
  EXPECT_EQ(process_security(status)["seccomp"], "filter");
}

TEST(Isolation, ProcStatusOfAFakeRoot) {
  testing::TempDir root;
  testing::write_text(root / "proc/self/status", "Seccomp:\t0\nNoNewPrivs:\t1\n");
  const auto status = read_proc_status(root.path());
  EXPECT_EQ(process_security(status)["seccomp"], "disabled");
  EXPECT_EQ(process_security(status)["no_new_privs"], true);
  EXPECT_TRUE(read_proc_status(root / "nothing").empty());
}

TEST(Isolation, MitigationsAreTheFirstLineOfEachVulnerabilityFile) {
  testing::TempDir root;
  const auto folder = root / "sys/devices/system/cpu/vulnerabilities";
  testing::write_text(folder / "meltdown", "Not affected\n");
  testing::write_text(folder / "spectre_v2", "Mitigation: Retpolines; IBPB: conditional\nsecond line\n");
  const auto m = speculation_mitigations(root.path());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->size(), 2u);
  EXPECT_EQ(m->at("meltdown"), "Not affected");
  EXPECT_EQ(m->at("spectre_v2"), "Mitigation: Retpolines; IBPB: conditional");
}

TEST(Isolation, TheUserNamespaceIsNoneInTheFirstAndItsRangesInAnother) {
  testing::TempDir first, rootless, empty;
  testing::write_text(first / "proc/self/uid_map", "         0          0 4294967295\n");
  testing::write_text(rootless / "proc/self/uid_map", "         0       1001          1\n         1     100000      65536\n");
  EXPECT_EQ(user_namespace_map(first.path()), "none");
  EXPECT_EQ(user_namespace_map(rootless.path()), "0:1001:1,1:100000:65536");
  EXPECT_FALSE(user_namespace_map(empty.path()));
  // This process's own, as the fingerprint records it.
  const json isolation = isolation_fingerprint("disabled", {}, {});
  EXPECT_TRUE(isolation["user_namespace"].is_string()) << isolation.dump();
}

TEST(Isolation, NoVulnerabilitiesFolderIsNull) {
  testing::TempDir root;
  EXPECT_FALSE(speculation_mitigations(root.path()));
}

TEST(Isolation, TransparentHugePagesAreTheBracketedWord) {
  testing::TempDir root;
  testing::write_text(root / "sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
  testing::write_text(root / "sys/kernel/mm/transparent_hugepage/defrag",
                      "always defer defer+madvise [madvise] never\n");
  EXPECT_EQ(transparent_hugepages("enabled", root.path()), "madvise");
  EXPECT_EQ(transparent_hugepages("defrag", root.path()), "madvise");
  EXPECT_EQ(bracketed_choice("[always] madvise never"), "always");
  EXPECT_FALSE(bracketed_choice("always madvise never"));
  EXPECT_FALSE(bracketed_choice("[]"));
  testing::TempDir empty;
  EXPECT_FALSE(transparent_hugepages("enabled", empty.path()));
}

TEST(Isolation, ShmSizeOfAFolderAndNullWhenMissing) {
  testing::TempDir root;
  std::filesystem::create_directories(root / "dev/shm");
  const auto size = shm_bytes(root.path());
  ASSERT_TRUE(size);
  EXPECT_GT(*size, 0u);
  testing::TempDir empty;
  EXPECT_FALSE(shm_bytes(empty.path()));
}

TEST(Isolation, IpcNamespaceIsTheLinkTarget) {
  testing::TempDir root;
  std::filesystem::create_directories(root / "proc/self/ns");
  std::filesystem::create_symlink("ipc:[4026531839]", root / "proc/self/ns/ipc");
  EXPECT_EQ(ipc_namespace(root.path()), "ipc:[4026531839]");
  testing::TempDir empty;
  EXPECT_FALSE(ipc_namespace(empty.path()));
  // This process's own, where /proc is mounted.
  if (std::filesystem::exists("/proc/self/ns/ipc")) {
    EXPECT_THAT(ipc_namespace().value_or(""), HasSubstr("ipc:["));
  }
}

TEST(Isolation, MemlockIsBytesOrUnlimited) {
  EXPECT_EQ(rlimit_value(RLIM_INFINITY), "unlimited");
  EXPECT_EQ(rlimit_value(65536), 65536);
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_MEMLOCK, &saved), 0);
  // Lowering the soft limit needs no privilege, and it can be raised back up
  // to the hard limit.
  const rlim_t lower = saved.rlim_max == RLIM_INFINITY ? 65536 : std::min<rlim_t>(saved.rlim_max, 65536);
  rlimit changed = saved;
  changed.rlim_cur = lower;
  ASSERT_EQ(setrlimit(RLIMIT_MEMLOCK, &changed), 0);
  const auto limits = memlock_limits();
  ASSERT_EQ(setrlimit(RLIMIT_MEMLOCK, &saved), 0);
  EXPECT_EQ(limits.soft, static_cast<std::uint64_t>(lower));
  EXPECT_EQ(limits.hard, rlimit_value(saved.rlim_max));
}

TEST(Isolation, FileSystemTypeOfRealPaths) {
  EXPECT_EQ(file_system_type("/proc"), "proc");
  if (std::filesystem::exists("/sys/kernel")) {
    EXPECT_EQ(file_system_type("/sys/kernel"), "sysfs");
  }
  EXPECT_FALSE(file_system_type("/no/such/folder/anywhere"));
  EXPECT_FALSE(file_system_type(""));
  testing::TempDir dir;
  const auto type = file_system_type(dir.path());
  ASSERT_TRUE(type);
  EXPECT_FALSE(type->empty());
}

TEST(Isolation, ThreadVariablesArePickedByPrefix) {
  setenv("OMP_PROC_BIND", "close", 1);
  setenv("KMP_AFFINITY", "compact", 1);
  setenv("GOMP_SPINCOUNT", "0", 1);
  setenv("OMPX_NOT_ONE", "1", 1);
  setenv("MY_OMP_THING", "1", 1);
  const auto vars = thread_variables();
  unsetenv("OMP_PROC_BIND");
  unsetenv("KMP_AFFINITY");
  unsetenv("GOMP_SPINCOUNT");
  unsetenv("OMPX_NOT_ONE");
  unsetenv("MY_OMP_THING");
  EXPECT_EQ(vars.at("OMP_PROC_BIND"), "close");
  EXPECT_EQ(vars.at("KMP_AFFINITY"), "compact");
  EXPECT_EQ(vars.at("GOMP_SPINCOUNT"), "0");
  EXPECT_FALSE(vars.count("OMPX_NOT_ONE"));
  EXPECT_FALSE(vars.count("MY_OMP_THING"));
  EXPECT_FALSE(thread_variables().count("OMP_PROC_BIND"));
}

TEST(Isolation, FingerprintObjectOfAFakeRoot) {
  testing::TempDir root;
  testing::write_text(root / "sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n");
  testing::write_text(root / "sys/devices/system/cpu/vulnerabilities/meltdown", "Not affected\n");
  const auto j = isolation_fingerprint("filter", parse_proc_status("Speculation_Store_Bypass:\tvulnerable\n"),
                                       FingerprintPaths{"/proc", ""}, root.path());
  EXPECT_EQ(j["seccomp"], "filter");
  EXPECT_EQ(j["speculation"]["store_bypass"], "vulnerable");
  EXPECT_EQ(j["mitigations"], json({{"meltdown", "Not affected"}}));
  EXPECT_EQ(j["thp_enabled"], "always");
  EXPECT_TRUE(j["thp_defrag"].is_null());
  EXPECT_TRUE(j["shm_bytes"].is_null());
  EXPECT_TRUE(j["ipc_namespace"].is_null());
  EXPECT_EQ(j["data_fs"], "proc");
  EXPECT_TRUE(j["scratch_fs"].is_null());
  EXPECT_TRUE(j["thread_variables"].is_object());
  EXPECT_TRUE(j.contains("memlock_soft") && j.contains("memlock_hard"));
}

TEST(Fingerprint, HasTheIsolationObject) {
  const auto f = environment_fingerprint(FingerprintPaths{"/proc", ""});
  ASSERT_TRUE(f.contains("isolation"));
  const auto& i = f["isolation"];
  for (const char* key : {"seccomp", "speculation", "mitigations", "shm_bytes", "ipc_namespace", "memlock_soft",
                          "memlock_hard", "thp_enabled", "thp_defrag", "data_fs", "scratch_fs", "thread_variables"})
    EXPECT_TRUE(i.contains(key)) << key;
  // The same seccomp mode as "security", read once.
  EXPECT_EQ(i["seccomp"], f["security"]["seccomp"]);
  EXPECT_EQ(i["data_fs"], "proc");
  EXPECT_TRUE(i["scratch_fs"].is_null());
  // Without paths, no file system is recorded.
  EXPECT_TRUE(environment_fingerprint()["isolation"]["data_fs"].is_null());
}

TEST(IsolationMismatch, PossibleCauseRoundTripsAndDefaultsToFalse) {
  Mismatch m{"isolation/seccomp", "disabled", "filter", false, false, "seccomp=unconfined", true};
  const json j = m;
  EXPECT_EQ(j["possible_cause"], true);
  const auto back = j.get<Mismatch>();
  EXPECT_TRUE(back.possible_cause);
  EXPECT_EQ(back.field, "isolation/seccomp");
  EXPECT_FALSE(back.blocking);
  // Written only when true, so older mismatches serialise as they did.
  const json plain = Mismatch{"blas/core", "Zen", "Haswell", false, true, "same image"};
  EXPECT_FALSE(plain.contains("possible_cause"));
  // Version 1 wrote "baseline" and "value", and knew nothing of possible causes.
  const auto v1 = json({{"field", "blas/core"}, {"baseline", "Zen"}, {"value", "Haswell"}, {"requested", false},
                        {"blocking", true}})
                      .get<Mismatch>();
  EXPECT_FALSE(v1.possible_cause);
  EXPECT_EQ(v1.baseline_value, "Zen");
  EXPECT_THROW(json({{"field", "x"}, {"possible_cause", "yes"}}).get<Mismatch>(), DataError);
}

TEST(IsolationComparability, IsolationDifferencesArePossibleCausesThatNeverStop) {
  const json host = {{"blas", {{"core", "Zen"}}},
                     {"isolation",
                      {{"seccomp", "disabled"},
                       {"shm_bytes", 8589934592},
                       {"ipc_namespace", "ipc:[4026531839]"},
                       {"scratch_fs", "ext4"},
                       {"thread_variables", {{"OMP_NUM_THREADS", "1"}, {"OMP_PROC_BIND", "close"}}}}}};
  json docker = host;
  docker["isolation"]["seccomp"] = "filter";
  docker["isolation"]["shm_bytes"] = 67108864;
  docker["isolation"]["ipc_namespace"] = "ipc:[4026532300]";
  docker["isolation"]["scratch_fs"] = "overlay";
  docker["isolation"]["thread_variables"] = {{"OMP_NUM_THREADS", "1"}};
  const auto mismatches = compare_fingerprints(host, docker);
  std::vector<std::string> fields;
  for (const auto& m : mismatches) {
    fields.push_back(m.field);
    EXPECT_TRUE(m.possible_cause) << m.field;
    EXPECT_FALSE(m.blocking) << m.field;
    EXPECT_FALSE(m.fix.empty()) << m.field;
    EXPECT_THAT(describe_mismatch(m, "host", "docker"), HasSubstr("possible cause"));
  }
  EXPECT_THAT(fields, ::testing::UnorderedElementsAre("isolation/seccomp", "isolation/shm_bytes",
                                                      "isolation/scratch_fs", "isolation/thread_variables"));
  EXPECT_FALSE(stops_comparison(mismatches));
  // The namespace is recorded, never compared.
  for (const auto& f : compared_fields()) EXPECT_NE(f.pointer, "/isolation/ipc_namespace");
  // A real difference beside them still stops it.
  docker["blas"]["core"] = "Haswell";
  EXPECT_TRUE(stops_comparison(compare_fingerprints(host, docker)));
  // Even a possible cause marked blocking by mistake does not stop it.
  Mismatch odd{"isolation/seccomp", "disabled", "filter", false, true, "fix", true};
  EXPECT_FALSE(stops_comparison({odd}));
}

TEST(IsolationComparability, EveryIsolationFieldIsAPossibleCauseWithAFix) {
  int isolation = 0;
  for (const auto& f : compared_fields()) {
    const bool under = f.pointer.rfind("/isolation/", 0) == 0;
    EXPECT_EQ(f.possible_cause, under) << f.pointer;
    if (!under) continue;
    ++isolation;
    EXPECT_FALSE(f.blocking) << f.pointer;
    EXPECT_FALSE(f.fix.empty()) << f.pointer;
  }
  EXPECT_GE(isolation, 10);
}

TEST(IsolationComparability, AFactTheSandboxCannotReadIsUnknownNotDifferent) {
  // gVisor shows no speculation controls, no vulnerabilities and no huge
  // page settings: nulls there say nothing about the kernel's checks.
  const json host = {{"isolation",
                      {{"speculation", {{"store_bypass", "vulnerable"}, {"indirect_branch", "always enabled"}}},
                       {"mitigations", {{"meltdown", "Not affected"}}},
                       {"thp_enabled", "madvise"},
                       {"user_namespace", nullptr}}}};
  json sandbox = host;
  sandbox["isolation"]["speculation"] = {{"store_bypass", nullptr}, {"indirect_branch", nullptr}};
  sandbox["isolation"]["mitigations"] = nullptr;
  sandbox["isolation"]["thp_enabled"] = nullptr;
  EXPECT_TRUE(compare_fingerprints(host, sandbox).empty());
  // A value read on both sides that differs is still named, and a user
  // namespace against none (a null that means "none") too.
  sandbox["isolation"]["speculation"] = {{"store_bypass", "thread force mitigated"}, {"indirect_branch", nullptr}};
  sandbox["isolation"]["user_namespace"] = "user:[4026532500]";
  std::vector<std::string> fields;
  for (const auto& m : compare_fingerprints(host, sandbox)) fields.push_back(m.field);
  EXPECT_THAT(fields, ::testing::UnorderedElementsAre("isolation/speculation", "isolation/user_namespace"));
}

TEST(IsolationComparability, OlderFingerprintsWithoutIsolationCompareAsBefore) {
  const json a = {{"blas", {{"core", "Zen"}}}};
  EXPECT_TRUE(compare_fingerprints(a, a).empty());
}

TEST(IsolationReport, PreflightLinesNameAPossibleCause) {
  Manifest manifest;
  manifest.plan = RecordedPlan{};
  manifest.plan->baseline = "host";
  manifest.preflight = PreflightFindings{
      {"docker",
       {Mismatch{"isolation/shm_bytes", "8589934592", "67108864", false, false, "shm=1g", true},
        Mismatch{"cgroup/memory_limit_bytes", "none", "4294967296", false, false, "memory=SIZE"}}}};
  const auto lines = preflight_lines(manifest);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr("isolation/shm_bytes: host has 8589934592, docker has 67108864"));
  EXPECT_THAT(lines[0], HasSubstr("possible cause"));
  EXPECT_THAT(lines[0], Not(HasSubstr("cannot change the speed")));
  EXPECT_THAT(lines[1], HasSubstr("cannot change the speed by itself"));
}

// Issue 35, item 19: an image that holds its libraries under their short
// names had every library reported twice ("host has libz.so.1.2.13 ...,
// docker has not loaded", then the reverse), though the files were the same.
TEST(CommandLibraries, TheSameFileUnderAnotherNameIsTheSameLibraryAndADifferentOneIsNamedOnce) {
  auto fingerprint = [](std::vector<std::pair<std::string, std::string>> files) {
    json list = json::array();
    for (const auto& [name, id] : files) list.push_back({{"name", name}, {"real_name", name}, {"build_id", id}});
    return json{{"command_libraries", {{"files", list}}}};
  };
  const json host = fingerprint({{"libz.so.1.2.13", "aaaa"}, {"libm.so.6", "bbbb"}, {"libssl.so.3", "cccc"}});
  const json image = fingerprint({{"libz.so.1", "aaaa"}, {"libm.so.6", "dddd"}, {"libcrypto.so.3", "eeee"}});
  std::vector<std::string> fields;
  for (const auto& m : compare_command_fingerprints(host, image, {}))
    if (m.field.rfind("libraries/", 0) == 0)
      fields.push_back(m.field + ": " + m.baseline_value + " / " + m.other_value);
  EXPECT_THAT(fields, ::testing::UnorderedElementsAre(
                          "libraries/libm.so: libm.so.6, build id bbbb / libm.so.6, build id dddd",
                          "libraries/libssl.so: libssl.so.3, build id cccc / not loaded",
                          "libraries/libcrypto.so: not loaded / libcrypto.so.3, build id eeee"));
}

}  // namespace
}  // namespace dlcbench
