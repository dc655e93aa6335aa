// Charliecloud's environment: its options, ch-run's argument vector for each
// kind of launch, and the image folder it runs.
#include <stdlib.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/command_spec.h"
#include "core/errors.h"
#include "core/fingerprint.h"
#include "runtimes/charliecloud.h"
#include "model/container_options.h"
#include "runtimes/environment.h"
#include "runtimes/image_builder.h"
#include "test_files.h"

namespace dlcbench {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;
using testing::error_of;

ChRunSetup example_setup() { return {"/usr/bin/ch-run", "/scratch/image", "/scratch/tmp", ""}; }

TEST(CharliecloudOptions, ImageDirIsItsRootfsAndNothingElseIsSettable) {
  EXPECT_THAT(environment_names(), Contains("charliecloud"));
  EXPECT_EQ(runtime_program("charliecloud"), "ch-run");
  EXPECT_EQ(runtime_program("runc"), "runc");
  EXPECT_EQ(runtime_program("host"), "");
  EXPECT_EQ(parse_container_options("charliecloud", {{"image_dir", "/srv/img"}}).rootfs, "/srv/img");
  EXPECT_EQ(parse_container_options("charliecloud", {{"rootfs", "/srv/img"}}).rootfs, "/srv/img");
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("charliecloud:image_dir=/a,rootfs=/b"); }),
              HasSubstr("give image_dir= or rootfs=, not both"));
  const auto cpus = error_of<UsageError>([] { parse_environment_request("charliecloud:cpus=1"); });
  EXPECT_THAT(cpus, HasSubstr("environment 'charliecloud' has no option 'cpus': valid options are image_dir, rootfs"));
  EXPECT_THAT(cpus, HasSubstr("image_dir=DIR   Charliecloud image folder"));
  EXPECT_THAT(error_of<UsageError>([] { parse_environment_request("runc:image_dir=/x"); }), HasSubstr("no option 'image_dir'"));
  std::vector<std::string> texts;
  for (const auto& r : parse_environment_list("host,charliecloud:image_dir=/srv/img,charliecloud"))
    texts.push_back(r.text);
  EXPECT_THAT(texts, ElementsAre("host", "charliecloud:image_dir=/srv/img", "charliecloud"));
}

TEST(ChRunCommand, AWorkerRunsTheImagesBinaryWithTheDataBoundAndTheVariablesInItsEnvironment) {
  WorkerLaunch launch;
  launch.worker_args = {"worker", "--workload", "fcn5"};
  launch.data = "/srv/mnist";
  launch.env = {{"OMP_NUM_THREADS", "2"}};
  ChRunSetup setup = example_setup();
  setup.user = "alice";
  const LaunchCommand c = charliecloud_command(setup, launch);
  EXPECT_THAT(c.argv, ElementsAre("/usr/bin/ch-run", "--bind=/srv/mnist:/data", "/scratch/image", "--",
                                  "/opt/dlcbench/bin/dlcbench-worker", "worker", "--workload", "fcn5", "--data", "/data"));
  // Never a shell: the argument vector is the whole command.
  EXPECT_THAT(c.argv, Not(Contains("sh")));
  EXPECT_THAT(c.env, Contains(Pair("OMP_NUM_THREADS", "2")));
  EXPECT_THAT(c.env, Contains(Pair("TMPDIR", "/scratch/tmp")));
  EXPECT_THAT(c.env, Contains(Pair("USER", "alice")));
}

TEST(ChRunCommand, IoTargetsAreTheWritableImageTheHostsTmpfsOrABoundFolder) {
  WorkerLaunch launch;
  launch.worker_args = {"worker", "--workload", "io-seq"};
  launch.io_target = "rootfs";
  const auto rootfs = charliecloud_command(example_setup(), launch).argv;
  EXPECT_THAT(rootfs, ElementsAre("/usr/bin/ch-run", "--write", "/scratch/image", "--", "/opt/dlcbench/bin/dlcbench-worker",
                                  "worker", "--workload", "io-seq", "--data", "synthetic", "--path", "/var/tmp"));
  launch.io_target = "tmpfs";
  const auto tmpfs = charliecloud_command(example_setup(), launch).argv;
  EXPECT_THAT(tmpfs, Not(Contains("--write")));  // the image stays read-only
  EXPECT_EQ(tmpfs.back(), "/dev/shm");
  launch.io_target = "/srv/scratch";
  const auto folder = charliecloud_command(example_setup(), launch).argv;
  EXPECT_THAT(folder, Contains("--bind=/srv/scratch:/dlcbench-io"));
  EXPECT_EQ(folder.back(), "/dlcbench-io");
  EXPECT_THAT(folder, Not(Contains("--write")));
}

