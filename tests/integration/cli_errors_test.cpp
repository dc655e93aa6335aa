// Bad input and interruption, through the real binary.
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../unit/test_files.h"
#include "core/process.h"
#include "core/sha.h"
#include "test_support.h"

namespace dlcbench {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::run_dlcbench;
using testing::TempDir;
namespace fs = std::filesystem;

std::vector<std::string> small_run(const std::string& out) {
  return {"run", "--workloads", "fcn5", "--batch", "8", "--warmup", "1", "--iters", "2",
          "--data", "synthetic", "--out", out, "--threads", "1"};
}

TEST(Cli, WorkerPrintsFingerprintThenOneLinePerBatch) {
  auto r = run_dlcbench({"worker", "--data", "synthetic", "--batch", "4", "--warmup", "2", "--iters", "3",
                         "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<nlohmann::json> lines;
  std::stringstream ss(r.out);
  std::string line;
  while (std::getline(ss, line)) lines.push_back(nlohmann::json::parse(line));
  // fingerprint, warm-up, the measured phase's start, measured, accounting, done
  ASSERT_EQ(lines.size(), 1u + 2 + 1 + 3 + 1 + 1);
  EXPECT_EQ(lines[0]["type"], "fingerprint");
  EXPECT_EQ(lines[0]["dataset"]["synthetic"], true);
  EXPECT_EQ(lines[1]["phase"], "warmup");
  EXPECT_EQ(lines[3]["type"], "phase");
  EXPECT_EQ(lines[3]["phase"], "measured");
  EXPECT_EQ(lines[4]["phase"], "measured");
  EXPECT_GT(lines[4]["seconds"].get<double>(), 0);
  EXPECT_TRUE(lines[4]["loss"].is_number());
  EXPECT_GE(lines[4]["cpu_seconds"].get<double>(), 0);
  EXPECT_EQ(lines[lines.size() - 2]["type"], "accounting");
  EXPECT_EQ(lines[lines.size() - 2]["batches"], 3);
  EXPECT_EQ(lines.back()["type"], "done");
}

TEST(Cli, UnknownNamesListTheValidOnes) {
  TempDir out;
  auto w = run_dlcbench({"run", "--workloads", "vgg16", "--envs", "host", "--out", out.path().string()});
  EXPECT_EQ(w.exit_code, 2);
  EXPECT_THAT(w.err, HasSubstr("unknown workload 'vgg16': valid workloads are fcn5"));
  auto b = run_dlcbench({"run", "--backends", "caffe", "--envs", "host", "--out", out.path().string()});
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_THAT(b.err, HasSubstr("valid back ends are torch"));
  auto e = run_dlcbench({"run", "--envs", "host,lxd", "--out", out.path().string()});
  EXPECT_EQ(e.exit_code, 2);
  EXPECT_THAT(e.err, HasSubstr("unknown environment 'lxd': valid environments are host, docker"));
  auto worker = run_dlcbench({"worker", "--workload", "vgg16"});
  EXPECT_EQ(worker.exit_code, 2);
  EXPECT_THAT(worker.err, HasSubstr("valid workloads are fcn5"));
  EXPECT_FALSE(std::filesystem::exists(out / "results"));
}

TEST(Cli, ABadEnvironmentOptionIsRefusedBeforeAnythingRuns) {
  TempDir out;
  auto unknown = run_dlcbench({"run", "--envs", "host,docker:cpu=1", "--out", out.path().string()});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("environment 'docker' has no option 'cpu': valid options are image, runtime, cpus"));
  auto bad = run_dlcbench({"run", "--envs", "host,runc:memory=lots", "--out", out.path().string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("runc:memory=lots is not valid: give a size such as 512m"));
  EXPECT_FALSE(std::filesystem::exists(out / "results"));
  EXPECT_TRUE(std::filesystem::is_empty(out.path()));
}

TEST(Cli, MissingDatasetNamesTheFolderAndTheFetchCommand) {
  TempDir out;
  const auto empty = out / "no-data-here";
  std::filesystem::create_directories(empty);
  auto r = run_dlcbench({"run", "--envs", "host", "--data", empty.string(), "--out", (out / "res").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, AllOf(HasSubstr("no-data-here"), HasSubstr("dlcbench data fetch mnist")));
}

TEST(Cli, CorruptIdxFileNamesTheFileAndTheField) {
  TempDir dir;
  testing::write_mnist_split(dir / "mnist", "train", 4);
  auto bytes = testing::idx_bytes({4, 28, 28}, std::vector<std::uint8_t>(4 * 784));
  bytes[2] = 0x0B;  // type code of 16-bit integers
  testing::write_bytes(dir / "mnist/train-images-idx3-ubyte", bytes);
  auto r = run_dlcbench({"run", "--envs", "host", "--data", dir.path().string(), "--out", (dir / "res").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, AllOf(HasSubstr("train-images-idx3-ubyte"), HasSubstr("type code")));
}

TEST(Cli, RealMnistFormatFilesTrain) {
  TempDir dir;
  testing::write_mnist_split(dir / "mnist", "train", 40);
  auto r = run_dlcbench({"worker", "--data", dir.path().string(), "--batch", "8", "--warmup", "0", "--iters", "2",
                         "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto fingerprint = nlohmann::json::parse(r.out.substr(0, r.out.find('\n')));
  EXPECT_EQ(fingerprint["dataset"]["name"], "mnist");
  EXPECT_EQ(fingerprint["dataset"]["synthetic"], false);
  EXPECT_EQ(fingerprint["dataset"]["examples"], 40);
}

TEST(Cli, DiskInputReadsEveryBatchFromTheFiles) {
  TempDir dir;
  testing::write_mnist_split(dir / "mnist", "train", 40);
  auto r = run_dlcbench({"worker", "--data", dir.path().string(), "--input", "disk", "--batch", "8", "--warmup", "0",
                         "--iters", "3", "--threads", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::stringstream lines(r.out);
  std::string line;
  int samples = 0;
  while (std::getline(lines, line)) {
    auto j = nlohmann::json::parse(line);
    if (j["type"] == "fingerprint") {
      EXPECT_EQ(j["case_spec"]["id"], "fcn5/torch/cpu/b8/disk");
    }
    if (j["type"] != "sample") continue;
    ++samples;
    EXPECT_GT(j["read_seconds"].get<double>(), 0);
    EXPECT_LT(j["read_seconds"].get<double>(), j["seconds"].get<double>());
  }
  EXPECT_EQ(samples, 3);
  // The language model reads its windows from ptb.train.txt.
  std::filesystem::create_directories(dir / "ptb");
  std::string text;
  for (int i = 0; i < 60; ++i) text += "the cat sat on the mat\n";
  for (const char* f : {"ptb.train.txt", "ptb.valid.txt", "ptb.test.txt"}) std::ofstream(dir / "ptb" / f) << text;
  auto lstm = run_dlcbench({"worker", "--workload", "lstm", "--data", dir.path().string(), "--input", "disk",
                            "--batch", "4", "--warmup", "0", "--iters", "2", "--threads", "1"});
  ASSERT_EQ(lstm.exit_code, 0) << lstm.err;
  // and the phase's start and accounting lines
  EXPECT_EQ(std::count(lstm.out.begin(), lstm.out.end(), '\n'), 1 + 1 + 2 + 1 + 1);
  EXPECT_NE(lstm.out.find("read_seconds"), std::string::npos);

  auto synthetic = run_dlcbench({"run", "--envs", "host", "--input", "disk", "--data", "synthetic", "--out",
                                 (dir / "res").string()});
  EXPECT_EQ(synthetic.exit_code, 2);
  EXPECT_THAT(synthetic.err, HasSubstr("synthetic data has none"));
  auto bad = run_dlcbench({"run", "--envs", "host", "--input", "tape", "--out", (dir / "res").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--input: tape not in {memory,disk}"));
}

TEST(Cli, AWorkerOutOfMemorySaysSoAndWhatToLower) {
  // Issue 18: `--batch 99999999` ended in "internal error: std::bad_alloc".
  // The batch now has a limit (65536); below it, an environment with less
  // memory than the batch needs is simulated with an address-space limit.
  if (!find_program("prlimit")) GTEST_SKIP() << "prlimit (util-linux) is not installed";
  const auto c = capture_output({"prlimit", "--as=1200000000", "--", DLCBENCH_BINARY, "worker", "--workload", "fcn5",
                                 "--batch", "65536", "--data", "synthetic", "--warmup", "0", "--iters", "1",
                                 "--threads", "1"},
                                300);
  EXPECT_EQ(c.result.exit_code, 1) << c.result.stderr_tail;
  EXPECT_THAT(c.out, HasSubstr(R"("kind":"memory")"));
  EXPECT_THAT(c.result.stderr_tail, HasSubstr("out of memory: fcn5 with --batch 65536 needs more memory than this "
                                              "environment can give; give a smaller --batch"));
  EXPECT_THAT(c.result.stderr_tail, Not(HasSubstr("bad_alloc")));
}

TEST(Cli, ChangedDataFilesAreWarnedAboutAndTheDigestIsInTheFingerprint) {
  // Issue 18: 4 flipped bytes in train-images trained and reported as mnist.
  TempDir dir;
  const auto mnist = dir / "mnist";
  testing::write_mnist_split(mnist, "train", 40);
  testing::write_mnist_split(mnist, "t10k", 10);
  std::string sums;
  for (const char* name :
       {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"})
    sums += file_digest(mnist / name, "sha256") + "  " + name + "\n";
  testing::write_text(mnist / "SHA256SUMS", sums);
  auto fingerprint_of = [&] {
    auto w = run_dlcbench({"worker", "--data", dir.path().string(), "--batch", "8", "--warmup", "0", "--iters", "1",
                           "--threads", "1"});
    EXPECT_EQ(w.exit_code, 0) << w.err;
    return nlohmann::json::parse(w.out.substr(0, w.out.find('\n')));
  };
  const std::string before = fingerprint_of()["dataset"]["sha256"];
  EXPECT_EQ(before.size(), 64u);
  const std::vector<std::string> plan = {"run", "--envs", "host", "--workloads", "fcn5", "--data",
                                         dir.path().string(), "--dry-run"};
  // Unchanged files: no warning about them (the machine may warn of others,
  // such as OpenBLAS's kernel on a CPU it does not know).
  EXPECT_THAT(run_dlcbench(plan).err, AllOf(Not(HasSubstr("sha256 is")), Not(HasSubstr("train-images"))));
  // Four bytes of pixels flipped: the file still loads.
  std::fstream images(mnist / "train-images-idx3-ubyte", std::ios::in | std::ios::out | std::ios::binary);
  images.seekp(1000);
  images.write("\xff\xfe\xfd\xfc", 4);
  images.close();
  const auto warned = run_dlcbench(plan);
  EXPECT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_THAT(warned.err, AllOf(HasSubstr("warning: "), HasSubstr("train-images-idx3-ubyte: sha256 is"),
                                HasSubstr("dlcbench data fetch --force mnist")));
  EXPECT_NE(fingerprint_of()["dataset"]["sha256"], before);
}

TEST(Cli, AThreadPoolBeyondAQuotaOrCpusetIsWarnedOfWithTheFix) {
  // Issue 20: a quota smaller than the thread pool is measured as throttling.
  auto quota = run_dlcbench({"run", "--envs", "host,docker:cpus=1", "--workloads", "fcn5", "--threads", "2", "--data",
                             "synthetic", "--dry-run"});
  EXPECT_EQ(quota.exit_code, 0) << quota.err;
  EXPECT_THAT(quota.err, AllOf(HasSubstr("warning: docker:cpus=1 has a CPU quota of 1 CPU and every worker runs 2 "
                                         "compute threads"),
                               HasSubstr("--threads 1")));
  auto cpuset = run_dlcbench({"run", "--envs", "host,runc:cpuset=0", "--workloads", "fcn5", "--threads", "2",
                              "--data", "synthetic", "--dry-run"});
  EXPECT_THAT(cpuset.err, HasSubstr("warning: runc:cpuset=0 may run on 1 CPU (cpuset=0)"));
  auto fits = run_dlcbench({"run", "--envs", "host,docker:cpus=1", "--workloads", "fcn5", "--threads", "1", "--data",
                            "synthetic", "--dry-run"});
  EXPECT_THAT(fits.err, Not(HasSubstr("compute threads")));
}

TEST(Cli, ListModelsAlignsEachNetworksColumns) {
  // Issue 18: resnet56's columns were misaligned (names longer than the padding).
  auto r = run_dlcbench({"list", "--models"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::stringstream lines(r.out);
  std::string line;
  std::set<std::size_t> params_at;  // where " params" starts, per network
  auto check_network = [&] {
    EXPECT_LE(params_at.size(), 1u) << "layer lines of one network end their columns at different places";
    params_at.clear();
  };
  while (std::getline(lines, line)) {
    if (line.empty()) check_network();
    if (line.rfind("  ", 0) == 0 && line.ends_with(" params")) params_at.insert(line.size());
  }
  check_network();
  EXPECT_THAT(r.out, HasSubstr("  stage1.1  conv3x3 16 -> 16"));
}

TEST(Cli, DockerUnreachableKeepsTheHostSamples) {
  TempDir out;
  auto args = small_run(out.path().string());
  args.insert(args.end(), {"--envs", "host,docker", "--runs", "2"});
  const std::vector<std::pair<std::string, std::string>> no_daemon = {
      {"DOCKER_HOST", "unix://" + (out / "no-daemon.sock").string()}};
  // Named in --envs, it is bad input before anything is written...
  auto refused = run_dlcbench(args, no_daemon);
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_THAT(refused.err, AllOf(HasSubstr("environment docker cannot run here"), HasSubstr("with-docker.sh"),
                                 HasSubstr("--keep-going")));
  EXPECT_TRUE(fs::is_empty(out.path()));
  // ...unless the user asks for the others without it.
  args.push_back("--keep-going");
  auto r = run_dlcbench(args, no_daemon);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, AllOf(HasSubstr("environment docker is unavailable"), HasSubstr("with-docker.sh")));
  const auto run_dir = testing::only_run_dir(out.path());
  int host_samples = 0;
  for (const auto& rec : testing::read_records(run_dir))
    host_samples += rec.value("type", "") == "sample" && rec.value("env", "") == "host" &&
                    rec.value("phase", "") == "measured";
  EXPECT_EQ(host_samples, 4);
  auto manifest = nlohmann::json::parse(std::ifstream(run_dir / "manifest.json"));
  EXPECT_TRUE(manifest["environments"]["docker"].contains("unavailable"));
  EXPECT_EQ(manifest["status"], "completed");
}

TEST(Cli, CtrlCKeepsWhatWasMeasuredAndMarksTheRunInterrupted) {
  TempDir out;
  auto args = small_run((out / "res").string());
  args.insert(args.end(), {"--envs", "host", "--runs", "500"});
  const pid_t pid = testing::spawn_dlcbench(args, out / "log");
  // Wait for the first measured sample, then interrupt.
  ASSERT_TRUE(testing::wait_until([&] { return testing::has_sample(out / "res", "host"); }, 60))
      << "no sample within 60 s";
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);

  const auto run_dir = testing::only_run_dir(out / "res");
  const auto records = testing::read_records(run_dir);  // every line valid
  int samples = 0;
  for (const auto& rec : records) samples += rec.value("type", "") == "sample";
  EXPECT_GE(samples, 1);
  auto manifest = nlohmann::json::parse(std::ifstream(run_dir / "manifest.json"));
  EXPECT_EQ(manifest["status"], "interrupted");
  EXPECT_TRUE(manifest.contains("ended_at"));
}

TEST(Cli, CtrlCOnATerminalClearsTheLiveLineBeforeTheReport) {
  // Issue 18: after Ctrl-C the report and "interrupted" were written onto the
  // live progress line. On a terminal (a pty here), the line is cleared
  // ("\r\x1b[K") before anything else is written.
  TempDir out;
  int master = -1, slave = -1;
  ASSERT_EQ(openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  fcntl(master, F_SETFD, FD_CLOEXEC);
  auto args = small_run((out / "res").string());
  args.insert(args.end(), {"--envs", "host", "--runs", "500"});
  const pid_t pid = testing::spawn_dlcbench_with(args, slave, slave);
  ::close(slave);
  std::string seen;
  char buf[4096];
  auto drain = [&] {
    pollfd p{master, POLLIN, 0};
    while (poll(&p, 1, 50) > 0) {
      const ssize_t n = ::read(master, buf, sizeof buf);
      if (n <= 0) return;
      seen.append(buf, static_cast<std::size_t>(n));
    }
  };
  // Until the live line shows a later launch than the first.
  ASSERT_TRUE(testing::wait_until([&] { return drain(), seen.find("[1/500]") != std::string::npos; }, 120)) << seen;
  kill(pid, SIGINT);
  const int status = testing::exit_status_within(pid, 120);
  drain();
  ::close(master);
  EXPECT_EQ(status, 130);
  // The last live line ("\r\x1b[K[n/m] round ...") is followed by its
  // clearing, not by the report.
  const auto live = seen.rfind("\x1b[K[");
  ASSERT_NE(live, std::string::npos);
  const auto next_line = seen.find_first_of("\r\n", live);
  ASSERT_NE(next_line, std::string::npos);
  EXPECT_EQ(seen.substr(next_line, 4), "\r\x1b[K") << seen.substr(live, 200);
}

TEST(Cli, ReportRecomputesFromTheFiles) {
  TempDir out;
  auto args = small_run(out.path().string());
  args.insert(args.end(), {"--envs", "host", "--runs", "2"});
  auto r = run_dlcbench(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto report = run_dlcbench({"report", testing::only_run_dir(out.path()).string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_THAT(report.out, AllOf(HasSubstr("fcn5/torch/cpu/b8"), HasSubstr("host"), HasSubstr("completed")));
}

TEST(Cli, AComparisonOfDifferentBinariesIsRefusedWithTheReason) {
  // A real host run, turned into a two-environment run whose second
  // environment reports a different binary: `report` must refuse to give an
  // overhead and name the field.
  TempDir out;
  auto args = small_run(out.path().string());
  args.insert(args.end(), {"--envs", "host", "--runs", "2"});
  ASSERT_EQ(run_dlcbench(args).exit_code, 0);
  const auto run_dir = testing::only_run_dir(out.path());
  auto manifest = nlohmann::json::parse(std::ifstream(run_dir / "manifest.json"));
  manifest["plan"]["environments"] = {"host", "docker"};
  std::ofstream(run_dir / "manifest.json") << manifest.dump();
  auto records = testing::read_records(run_dir);
  std::ofstream results(run_dir / "results.jsonl", std::ios::app);
  for (auto r : records) {
    if (r.value("env", "") != "host") continue;
    r["env"] = "docker";
    if (r["type"] == "fingerprint") r["binary_sha256"] = std::string(64, '0');
    results << r.dump() << "\n";
  }
  results.close();
  auto report = run_dlcbench({"report", run_dir.string(), "--details"});
  EXPECT_EQ(report.exit_code, 3);
  EXPECT_THAT(report.out, AllOf(HasSubstr("docker vs host: NOT COMPARED"), HasSubstr("binary_sha256"),
                                HasSubstr(std::string(64, '0'))));
}

// Issue 35, item 20: messages that pointed the wrong way.
TEST(Cli, AnUnknownCommandIsNamedWithTheCommandsThereAre) {
  auto r = run_dlcbench({"bogus"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, AllOf(HasSubstr("unknown command 'bogus': the commands are run, explain"), HasSubstr("report"),
                           Not(HasSubstr("A subcommand is required"))));
}

TEST(Cli, AnEmptyProgramIsRefusedAsThatNotAsABadName) {
  auto r = run_dlcbench({"run", "--envs", "host", "--dry-run", "--", ""});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, AllOf(HasSubstr("-- '': the command's program is an empty word"), Not(HasSubstr("--name"))));
}

TEST(Cli, ExplainAndCalibrateHelpLeaveOutTheEnvsTheyRefuse) {
  for (const char* command : {"explain", "calibrate"}) {
    auto help = run_dlcbench({command, "--help"});
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_THAT(help.out, AllOf(HasSubstr("--runs"), Not(HasSubstr("--envs")))) << command;
  }
  auto refused = run_dlcbench({"calibrate", "--envs", "host", "--data", "synthetic", "--dry-run"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("leave --envs out"));
}

TEST(Cli, ALaunchStoppedAtTheCaseTimeoutNamesTheLimit) {
  TempDir out;
  auto r = run_dlcbench({"run", "--envs", "host", "--runs", "1", "--max-runs", "1", "--warmup", "0", "--case-timeout",
                         "1", "--out", (out / "res").string(), "--", "sleep", "30"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err + r.out, HasSubstr("timed out and was stopped after 1 s (--case-timeout 1)"));
}

TEST(Cli, ADataSetsNameMeansTheFolderDataFetchFilled) {
  TempDir fetched;
  testing::write_mnist_split(fetched / "mnist", "train", 40);
  testing::write_mnist_split(fetched / "mnist", "t10k", 10);
  auto r = run_dlcbench({"run", "--envs", "host", "--workloads", "fcn5", "--data", "mnist", "--dry-run"},
                        {{"DLCBENCH_DATA", fetched.path().string()}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr(fetched.path().string()));
}

TEST(Cli, APathWithACommaInAnEnvironmentSaysHowToGiveIt) {
  auto r = run_dlcbench({"run", "--envs", "host,runc:rootfs=/srv/images/a,ma", "--dry-run", "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, AllOf(HasSubstr("unknown environment 'ma' after 'runc:rootfs=/srv/images/a'"),
                           HasSubstr("symbolic link")));
}

TEST(Cli, TheThreadPoolWarningIsForDlcbenchsWorkersOnceAnEnvironment) {
  // A user's command is not run with --threads: no warning about them.
  auto command = run_dlcbench({"run", "--envs", "host,runc:cpus=1,rootfs=/", "--threads", "2", "--dry-run", "--",
                               "/bin/true"});
  EXPECT_EQ(command.exit_code, 0) << command.err;
  EXPECT_THAT(command.err, Not(HasSubstr("compute threads")));
  // explain warned once for each of its variants.
  auto explain = run_dlcbench({"explain", "docker:cpus=1", "--features", "limits,seccomp", "--workloads", "fcn5",
                               "--threads", "2", "--data", "synthetic", "--dry-run"});
  EXPECT_EQ(explain.exit_code, 0) << explain.err;
  std::size_t warnings = 0;
  for (auto at = explain.err.find("compute threads"); at != std::string::npos;
       at = explain.err.find("compute threads", at + 1))
    ++warnings;
  EXPECT_EQ(warnings, 1u) << explain.err;
}

TEST(Cli, ExplainAndCalibrateSayWhatToDoWithACommand) {
  auto calibrate = run_dlcbench({"calibrate", "--dry-run", "--", "/bin/true"});
  EXPECT_EQ(calibrate.exit_code, 2);
  EXPECT_THAT(calibrate.err, AllOf(HasSubstr("dlcbench run --envs host,host -- COMMAND"),
                                   Not(HasSubstr("not expected"))));
  auto explain = run_dlcbench({"explain", "docker", "--dry-run", "--", "/bin/true"});
  EXPECT_EQ(explain.exit_code, 2);
  EXPECT_THAT(explain.err, AllOf(HasSubstr("dlcbench run --envs host,ENV -- COMMAND"), Not(HasSubstr("not expected"))));
}

// Issue 35, item 10: a command with the default environments measured the
// host alone (none of the runtimes found has the command's image).
TEST(Cli, ACommandWithoutEnvsIsToldWhichToGive) {
  auto r = run_dlcbench({"run", "--dry-run", "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("give --envs, e.g. --envs host,docker:image=IMAGE"));
}

// Issue 35, item 11: without --data, `ls {data}` listed the working folder.
TEST(Cli, APlaceholderWithNothingToStandForNamesItsOption) {
  auto data = run_dlcbench({"run", "--envs", "host", "--dry-run", "--", "ls", "{data}"});
  EXPECT_EQ(data.exit_code, 2);
  EXPECT_THAT(data.err, HasSubstr("{data} in the command's argument '{data}': give --data FOLDER"));
  auto workdir = run_dlcbench({"run", "--envs", "host", "--dry-run", "--", "cat", "{workdir}/input"});
  EXPECT_EQ(workdir.exit_code, 2);
  EXPECT_THAT(workdir.err, HasSubstr("{workdir} in the command's argument '{workdir}/input': give --workdir FOLDER"));
  auto none = run_dlcbench({"run", "--envs", "host", "--dry-run", "--", "/bin/true"});
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_THAT(none.out, HasSubstr("data: none (a command gets a data folder with --data)"));
}

// Issue 35, item 12: with --metric, the default --warmup 1 took the one
// figure a single-figure tool prints, and every launch failed.
TEST(Cli, ASingleFigureToolIsToldToGiveWarmupZero) {
  TempDir out;
  const std::vector<std::string> command = {"--metric", "value ([0-9]+)", "--", "/bin/sh", "-c", "echo value 5"};
  auto args = [&](std::vector<std::string> head) {
    head.insert(head.end(), command.begin(), command.end());
    return head;
  };
  auto dry = run_dlcbench(args({"run", "--envs", "host", "--dry-run"}));
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_THAT(dry.out, HasSubstr("its first 1 figure warm-up, every later one measured; a tool that prints one "
                                 "figure a launch needs --warmup 0"));
  auto failed =
      run_dlcbench(args({"run", "--envs", "host", "--runs", "2", "--max-runs", "2", "--out", (out / "a").string()}));
  EXPECT_NE(failed.exit_code, 0);
  EXPECT_THAT(failed.err + failed.out, HasSubstr("give --warmup 0 if the command prints 1 figure a launch"));
  auto fixed = run_dlcbench(args(
      {"run", "--envs", "host", "--runs", "2", "--max-runs", "2", "--warmup", "0", "--out", (out / "b").string()}));
  EXPECT_EQ(fixed.exit_code, 0) << fixed.err;
}

// Issue 35, item 8: a metric of -1 was dropped with a note blaming
// results.jsonl for a "wrong type", and a "nan" with no note at all.
TEST(Cli, MetricValuesThatAreNoPositiveNumberAreNamedOnce) {
  TempDir out;
  auto r = run_dlcbench({"run", "--envs", "host", "--runs", "2", "--max-runs", "2", "--warmup", "0", "--metric",
                         "value (\\S+)", "--out", (out / "res").string(), "--", "/bin/sh", "-c",
                         "echo value -1; echo value nan; echo value 3; echo value 4"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto md = run_dlcbench({"report", testing::only_run_dir(out / "res").string(), "--format", "md"});
  EXPECT_THAT(md.out, AllOf(HasSubstr("--metric captured 4 values that are no positive number (-1, nan): a time or "
                                      "a rate is above zero, so they were left out"),
                            Not(HasSubstr("wrong type"))));
  std::size_t notes = 0;
  for (auto at = md.out.find("no positive number"); at != std::string::npos;
       at = md.out.find("no positive number", at + 1))
    ++notes;
  EXPECT_EQ(notes, 1u) << md.out;
}

TEST(Cli, WhatTheRunWouldRefuseTheDryRunRefusesNamingTheOption) {
  // Issue 35 item 9: each of these passed --dry-run with exit 0; the run then
  // skipped the environment and measured the host alone.
  TempDir dir;
  fs::create_directories(dir / "data");
  fs::create_directories(dir / "work");
  const std::string data = (dir / "data").string(), work = (dir / "work").string();
  struct Refused {
    std::vector<std::string> args;  // after `run --out OUT`
    std::string says;
  };
  const std::vector<Refused> cases = {
      {{"--envs", "host,docker", "--", "/bin/true"}, "docker:image=NAME"},
      {{"--envs", "host,docker:image=dlcbench-test-no-such-image:1", "--", "/bin/true"},
       "not in the local Docker image store"},
      {{"--envs", "host,runsc", "--", "/bin/true"}, "rootfs="},
      {{"--envs", "host,chroot", "--", "/bin/true"}, "rootfs="},
      {{"--envs", "host,charliecloud", "--", "/bin/true"}, "image_dir="},
      {{"--envs", "host,docker:image=debian,seccomp=/nonexist.json", "--", "/bin/true"}, "no such profile file"},
      {{"--envs", "host,runc:rootfs=/,seccomp=/etc/passwd", "--", "/bin/true"}, "not JSON"},
      {{"--envs", "host,runc:rootfs=/nonexist", "--", "/bin/true"}, "/nonexist"},
      {{"--envs", "host,docker:image=;rm -rf X", "--", "/bin/true"}, "docker:image=;rm -rf X is not valid"},
      {{"--envs", "host", "--", "dlcbench-test-no-such-program"}, "not on this machine's PATH"},
      {{"--envs", "host", "--", "./no-such-script.sh"}, "not an executable file"},
      {{"--envs", "host", "--data", data, "--workdir", work + ":/data", "--", "/bin/true"},
       "where --data is mounted"},
      {{"--envs", "host", "--data", data, "--workdir", work + ":/data/sub", "--", "/bin/true"},
       "where --data is mounted"},
      {{"--envs", "host", "--workdir", work + ":/proc", "--", "/bin/true"}, "kernel's proc file system"},
      {{"--envs", "host", "--workdir", work + ":/", "--", "/bin/true"}, "other than /"},
  };
  for (const auto& c : cases) {
    for (const bool dry : {true, false}) {
      TempDir out;
      std::vector<std::string> args = {"run", "--out", out.path().string()};
      if (dry) args.push_back("--dry-run");
      args.insert(args.end(), c.args.begin(), c.args.end());
      const auto r = run_dlcbench(args);
      EXPECT_EQ(r.exit_code, 2) << fmt::format("{}", fmt::join(args, " ")) << "\n" << r.err;
      EXPECT_THAT(r.err, HasSubstr(c.says)) << fmt::format("{}", fmt::join(args, " "));
      EXPECT_TRUE(fs::is_empty(out.path())) << "a refused run wrote its folder: " << fmt::format("{}", fmt::join(args, " "));
    }
  }
  // Found by discovery, an environment that cannot run is a note, not an error.
  TempDir out;
  auto discovered = run_dlcbench({"run", "--out", out.path().string(), "--workloads", "fcn5", "--data", "synthetic",
                                  "--dry-run"},
                                 {{"DOCKER_HOST", "unix://" + (out / "no-daemon.sock").string()}});
  EXPECT_EQ(discovered.exit_code, 0) << discovered.err;
  EXPECT_THAT(discovered.err, HasSubstr("note: environment docker cannot run here and will be skipped"));
}

TEST(Cli, ANamedEnvironmentThatFailsItsPreparationEndsTheRunUnlessKeepGoing) {
  // Issue 35 item 9: a runtime that passes every check but cannot start a
  // container (here a runc that answers --version and refuses the rest).
  TempDir dir;
  fs::create_directories(dir / "bin");
  const fs::path fake = dir / "bin" / "runc";
  std::ofstream(fake) << "#!/bin/sh\n"
                         "[ \"$1\" = --version ] && { echo 'runc version 0.0-test'; exit 0; }\n"
                         "echo 'this runc refuses every container' >&2; exit 1\n";
  fs::permissions(fake, fs::perms::owner_all);
  const std::vector<std::pair<std::string, std::string>> path = {
      {"PATH", (dir / "bin").string() + ":" + std::getenv("PATH")}};
  // A root file system with the start-up program in it: preparing tries a
  // container with it.
  fs::create_directories(dir / "rootfs/opt/dlcbench/bin");
  std::ofstream(dir / "rootfs/opt/dlcbench/bin/dlcbench-noop") << "";
  TempDir out;
  std::vector<std::string> args = {"run",  "--out", out.path().string(), "--envs",
                                   "host,runc:rootfs=" + (dir / "rootfs").string(),
                                   "--runs", "2",   "--max-runs", "2", "--warmup", "0",
                                   "--",    "/bin/true"};
  const auto ended = run_dlcbench(args, path);
  EXPECT_EQ(ended.exit_code, 1) << ended.err;
  EXPECT_THAT(ended.err, AllOf(HasSubstr("error: environment runc:rootfs="), HasSubstr("could not be prepared"),
                               HasSubstr("Nothing was measured"), HasSubstr("--keep-going")));
  const auto run_dir = testing::only_run_dir(out.path());
  auto manifest = nlohmann::json::parse(std::ifstream(run_dir / "manifest.json"));
  EXPECT_EQ(manifest["status"], "not started");
  for (const auto& rec : testing::read_records(run_dir)) EXPECT_NE(rec.value("type", ""), "launch") << rec.dump();
  fs::remove_all(run_dir);

  args.insert(std::find(args.begin(), args.end(), "--"), "--keep-going");
  const auto kept = run_dlcbench(args, path);
  EXPECT_EQ(kept.exit_code, 1) << kept.err;
  EXPECT_THAT(kept.err, AllOf(HasSubstr("warning: environment runc:rootfs="), HasSubstr("is unavailable and will be skipped")));
  int host_launches = 0;
  for (const auto& rec : testing::read_records(testing::only_run_dir(out.path())))
    host_launches += rec.value("type", "") == "launch" && rec.value("env", "") == "host";
  EXPECT_EQ(host_launches, 2);
}

}  // namespace
}  // namespace dlcbench
