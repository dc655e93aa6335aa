// A real user's training, measured as a user would (label "heavy", run on
// request: `ctest -L heavy` under scripts/with-docker.sh). The PyTorch
// example (examples/torch/train_mnist.py) on real MNIST with Debian's
// python3-torch on the host, against Docker and Podman from an image built
// from Debian packages alone (scripts/torch-rootfs.sh: debootstrap plus
// python3-torch, about a gigabyte downloaded once and cached), its step
// times read from its JSON lines. Then the same image with
// OMP_NUM_THREADS=1 set by the image: the overhead must be found and the
// variable ranked first among its likely causes.
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../integration/test_support.h"
#include "../unit/test_files.h"
#include "core/process.h"
#include "data/dataset.h"

namespace dlcbench {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using json = nlohmann::json;

constexpr int kRuns = 6;
constexpr const char* kPython = "/usr/bin/python3";

fs::path source_dir() { return DLCBENCH_SOURCE_DIR; }

// What every test needs once: the root file system's tar file, MNIST.
class TorchCommand : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const auto built = capture_output({(source_dir() / "scripts/torch-rootfs.sh").string()}, 3600);
    ASSERT_TRUE(built.result.ok()) << "scripts/torch-rootfs.sh failed: " << built.result.stderr_tail;
    std::istringstream lines(built.out);
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) tar_file_ = line;
    ASSERT_TRUE(fs::exists(tar_file_)) << "scripts/torch-rootfs.sh printed no tar file: " << built.out;
    const auto fetched = testing::run_dlcbench({"data", "fetch", "mnist", "--dir", data_root().string()});
    ASSERT_EQ(fetched.exit_code, 0) << fetched.err;
  }

  static fs::path data_root() { return default_data_root(); }
  static fs::path mnist() { return data_root() / "mnist"; }

  void TearDown() override {
    for (const auto& [engine, tag] : images_) capture_output({engine, "rmi", "--force", tag}, 300);
  }

  // The root file system imported into `engine`, with `changes` (Dockerfile
  // instructions, e.g. "ENV OMP_NUM_THREADS=1"); its name as run takes it.
  std::string image(const std::string& engine, const std::string& suffix, const std::vector<std::string>& changes = {}) {
    const std::string tag = fmt::format("dlcbench-torch-test-{}:{}", suffix, getpid());
    std::vector<std::string> argv = {engine, "import"};
    for (const auto& c : changes) argv.insert(argv.end(), {"--change", c});
    argv.insert(argv.end(), {tar_file_.string(), tag});
    const auto imported = capture_output(argv, 900);
    EXPECT_TRUE(imported.result.ok()) << engine << " import: " << imported.result.stderr_tail;
    images_.emplace_back(engine, tag);
    return engine == "podman" ? "localhost/" + tag : tag;
  }

  // `dlcbench run` of the example, 20 steps of 32 images, 3 warm-up steps.
  testing::CliResult run(const std::string& envs, const std::string& name) {
    return testing::run_dlcbench(
        {"run", "--envs", envs, "--runs", std::to_string(kRuns), "--max-runs", std::to_string(kRuns), "--out",
         out_.path().string(), "--data", mnist().string(), "--workdir", (source_dir() / "examples/torch").string(),
         "--name", name, "--metric", "json:seconds", "--metric-unit", "s/step", "--warmup", "3", "--", kPython,
         "{workdir}/train_mnist.py", "{data}", "--steps", "20", "--batch", "32"},
        {}, 3600);
  }

  json analysis() const {
    const auto dir = testing::only_run_dir(out_.path());
    const auto report = testing::run_dlcbench({"report", dir.string(), "--format", "json"});
    EXPECT_EQ(report.exit_code, 0) << report.err;
    return json::parse(report.out);
  }

  static inline fs::path tar_file_;
  testing::TempDir out_;
  std::vector<std::pair<std::string, std::string>> images_;
};

// The item whose `key` is `value` or starts with it and a colon (an
// environment's label with its options).
const json* find_by(const json& list, const std::string& key, const std::string& value) {
  for (const auto& item : list) {
    const std::string v = item.value(key, "");
    if (v == value || v.rfind(value + ":", 0) == 0) return &item;
  }
  return nullptr;
}

TEST_F(TorchCommand, TheExampleTrainsItsLossGoesDown) {
  const auto trained = capture_output({kPython, (source_dir() / "examples/torch/train_mnist.py").string(),
                                       mnist().string(), "--steps", "30", "--batch", "32"},
                                      600);
  ASSERT_TRUE(trained.result.ok()) << trained.result.stderr_tail;
  std::vector<double> losses;
  std::istringstream lines(trained.out);
  for (std::string line; std::getline(lines, line);) losses.push_back(json::parse(line).at("loss").get<double>());
  ASSERT_EQ(losses.size(), 30u);
  const double last = (losses[27] + losses[28] + losses[29]) / 3;
  EXPECT_LT(last, 0.6 * losses[0]) << "first loss " << losses[0] << ", last three " << last;
}