TEST(ChRunCommand, TheNoopRunsAloneAndUserIsLeftAsItIsWhenSet) {
  WorkerLaunch noop;
  noop.program = WorkerLaunch::Program::noop;
  noop.data = "/srv/mnist";  // the noop gets no binds
  const LaunchCommand c = charliecloud_command(example_setup(), noop);
  EXPECT_THAT(c.argv, ElementsAre("/usr/bin/ch-run", "/scratch/image", "--", "/opt/dlcbench/bin/dlcbench-noop"));
  EXPECT_THAT(c.env, ElementsAre(Pair("TMPDIR", "/scratch/tmp")));
}

TEST(ChRunCommand, AUsersCommandRunsUnderTheProbeInTheirImageWithDataAndWorkdirBound) {
  CommandSpec spec;
  spec.argv = {"/bin/steps", "3", "{data}/x", "{workdir}/y"};
  spec.workdir = "/home/alice/project";
  spec.env = {{"PASSED", "yes"}};
  WorkerLaunch launch;
  launch.program = WorkerLaunch::Program::command;
  launch.command = &spec;
  launch.data = "/srv/mnist";
  ChRunSetup setup = example_setup();
  setup.image = "/srv/their-image";
  const LaunchCommand c = charliecloud_command(setup, launch);
  EXPECT_THAT(c.argv, ElementsAre("/usr/bin/ch-run", "--bind=/srv/mnist:/data", "--bind=/home/alice/project:/work",
                                  "/srv/their-image", "--", kContainerProbePath, "--cwd", "/work", "--data", "/data",
                                  "--", "/bin/steps", "3", "/data/x", "/work/y"));
  EXPECT_THAT(c.env, Contains(Pair("PASSED", "yes")));
  EXPECT_THAT(c.env, Contains(Pair("DLCBENCH_DATA", "/data")));
  EXPECT_THAT(c.env, Contains(Pair("DLCBENCH_WORKDIR", "/work")));
  EXPECT_THAT(c.env, Contains(Pair("TMPDIR", "/scratch/tmp")));
  const auto binds = charliecloud_binds(launch);
  ASSERT_EQ(binds.size(), 2u);
  EXPECT_EQ(binds[1].container, "/work");
}

TEST(CharliecloudImage, TheImageFolderHoldsTheWorkerAndEverythingChRunBindsOnto) {
  testing::TempDir dir;
  const fs::path exe = dir / "dlcbench";
  testing::write_text(exe, "not really a binary");
  ImageContent content;
  content.files = {{exe, kImageWorkerPath}};
  const fs::path image = dir / "image";
  write_charliecloud_image(content, image);
  EXPECT_TRUE(fs::is_regular_file(image / "opt/dlcbench/bin/dlcbench-worker"));
  for (const char* folder : {"dev", "proc", "sys", "tmp", "home", "data", "var/tmp", "dlcbench-io"})
    EXPECT_TRUE(fs::is_directory(image / folder)) << folder;
  // Empty: ch-run binds its own or the host's over them.
  for (const char* file : {"etc/passwd", "etc/group", "etc/hosts", "etc/resolv.conf"}) {
    EXPECT_TRUE(fs::is_regular_file(image / file)) << file;
    EXPECT_EQ(fs::file_size(image / file), 0u) << file;
  }
  EXPECT_THAT(charliecloud_image_lacks(image), ElementsAre());
}

TEST(CharliecloudImage, AFolderLackingWhatChRunBindsOntoSaysWhat) {
  testing::TempDir dir;
  fs::create_directories(dir / "img/proc");
  fs::create_directories(dir / "img/etc");
  testing::write_text(dir / "img/etc/group", "");
  EXPECT_THAT(charliecloud_image_lacks(dir / "img"), ElementsAre("dev", "sys", "tmp", "etc/passwd"));
}

TEST(CharliecloudFingerprint, ChRunsVariableMarksAContainer) {
  ::setenv("CH_RUNNING", "Weird Al Yankovic", 1);
  const ContainerDetection d = detect_container("/");
  ::unsetenv("CH_RUNNING");
  EXPECT_TRUE(d.in_container);
  EXPECT_THAT(d.detected_by, HasSubstr("CH_RUNNING"));
}

}  // namespace
}  // namespace dlcbench
