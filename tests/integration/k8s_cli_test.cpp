// `dlcbench k8s` through the real binary: the Job manifests it writes are
// valid batch/v1 Jobs by Kubernetes' own OpenAPI schema (the vendored
// v1.22.3 definitions, third_party/kubernetes-openapi), checked by a real
// JSON Schema validator, and the check can fail; options a Job cannot take,
// or that `dlcbench run` would refuse, are refused before anything is written.
#include <algorithm>
#include <fstream>
#include <functional>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../unit/test_files.h"
#include "core/process.h"
#include "test_support.h"

namespace dlcbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using testing::run_dlcbench;
using testing::TempDir;

const fs::path kSource = DLCBENCH_SOURCE_DIR;
const fs::path kJobSchema = kSource / "third_party/kubernetes-openapi/v1.22.3/batch.v1.Job.swagger.json";

std::vector<std::string> k8s_args(const fs::path& out) {
  return {"k8s", "--nodes", "node-a,worker-7.example.internal", "--image", "registry.example.com/dlcbench:1.0",
          "--run-id", "t1", "--namespace", "bench", "--results-path", "/var/lib/dlcbench/results", "--data",
          "/srv/dlcbench-data", "--cpu-request", "2", "--cpu-limit", "2", "--memory-limit", "4Gi", "--pod-env",
          "OPENBLAS_CORETYPE=SkylakeX", "--out", out.string(), "--workloads", "fcn5", "--runs", "5", "--threads",
          "2", "--seed", "7"};
}

std::vector<fs::path> manifests_in(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

json read_json(const fs::path& file) {
  std::ifstream in(file);
  return json::parse(in);
}

class K8sSchema : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!capture_output({python_, "-c", "import jsonschema"}, 60).result.ok())
      GTEST_SKIP() << "python3-jsonschema is not installed (scripts/install-deps.sh installs it)";
  }
  CapturedOutput validate(const std::vector<fs::path>& documents) const {
    std::vector<std::string> argv = {python_, (kSource / "tests/tools/validate_k8s_manifest.py").string(),
                                     kJobSchema.string()};
    for (const auto& d : documents) argv.push_back(d.string());
    return capture_output(argv, 120);
  }
  // `manifest` changed by `change`, written to `file` and validated.
  CapturedOutput validate_changed(const fs::path& manifest, const fs::path& file,
                                  const std::function<void(json&)>& change) const {
    json changed = read_json(manifest);
    change(changed);
    std::ofstream(file) << changed.dump();
    return validate({file});
  }
  const std::string python_ = "/usr/bin/python3";
};

TEST_F(K8sSchema, EveryJobIsValidByKubernetesSchemaOnePerNode) {
  TempDir dir;
  const auto r = run_dlcbench(k8s_args(dir / "jobs"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto files = manifests_in(dir / "jobs");
  ASSERT_EQ(files.size(), 2u);
  const auto valid = validate(files);
  EXPECT_TRUE(valid.result.ok()) << valid.out << valid.result.stderr_tail;
  std::set<std::string> nodes;
  for (const auto& file : files) {
    const json job = read_json(file);
    EXPECT_EQ(file.filename().string(), job["metadata"]["name"].get<std::string>() + ".json");
    nodes.insert(job["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuring"
                     "Execution"]["nodeSelectorTerms"][0]["matchFields"][0]["values"][0]
                     .get<std::string>());
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"node-a", "worker-7.example.internal"}));
  // What to do next, and the bare host's side with the same options.
  EXPECT_THAT(r.out, HasSubstr("kubectl apply -f"));
  EXPECT_THAT(r.out, HasSubstr("kubectl delete jobs -n bench -l dlcbench.run=t1"));
  EXPECT_THAT(r.out, HasSubstr("on node-a: dlcbench run --envs host --out /var/lib/dlcbench/results/t1/node-a/host "
                               "--data /srv/dlcbench-data --workloads fcn5 --runs 5 --threads 2 --seed 7"));
}

TEST_F(K8sSchema, TheValidationCanFail) {
  TempDir dir;
  ASSERT_EQ(run_dlcbench(k8s_args(dir / "jobs")).exit_code, 0);
  const fs::path manifest = manifests_in(dir / "jobs").front();
  // A wrong type: backoffLimit is an integer.
  auto r = validate_changed(manifest, dir / "type.json", [](json& j) { j["spec"]["backoffLimit"] = "0"; });
  EXPECT_FALSE(r.result.ok());
  EXPECT_THAT(r.out, HasSubstr("spec/backoffLimit: '0' is not of type 'integer'"));
  // A missing required field: a container's name.
  r = validate_changed(manifest, dir / "required.json",
                       [](json& j) { j["spec"]["template"]["spec"]["containers"][0].erase("name"); });
  EXPECT_FALSE(r.result.ok());
  EXPECT_THAT(r.out, HasSubstr("spec/template/spec/containers/0: 'name' is a required property"));
  // A field Kubernetes does not know (a typo): refused as kubectl refuses it.
  r = validate_changed(manifest, dir / "unknown.json", [](json& j) {
    j["spec"]["template"]["spec"]["containers"][0]["securityContext"]["allowPrivilegeEscalaton"] = false;
  });
  EXPECT_FALSE(r.result.ok());
  EXPECT_THAT(r.out, HasSubstr("allowPrivilegeEscalaton"));
  // Another kind than the schema's.
  r = validate_changed(manifest, dir / "kind.json", [](json& j) { j["apiVersion"] = "batch/v2"; });
  EXPECT_FALSE(r.result.ok());
  EXPECT_THAT(r.out, HasSubstr("no definition"));
}

TEST(K8sCli, OptionsAJobCannotTakeAreRefusedAndNothingIsWritten) {
  TempDir dir;
  struct Case {
    std::vector<std::string> extra;
    std::string message;
  };
  for (const auto& c : std::vector<Case>{
           {{"--envs", "host,docker"}, "--envs cannot be given to dlcbench k8s"},
           {{"--resume=results/x"}, "--resume cannot be given"},
           {{"--runs", "0"}, "--runs"},
           {{"--workloads", "nosuch"}, "nosuch"},
           // CLI11 refuses words after -- itself (k8s takes no positional words).
           {{"--", "python3", "train.py"}, "were not expected"},
           {{"python3"}, "not a command"},
       }) {
    auto args = k8s_args(dir / "jobs");
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    const auto r = run_dlcbench(args);
    EXPECT_EQ(r.exit_code, 2) << c.message << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr(c.message));
    EXPECT_FALSE(fs::exists(dir / "jobs")) << c.message;
  }
}

TEST(K8sCli, NodeNamesAndFoldersAreCheckedBeforeWriting) {
  TempDir dir;
  auto args = k8s_args(dir / "jobs");
  args[2] = "Node-A,node-b";
  auto r = run_dlcbench(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("'Node-A' holds capitals"));
  args[2] = "node-a,node-a";
  r = run_dlcbench(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("node-a is named twice"));
  EXPECT_FALSE(fs::exists(dir / "jobs"));
  // kubectl apply -f DIR would apply whatever else DIR holds.
  testing::write_text(dir / "jobs/other.yaml", "kind: Secret\n");
  r = run_dlcbench(k8s_args(dir / "jobs"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("not an empty folder"));
}

}  // namespace
}  // namespace dlcbench