TEST_F(TorchCommand, HostAgainstDockerAndPodmanFromTheDebianImage) {
  REQUIRE_RUNTIME("docker");
  REQUIRE_RUNTIME("podman");
  // The image's files without isolation too: the image's cost apart from the runtime's.
  const fs::path rootfs = tar_file_.parent_path() / tar_file_.stem();
  ASSERT_TRUE(fs::is_directory(rootfs)) << rootfs;
  const std::string envs = fmt::format("host,chroot:rootfs={},docker:image={},podman:image={}", rootfs.string(),
                                       image("docker", "plain"), image("podman", "plain"));
  const auto r = run(envs, "torch-mnist");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::cout << r.out << std::flush;  // the closing note's figures
  const json a = analysis();
  ASSERT_EQ(a["cases"].size(), 1u);
  const json& c = a["cases"][0];
  EXPECT_EQ(c["case"], "cmd:torch-mnist");
  for (const std::string env : {"chroot", "docker", "podman"}) {
    SCOPED_TRACE(env);
    const json* o = find_by(c["overheads"], "env", env);
    ASSERT_NE(o, nullptr);
    EXPECT_TRUE((*o)["ci95_low"].is_number() && (*o)["ci95_high"].is_number()) << o->dump();
    // Where the image runs: the fingerprints' differences are listed, as possible causes.
    EXPECT_FALSE((*o)["mismatches"].empty());
    for (const auto& m : (*o)["mismatches"]) EXPECT_TRUE(m.value("possible_cause", false)) << m.dump();
    const json* e = find_by(c["envs"], "env", env);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ((*e)["runs"]["n"], kRuns);
    EXPECT_EQ((*e)["startup_seconds"].size(), static_cast<std::size_t>(kRuns));
    // PyTorch's own libraries, read from the running processes, with build ids.
    bool torch_loaded = false;
    for (const auto& f : (*e)["fingerprint"]["command_libraries"]["files"])
      torch_loaded = torch_loaded || (f.value("name", "").find("libtorch") != std::string::npos &&
                                      !f.value("build_id", "").empty());
    EXPECT_TRUE(torch_loaded) << (*e)["fingerprint"]["command_libraries"].dump();
    // The counters per step, after the start-up: CPU time and busy CPUs.
    const json* x = find_by(c["explanations"], "env", env);
    ASSERT_NE(x, nullptr);
    const json* busy = find_by((*x)["counters"], "counter", "busy_cpus");
    ASSERT_NE(busy, nullptr);
    EXPECT_GT((*busy)["mean"].get<double>(), 0.5);
  }
}

TEST_F(TorchCommand, AnImageThatSetsOneThreadIsSlowerAndTheVariableIsRankedFirst) {
  REQUIRE_RUNTIME("docker");
  const std::string envs =
      fmt::format("host,docker:image={}", image("docker", "omp1", {"ENV OMP_NUM_THREADS=1"}));
  const auto r = run(envs, "torch-mnist-omp1");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::cout << r.out << std::flush;
  const json c = analysis()["cases"][0];
  const json* o = find_by(c["overheads"], "env", "docker");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ((*o)["judgement"], "slower") << o->dump();
  const json* x = find_by(c["explanations"], "env", "docker");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ((*x)["status"], "explained") << (*x)["words"];
  ASSERT_FALSE((*x)["likely_causes"].empty()) << x->dump();
  const json& first = (*x)["likely_causes"][0];
  EXPECT_EQ(first["rank"], 1);
  EXPECT_EQ(first["field"], "variables/OMP_NUM_THREADS") << (*x)["likely_causes"].dump();
  EXPECT_EQ(first["fits"], "fewer_busy_cpus");
  EXPECT_EQ(first["other_value"], "1");
  EXPECT_THAT(r.out, HasSubstr("likely cause 1 (a thread setting; fits fewer CPUs kept busy"));
}

// PyTorch's DataLoader with 4 worker processes (examples/torch/load_mnist.py)
// hands its batches over in /dev/shm: in Docker's default 64 MiB it fails
// as users report ("bus error" or "No space left on device" in a worker),
// and the failure reaches the answer; with shm=1g it loads. The figures of
// host, docker:shm=1g and docker:ipc=host go in the closing note.
TEST_F(TorchCommand, TheDataLoadersWorkersNeedMoreThanDockersDefaultSharedMemory) {
  REQUIRE_RUNTIME("docker");
  const std::string tag = image("docker", "loader");
  const std::string envs = fmt::format("host,docker:image={},docker:image={},shm=1g,docker:image={},ipc=host", tag,
                                       tag, tag);
  const auto r = testing::run_dlcbench(
      {"run", "--envs", envs, "--runs", std::to_string(kRuns), "--max-runs", std::to_string(kRuns), "--out",
       out_.path().string(), "--data", mnist().string(), "--workdir", (source_dir() / "examples/torch").string(),
       "--name", "torch-dataloader", "--metric", "json:seconds", "--metric-unit", "s/step", "--warmup", "3", "--",
       kPython, "{workdir}/load_mnist.py", "{data}", "--workers", "4", "--steps", "20"},
      {}, 3600);
  std::cout << r.out << std::flush;  // the closing note's figures
  const json c = analysis()["cases"][0];
  const std::string plain = fmt::format("docker:image={}", tag);
  for (const auto& e : c["envs"]) {
    const std::string env = e["env"];
    SCOPED_TRACE(env);
    if (env == plain) {
      EXPECT_EQ(e["runs"]["n"], 0) << e.dump();
      EXPECT_GT(e["failed_launches"].get<int>(), 0);
    } else {
      EXPECT_EQ(e["runs"]["n"], kRuns) << e.dump();
    }
  }
  // What the user searches for, in the answer.
  EXPECT_THAT(r.out, ::testing::AnyOf(HasSubstr("Bus error"), HasSubstr("bus error"),
                                      HasSubstr("No space left on device"), HasSubstr("shared memory")));
}

}  // namespace
}  // namespace dlcbench
