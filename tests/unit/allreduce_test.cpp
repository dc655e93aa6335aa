// The pure parts of `run --slurm --allreduce`: sizes, the environments a
// rank starts in, what passes into a container, the salloc and srun lines,
// cluster.json's record, and the figures read back from allreduce.jsonl.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/cluster_analysis.h"
#include "cluster/allreduce_run.h"
#include "model/cluster_manifest.h"
#include "cluster/slurm.h"
#include "core/errors.h"
#include "core/scratch_dir.h"

namespace fs = std::filesystem;
using namespace dlcbench;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;

TEST(AllreduceSizes, BytesWithPowerOfTwoSuffixes) {
  EXPECT_THAT(parse_allreduce_sizes("8K,1M,16m,4"), ElementsAre(8192, 1 << 20, 16 << 20, 4));
  EXPECT_THAT(parse_allreduce_sizes("1G"), ElementsAre(1L << 30));
}

TEST(AllreduceSizes, RefusesWhatIsNoWholeNumberOfFloats) {
  for (const char* bad : {"", "8K,", "x", "0", "-4", "6", "1.5M", "3G", "8KB"})
    EXPECT_THROW(parse_allreduce_sizes(bad), UsageError) << bad;
  try {
    parse_allreduce_sizes("6");
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("whole number of floats"));
  }
}

TEST(AllreduceEnvironments, ContainersGoOnTheHostsNetworkAndOthersAreLeftOutWithWhy) {
  std::vector<std::string> left_out;
  const auto envs = allreduce_environments(
      parse_environment_list("host,docker,runc:cpus=1,crun:network=host,charliecloud,runsc,podman,host"), left_out);
  EXPECT_THAT(envs, ElementsAre("host", "docker:network=host", "runc:cpus=1,network=host", "crun:network=host",
                                "charliecloud", "podman:network=host"));
  ASSERT_EQ(left_out.size(), 1u);
  EXPECT_THAT(left_out[0], HasSubstr("runsc"));
}

TEST(AllreduceEnvironments, ANetworkTheRanksCannotReachEachOtherOnIsRefused) {
  std::vector<std::string> left_out;
  try {
    allreduce_environments(parse_environment_list("host,docker:network=none"), left_out);
    FAIL() << "network=none accepted";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("network=host"));
  }
}

TEST(RankVariables, SlurmAndPmixPassInAndTheTransportIsTheSameEverywhere) {
  const auto vars = rank_variables({"SLURM_JOB_ID=4", "SLURMD_NODENAME=n1", "PMIX_RANK=1",
                                    "PMIX_SERVER_URI41=pmix-server.1;tcp4://127.0.0.1:4000", "OMPI_MCA_btl=vader",
                                    "HOME=/root", "PATH=/bin", "BROKEN"});
  EXPECT_THAT(vars, Contains(Pair("SLURM_JOB_ID", "4")));
  EXPECT_THAT(vars, Contains(Pair("SLURMD_NODENAME", "n1")));
  EXPECT_THAT(vars, Contains(Pair("PMIX_SERVER_URI41", "pmix-server.1;tcp4://127.0.0.1:4000")));
  EXPECT_THAT(vars, Contains(Pair("OMPI_MCA_btl", "self,tcp")));
  EXPECT_THAT(vars, Not(Contains(Pair("OMPI_MCA_btl", "vader"))));
  EXPECT_THAT(vars, Contains(Pair("PMIX_MCA_gds", "hash")));
  EXPECT_THAT(vars, Not(Contains(Pair("HOME", "/root"))));
}

TEST(AllreduceArgv, SallocHoldsTheNodesAndSrunStartsOneRankOnEach) {
  SlurmRequest r;
  r.partition = "p";
  r.time_limit = "10:00";
  r.sbatch_args = {"--exclusive"};
  EXPECT_THAT(salloc_argv(r, "job", {"n1", "n2"}, {"/bin/dlcbench", "slurm-allreduce"}),
              ElementsAre("salloc", "--job-name=job", "--nodes=2", "--nodelist=n1,n2", "--ntasks-per-node=1",
                          "--quiet", "--partition=p", "--time=10:00", "/bin/dlcbench", "slurm-allreduce"));
  const auto step = allreduce_step_argv("/bin/dlcbench", "docker:network=host", "run-ar", {"--sizes", "8"});
  EXPECT_THAT(step, Contains("--mpi=pmix"));
  EXPECT_THAT(step, Contains("--ntasks-per-node=1"));
  EXPECT_EQ(step.back(), "8");
  EXPECT_EQ(*(std::find(step.begin(), step.end(), "--env") + 1), "docker:network=host");
}

TEST(AllreduceProgramArguments, SizesIterationsAndWarmUp) {
  ClusterAllreduce r;
  r.sizes_bytes = {8, 1024};
  r.iterations = 7;
  r.warmup = 2;
  EXPECT_THAT(allreduce_program_arguments(r),
              ElementsAre("--sizes", "8,1024", "--iterations", "7", "--warmup", "2"));
}

TEST(AllreduceBusBandwidth, AsNcclTestsDefineIt) {
  // 1 MB in 1 ms: 1 GB/s of algorithm bandwidth; x 2(n-1)/n on the bus.
  EXPECT_NEAR(allreduce_bus_gbps(1000000, 1e-3, 2), 1.0, 1e-12);
  EXPECT_NEAR(allreduce_bus_gbps(1000000, 1e-3, 4), 1.5, 1e-12);
  EXPECT_EQ(allreduce_bus_gbps(1000000, 0, 2), 0);
}

