// The pure parts of `run --slurm`: what each node's run is given, the
// sbatch line, Slurm's key=value output, the folder bundles that carry
// staged results, and the node fingerprint comparison.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/cluster_analysis.h"
#include "cluster/cluster_run.h"
#include "cluster/folder_bundle.h"
#include "cluster/slurm.h"
#include "core/scratch_dir.h"

namespace fs = std::filesystem;
using namespace dlcbench;
using ::testing::ElementsAre;

TEST(NodeRunArguments, DropTheClusterRunsOwnOptionsAndKeepTheRestAndTheCommand) {
  const std::vector<std::string> typed = {"--slurm", "--nodes", "4", "--envs", "host,docker", "--partition=gpu",
                                          "--out", "/r", "--seed", "9", "--sbatch-arg=--exclusive", "--runs", "3",
                                          "--stage", "/tmp/s", "--node-cpu-quota", "n2=0.5", "--", "python",
                                          "--out", "x"};
  EXPECT_THAT(node_run_arguments(typed),
              ElementsAre("--envs", "host,docker", "--runs", "3", "--", "python", "--out", "x"));
}

TEST(NodeSeed, DiffersPerNodeIsReproducibleAndFitsSeed) {
  EXPECT_EQ(node_seed(7, "n1"), node_seed(7, "n1"));
  EXPECT_NE(node_seed(7, "n1"), node_seed(7, "n2"));
  EXPECT_NE(node_seed(7, "n1"), node_seed(8, "n1"));
  EXPECT_LE(node_seed(~0ULL, "n1"), 0x7fffffffffffffffULL);
}

TEST(SbatchArgv, AnArgumentVectorWithTheKnobsTheScriptAndTheStep) {
  SlurmRequest r;
  r.nodes = 2;
  r.partition = "p";
  r.account = "a";
  r.time_limit = "10:00";
  r.sbatch_args = {"--exclusive", "--comment=x y"};
  EXPECT_THAT(sbatch_argv(r, "dlcbench-1", "/o/slurm-%j.out", "/o/job.sh", {"/bin/dlcbench", "slurm-node", "; rm -rf /"}),
              ElementsAre("sbatch", "--parsable", "--wait", "--job-name=dlcbench-1", "--output=/o/slurm-%j.out",
                          "--ntasks-per-node=1", "--nodes=2", "--partition=p", "--account=a", "--time=10:00",
                          "--exclusive", "--comment=x y", "/o/job.sh", "/bin/dlcbench", "slurm-node", "; rm -rf /"));
  // Resuming names the nodes instead.
  const auto only = sbatch_argv(r, "j", "o", "s", {}, {"n1", "n3"});
  EXPECT_THAT(only, ::testing::Contains("--nodes=2"));
  EXPECT_THAT(only, ::testing::Contains("--nodelist=n1,n3"));
  // The script passes the step's arguments as "$@", never as text.
  EXPECT_NE(batch_script().find("\"$@\""), std::string::npos);
  EXPECT_EQ(batch_script().find("eval"), std::string::npos);
}

TEST(ScontrolLine, KeyValuesWithSpacesInValues) {
  const auto f = parse_scontrol_line("JobId=12 JobName=x JobState=CANCELLED Reason=Node down Dependency=(null) "
                                     "NodeList=dlcnode[1-2] ExitCode=0:15");
  EXPECT_EQ(f.at("JobState"), "CANCELLED");
  EXPECT_EQ(f.at("Reason"), "Node down");
  EXPECT_EQ(f.at("NodeList"), "dlcnode[1-2]");
  EXPECT_EQ(f.at("ExitCode"), "0:15");
}

TEST(FolderBundle, AFolderArrivesWholeAndADamagedOneIsRefused) {
  const ScratchDir from("bundle-from"), to("bundle-to");
  fs::create_directories(from.path() / "nodes/n1");
  std::ofstream(from.path() / "nodes/n1/results.jsonl") << "{\"a\":1}\n{\"b\":\"\xc3\xa9\"}\n";
  std::ofstream(from.path() / "nodes/n1/manifest.json") << "{\"x\": 2}";  // no final newline
  std::vector<std::string> lines;
  write_folder_bundle(from.path(), [&](const std::string& l) { lines.push_back(l); });
  FolderBundleReader reader(to.path());
  for (const auto& l : lines) reader.add_line(l);
  EXPECT_EQ(reader.files().size(), 2u);
  EXPECT_TRUE(reader.unfinished().empty());
  for (const auto* f : {"nodes/n1/results.jsonl", "nodes/n1/manifest.json"}) {
    std::ifstream a(from.path() / f), b(to.path() / f);
    std::stringstream sa, sb;
    sa << a.rdbuf();
    sb << b.rdbuf();
    EXPECT_EQ(sa.str(), sb.str()) << f;
  }
  // A line lost on the way: the file's digest does not match, nothing is written.
  const ScratchDir damaged("bundle-damaged");
  FolderBundleReader broken(damaged.path());
  EXPECT_THROW(
      {
        for (std::size_t i = 0; i < lines.size(); ++i)
          if (i != 0) broken.add_line(lines[i]);
      },
      std::runtime_error);
  // A path outside the folder is refused.
  FolderBundleReader outside(damaged.path());
  EXPECT_THROW(outside.add_line(R"({"file":"../x","text":"a"})"), std::runtime_error);
  // A stream cut before a file's end leaves it unfinished, not written.
  FolderBundleReader cut(damaged.path());
  cut.add_line(lines[0]);
  EXPECT_EQ(cut.unfinished().size(), 1u);
  EXPECT_FALSE(fs::exists(damaged.path() / "nodes/n1/manifest.json"));
}

TEST(NodeFingerprints, OnlyWhatDiffersByNatureIsLeftOut) {
  const nlohmann::json a = {{"hostname", "n1"}, {"mount_namespace", "mnt:[1]"}, {"kernel", "6.1"},
                            {"cpu", {{"model", "EPYC"}}}, {"blas", {{"core", "Zen"}}}};
  nlohmann::json b = a;
  b["hostname"] = "n2";
  b["mount_namespace"] = "mnt:[2]";
  EXPECT_TRUE(compare_node_fingerprints(a, b).empty());
  b["kernel"] = "6.2";
  b["blas"]["core"] = "Haswell";
  const auto d = compare_node_fingerprints(a, b);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].field, "blas/core");
  EXPECT_EQ(d[1].field, "kernel");
  EXPECT_EQ(d[1].other_value, "6.2");
}

TEST(SharedFolder, NodesOnThisMachineShareItAndOthersDoNot) {
  EXPECT_TRUE(nodes_share_this_machine({{"n1", "127.0.0.1", "x"}, {"n2", "localhost", "y"}}));
  EXPECT_FALSE(nodes_share_this_machine({{"n1", "127.0.0.1", "x"}, {"n2", "10.255.255.254", "elsewhere-host"}}));
  EXPECT_FALSE(nodes_share_this_machine({}));
  std::string type;
  EXPECT_FALSE(on_shared_file_system("/proc", type));
  EXPECT_FALSE(type.empty());
}
