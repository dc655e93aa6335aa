// The differences between two environments ranked by what the counters
// measured: a difference is likely where what it changes is what moved.
#include "analysis/likely_causes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace dlcbench {
namespace {

using ::testing::HasSubstr;

Mismatch possible(const std::string& field, const std::string& host, const std::string& other) {
  return {field, host, other, false, false, "make them the same", true};
}

Explanation explained(std::vector<std::pair<Cause, double>> claimed) {
  Explanation e;
  e.env = "docker";
  e.status = ExplanationStatus::explained;
  for (auto [cause, ms] : claimed) e.causes.push_back({cause, {ms, ms * 0.8, ms * 1.2}, 0.5, true});
  // A cause the counters allow but did not claim fits nothing.
  e.causes.push_back({Cause::more_system_cpu, {0.3, -0.1, 0.7}, 0.01, false});
  return e;
}

const std::vector<Mismatch> kImageDifferences = {
    possible("isolation/seccomp", "disabled", "filter"),
    possible("isolation/scratch_fs", "ext4", "overlay"),
    possible("libraries/libopenblas.so.0", "libopenblasp-r0.3.21.so", "libopenblasp-r0.3.26.so"),
    possible("variables/OMP_NUM_THREADS", "", "1"),
    possible("isolation/shm_bytes", "4294967296", "67108864"),
};

TEST(LikelyCauses, FewerBusyCPUsPutTheThreadVariableFirst) {
  const auto ranked = rank_likely_causes(kImageDifferences, explained({{Cause::fewer_busy_cpus, 40}}));
  ASSERT_EQ(ranked.size(), 5u);
  EXPECT_EQ(ranked[0].mismatch.field, "variables/OMP_NUM_THREADS");
  EXPECT_EQ(ranked[0].fits, Cause::fewer_busy_cpus);
  EXPECT_DOUBLE_EQ(ranked[0].ms, 40);
  EXPECT_EQ(ranked[0].rank, 1);
  EXPECT_EQ(ranked[2].rank, 3);
  EXPECT_EQ(ranked[3].rank, 0);  // fits nothing: not ranked
  // A library may bring its own threads or not; a file system may leave CPUs
  // idle (waiting on I/O): both after a thread setting, in that order.
  EXPECT_EQ(ranked[1].mismatch.field, "libraries/libopenblas.so.0");
  EXPECT_EQ(ranked[1].fits, Cause::fewer_busy_cpus);
  EXPECT_EQ(ranked[2].mismatch.field, "isolation/scratch_fs");
  EXPECT_EQ(ranked[2].fits, Cause::fewer_busy_cpus);
  // The rest fit nothing claimed: listed after, still possible causes.
  for (std::size_t i = 3; i < ranked.size(); ++i) EXPECT_FALSE(ranked[i].fits) << ranked[i].mismatch.field;
  EXPECT_EQ(likely_cause_words(ranked[0], "host", "docker", "iteration"),
            "likely cause 1 (a thread setting; fits fewer CPUs kept busy, +40.0 ms per iteration): "
            "variables/OMP_NUM_THREADS: host has none, docker has 1; make them the same");
  EXPECT_THAT(likely_cause_words(ranked[3], "host", "docker", "iteration"),
              HasSubstr("possible cause (the kernel's checks; fits nothing the counters claimed): isolation/seccomp"));
}

TEST(LikelyCauses, MoreUserCPUPutsTheLibraryFirstAndTheLargerCauseWins) {
  const auto user = rank_likely_causes(kImageDifferences, explained({{Cause::more_user_cpu, 30}}));
  EXPECT_EQ(user[0].mismatch.field, "libraries/libopenblas.so.0");
  EXPECT_EQ(user[0].fits, Cause::more_user_cpu);
  EXPECT_FALSE(user[1].fits);
  // Both claimed: the one with more milliseconds ranks first.
  const auto both =
      rank_likely_causes(kImageDifferences, explained({{Cause::more_user_cpu, 30}, {Cause::fewer_busy_cpus, 10}}));
  EXPECT_EQ(both[0].mismatch.field, "libraries/libopenblas.so.0");
  EXPECT_EQ(both[1].mismatch.field, "variables/OMP_NUM_THREADS");
}

TEST(LikelyCauses, TheLibrariesThatDifferAreOneCauseNamingThoseThatComputeFirst) {
  std::vector<Mismatch> many = kImageDifferences;
  for (const char* name : {"_json.cpython-311.so", "libssl.so.3", "libgomp.so.1", "libexpat.so.1", "libz.so.1"})
    many.push_back(possible(std::string("libraries/") + name, std::string(name) + ", build id a", "not loaded"));
  const auto ranked = rank_likely_causes(many, explained({{Cause::more_user_cpu, 30}}));
  ASSERT_EQ(ranked.size(), 5u);
  EXPECT_EQ(ranked[0].mismatch.field, "libraries (6 differ)");
  EXPECT_EQ(ranked[0].fits, Cause::more_user_cpu);
  EXPECT_EQ(ranked[0].mismatch.baseline_value,
            "libopenblasp-r0.3.21.so; libgomp.so.1, build id a; _json.cpython-311.so, build id a; "
            "libssl.so.3, build id a and 2 more");
  EXPECT_EQ(ranked[0].mismatch.other_value,
            "libopenblasp-r0.3.26.so; libgomp.so.1 not loaded; _json.cpython-311.so not loaded; libssl.so.3 not "
            "loaded and 2 more");
}

TEST(LikelyCauses, NothingIsRankedWithoutAClaimedCauseAndOnlyPossibleCausesAreRanked) {
  Explanation unexplained = explained({});
  unexplained.status = ExplanationStatus::unexplained;
  EXPECT_TRUE(rank_likely_causes(kImageDifferences, unexplained).empty());
  std::vector<Mismatch> asked = {{"cgroup/cpu_quota", "none", "1", true, true, "", false}};
  EXPECT_TRUE(rank_likely_causes(asked, explained({{Cause::throttled, 50}})).empty());
}

TEST(LikelyCauses, FieldsAreSortedIntoKinds) {
  EXPECT_EQ(difference_kind("variables/OMP_NUM_THREADS"), DifferenceKind::threads);
  EXPECT_EQ(difference_kind("blas/threads"), DifferenceKind::threads);
  EXPECT_EQ(difference_kind("blas/core"), DifferenceKind::settings);
  EXPECT_EQ(difference_kind("blas/library"), DifferenceKind::code);
  EXPECT_EQ(difference_kind("variables/OPENBLAS_CORETYPE"), DifferenceKind::settings);
  EXPECT_EQ(difference_kind("isolation/thread_variables"), DifferenceKind::settings);
  EXPECT_EQ(difference_kind("libraries/libgomp.so.1"), DifferenceKind::code);
  EXPECT_EQ(difference_kind("cgroup/cpu_quota"), DifferenceKind::cpus);
  EXPECT_EQ(difference_kind("cpu/affinity"), DifferenceKind::cpus);
  EXPECT_EQ(difference_kind("isolation/mitigations"), DifferenceKind::kernel);
  EXPECT_EQ(difference_kind("isolation/memlock_soft"), DifferenceKind::memory);
  EXPECT_EQ(difference_kind("isolation/data_fs"), DifferenceKind::files);
  EXPECT_EQ(difference_kind("mount_namespace"), DifferenceKind::other);
}

}  // namespace
}  // namespace dlcbench