TEST(ClusterManifestAllreduce, RoundTripsThroughClusterJson) {
  ClusterManifest m;
  m.run_id = "r";
  ClusterAllreduce a;
  a.environments = {"host", "docker:network=host"};
  a.left_out = {"runsc: why"};
  a.sizes_bytes = {8192};
  a.iterations = 10;
  a.warmup = 2;
  a.rounds = 3;
  a.status = "incomplete";
  a.error = "exited with status 1";
  m.allreduce = a;
  ClusterManifest back = nlohmann::json(m).get<ClusterManifest>();
  ASSERT_TRUE(back.allreduce);
  EXPECT_EQ(back.allreduce->environments, a.environments);
  EXPECT_EQ(back.allreduce->left_out, a.left_out);
  EXPECT_EQ(back.allreduce->sizes_bytes, a.sizes_bytes);
  EXPECT_EQ(back.allreduce->rounds, 3);
  EXPECT_EQ(back.allreduce->status, "incomplete");
  EXPECT_EQ(back.allreduce->error, a.error);
  m.allreduce.reset();
  EXPECT_FALSE(nlohmann::json(m).get<ClusterManifest>().allreduce);
}

TEST(AnalyzeAllreduce, PairsRoundsAgainstTheHostAndNamesFailures) {
  const ScratchDir scratch("dlcbench-allreduce-test");
  {
    std::ofstream out(scratch.path() / kAllreduceResultsFile);
    for (int round = 0; round < 8; ++round) {
      const double host = 1e-3 * (1 + 0.01 * (round % 3));
      for (const auto& [env, factor] : {std::pair<std::string, double>{"host", 1.0}, {"docker:network=host", 1.2}}) {
        const double s = host * factor;
        out << nlohmann::json{{"env", env}, {"round", round}, {"bytes", 1 << 20}, {"ranks", 2}, {"correct", true},
                              {"nodes", {"n1", "n2"}}, {"mpi_library", "Open MPI v4.1.4"},
                              {"seconds", {s, s * 1.01, s * 0.99}}}
                   .dump()
            << "\n";
      }
    }
    // A wrong sum never counts, and a failed step is named.
    out << nlohmann::json{{"env", "host"}, {"round", 9}, {"bytes", 1 << 20}, {"ranks", 2}, {"correct", false},
                          {"seconds", {1.0}}}
               .dump()
        << "\n";
    out << nlohmann::json{{"env", "docker:network=host"}, {"round", 8}, {"error", "exited with status 1"}}.dump() << "\n";
  }
  ClusterAllreduce described;
  described.environments = {"docker:network=host", "host"};
  described.rounds = 9;
  described.iterations = 3;
  described.status = "incomplete";
  const AllreduceFigures f = analyze_allreduce(scratch.path(), described, 0.02);
  EXPECT_EQ(f.baseline, "host");
  EXPECT_THAT(f.environments, ElementsAre("docker:network=host"));
  EXPECT_EQ(f.ranks, 2);
  EXPECT_THAT(f.nodes, ElementsAre("n1", "n2"));
  ASSERT_EQ(f.sizes.size(), 1u);
  const AllreduceSize& size = f.sizes[0];
  EXPECT_EQ(size.bytes, 1 << 20);
  EXPECT_NEAR(size.median_seconds.at("host"), 1.01e-3, 1e-5);
  EXPECT_NEAR(size.bus_gbps.at("host"), allreduce_bus_gbps(1 << 20, size.median_seconds.at("host"), 2), 1e-9);
  const Overhead& o = size.overheads.at("docker:network=host");
  EXPECT_NEAR(o.robust.ratio, 1.2, 1e-6);
  EXPECT_TRUE(o.robust.paired);
  EXPECT_EQ(o.robust.pairs, 8u);
  EXPECT_EQ(o.verdict, Verdict::slower);
  ASSERT_EQ(f.failures.size(), 1u);
  EXPECT_THAT(f.failures[0], HasSubstr("round 9: exited with status 1"));
}

TEST(AllreduceResume, OnlyStepsWithCorrectFiguresCountAsMeasured) {
  const ScratchDir scratch("dlcbench-allreduce-resume-test");
  const fs::path file = scratch.path() / kAllreduceResultsFile;
  EXPECT_TRUE(allreduce_steps_measured(file).empty());  // nothing measured yet
  {
    std::ofstream out(file);
    out << R"({"env":"host","round":0,"bytes":8,"correct":true,"seconds":[1e-5]})" << "\n"
        << R"({"env":"docker:network=host","round":0,"error":"exited with status 1"})" << "\n"
        << R"({"env":"runc:network=host","round":1,"bytes":8,"correct":false,"seconds":[1e-5]})" << "\n"
        << R"({"env":"host","round":1,"bytes":8,"correct":true,"seconds":[1e-5]})" << "\n"
        << "{\"env\":\"crun:network=host\",\"round\":1,\"bytes\"" << "\n";  // cut off by a kill
  }
  EXPECT_THAT(allreduce_steps_measured(file),
              ElementsAre(Pair("host", 0), Pair("host", 1)));
}
