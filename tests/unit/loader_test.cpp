// The loader workload's parts: augmentation, the training step, the worker
// processes and their shared memory, and the workload as the worker runs it.
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/case_spec.h"
#include "core/errors.h"
#include "data/example_reader.h"
#include "test_files.h"
#include "workloads/loader/augment.h"
#include "workloads/loader/linear_classifier.h"
#include "workloads/loader/loader.h"
#include "workloads/loader/worker_pool.h"
#include "workloads/micro/micro_workloads.h"

namespace dlcbench {
namespace {

using loader::Augmentation;
using loader::ImageShape;

// Every name in `folder`.
std::set<std::string> loader_segments_in(const char* folder) {
  std::set<std::string> names;
  if (DIR* dir = opendir(folder)) {
    while (const dirent* entry = readdir(dir)) names.insert(entry->d_name);
    closedir(dir);
  }
  return names;
}

// Polls `done` for up to 5 s.
bool testing_wait_until(const std::function<bool()>& done) {
  for (int i = 0; i < 500; ++i) {
    if (done()) return true;
    usleep(10000);
  }
  return done();
}

// The names in /dev/shm of this process's loader segments.
std::set<std::string> loader_segments() {
  std::set<std::string> names;
  const std::string prefix = "dlcbench-loader-" + std::to_string(getpid()) + "-";
  if (DIR* dir = opendir("/dev/shm")) {
    while (const dirent* entry = readdir(dir))
      if (std::string(entry->d_name).rfind(prefix, 0) == 0) names.insert(entry->d_name);
    closedir(dir);
  }
  return names;
}

// MNIST-format images a linear model can learn through the augmentation's
// shifts of up to 4 pixels: class 0 lights the top 10 rows, class 1 the
// bottom 10, over seeded noise.
void write_learnable_mnist(const std::filesystem::path& dir, std::uint32_t count) {
  std::filesystem::create_directories(dir);
  std::vector<std::uint8_t> pixels(count * 784), labels(count);
  std::mt19937 noise(7);
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint32_t k = i % 2;
    labels[i] = static_cast<std::uint8_t>(k);
    for (std::uint32_t p = 0; p < 784; ++p) {
      const std::uint32_t row = p / 28;
      const bool lit = k == 0 ? row < 10 : row >= 18;
      pixels[i * 784 + p] = static_cast<std::uint8_t>((lit ? 200 : 0) + noise() % 40);
    }
  }
  testing::write_bytes(dir / "train-images-idx3-ubyte", testing::idx_bytes({count, 28, 28}, pixels));
  testing::write_bytes(dir / "train-labels-idx1-ubyte", testing::idx_bytes({count}, labels));
}

TEST(LoaderAugment, WithoutPaddingFlipOrResizeTheImageIsUnchanged) {
  const ImageShape shape{2, 5, 7};
  std::vector<float> in(static_cast<std::size_t>(shape.floats()));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  std::vector<float> out(in.size(), -1.0f);
  std::mt19937_64 rng(1);
  // A 5x7 image resized to an edge of 5 would change it; square one instead.
  const ImageShape square{2, 6, 6};
  std::vector<float> square_in(static_cast<std::size_t>(square.floats()));
  for (std::size_t i = 0; i < square_in.size(); ++i) square_in[i] = static_cast<float>(i * 3 % 11);
  std::vector<float> square_out(square_in.size(), -1.0f);
  loader::augment_example(square_in.data(), square, Augmentation{0, false, 6}, rng, square_out.data());
  EXPECT_EQ(square_out, square_in);
}

TEST(LoaderAugment, AFlipMirrorsEveryRowAndHappensAboutHalfTheTime) {
  const ImageShape shape{1, 4, 4};
  std::vector<float> in(16);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  std::vector<float> mirrored(16);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) mirrored[static_cast<std::size_t>(y * 4 + x)] = in[static_cast<std::size_t>(y * 4 + 3 - x)];
  std::mt19937_64 rng(3);
  int flips = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> out(16);
    loader::augment_example(in.data(), shape, Augmentation{0, true, 4}, rng, out.data());
    ASSERT_TRUE(out == in || out == mirrored) << "trial " << trial;
    flips += out == mirrored;
  }
  EXPECT_GT(flips, 60);
  EXPECT_LT(flips, 140);
}

TEST(LoaderAugment, TheCropShiftsTheImageOverZeroPaddingAndTheResizeInterpolates) {
  const ImageShape shape{1, 3, 3};
  const std::vector<float> ones(9, 1.0f);
  std::mt19937_64 rng(5);
  bool saw_padding = false;
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<float> out(9);
    loader::augment_example(ones.data(), shape, Augmentation{1, false, 3}, rng, out.data());
    for (float v : out) ASSERT_TRUE(v == 0.0f || v == 1.0f);
    saw_padding = saw_padding || std::count(out.begin(), out.end(), 0.0f) > 0;
  }
  EXPECT_TRUE(saw_padding);
  // A constant image stays constant through a resize; a ramp stays monotone.
  std::vector<float> big(36);
  loader::augment_example(ones.data(), shape, Augmentation{0, false, 6}, rng, big.data());
  for (float v : big) EXPECT_FLOAT_EQ(v, 1.0f);
  const std::vector<float> ramp = {0, 1, 2, 0, 1, 2, 0, 1, 2};
  loader::augment_example(ramp.data(), shape, Augmentation{0, false, 6}, rng, big.data());
  for (int x = 1; x < 6; ++x) EXPECT_GE(big[static_cast<std::size_t>(x)], big[static_cast<std::size_t>(x - 1)]);
  EXPECT_FLOAT_EQ(big[0], 0.0f);
  EXPECT_FLOAT_EQ(big[5], 2.0f);
}

TEST(LoaderClassifier, StartsAtLogOfTheClassesAndItsLossFallsOnLearnableData) {
  constexpr int kFeatures = 20, kBatch = 32;
  loader::LinearClassifier model(kFeatures, 10);
  std::mt19937 rng(11);
  std::normal_distribution<float> noise(0.0f, 0.3f);
  std::vector<float> x(kFeatures * kBatch);
  std::vector<std::int32_t> y(kBatch);
  auto draw = [&] {
    for (int r = 0; r < kBatch; ++r) {
      y[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(rng() % 10);
      for (int f = 0; f < kFeatures; ++f)
        x[static_cast<std::size_t>(r * kFeatures + f)] = noise(rng) + (f == 2 * y[static_cast<std::size_t>(r)] ? 3.0f : 0.0f);
    }
  };
  draw();
  EXPECT_NEAR(model.train_step(x.data(), y.data(), kBatch), std::log(10.0), 1e-5);
  double late = 0;
  for (int step = 0; step < 300; ++step) {
    draw();
    const double loss = model.train_step(x.data(), y.data(), kBatch);
    if (step >= 290) late += loss / 10;
  }
  EXPECT_LT(late, 0.5 * std::log(10.0));
}

TEST(LoaderPool, BatchesArriveInOrderFromEveryWorkerAndNoSegmentIsLeft) {
  constexpr std::size_t bytes = 4096 * 3 + 8;  // not a whole number of pages
  {
    loader::WorkerPool pool({3, 2, bytes, ""}, [](std::uint64_t index, std::byte* out) {
      for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<std::byte>((index * 31 + i) & 0xff);
    });
    ASSERT_EQ(pool.worker_pids().size(), 3u);
    EXPECT_EQ(pool.in_flight_bytes(), 6 * bytes);
    for (std::uint64_t expected = 0; expected < 20; ++expected) {
      const loader::BatchView view = pool.next();
      ASSERT_EQ(view.index, expected);
      ASSERT_EQ(view.bytes, bytes);
      for (std::size_t i = 0; i < bytes; i += 997)
        ASSERT_EQ(view.data[i], static_cast<std::byte>((expected * 31 + i) & 0xff)) << "batch " << expected;
      EXPECT_GE(view.wait_seconds, 0.0);
    }
    // Asked ahead and not consumed: they exist until the pool ends (once a
    // worker has made the next one: they run on their own).
    EXPECT_TRUE(testing_wait_until([] { return !loader_segments().empty(); }));
  }
  EXPECT_TRUE(loader_segments().empty());
}

TEST(LoaderPool, AWorkerKilledIsNamedWithItsSignalAndNothingIsLeftBehind) {
  {
    loader::WorkerPool pool({2, 1, 1024, ""}, [](std::uint64_t, std::byte* out) { out[0] = std::byte{1}; });
    pool.next();
    const pid_t victim = pool.worker_pids()[1];
    ASSERT_EQ(kill(victim, SIGKILL), 0);
    try {
      for (int i = 0; i < 10; ++i) pool.next();
      FAIL() << "no error after the worker was killed";
    } catch (const loader::WorkerLost& lost) {
      EXPECT_EQ(lost.worker, 1);
      EXPECT_EQ(lost.pid, victim);
      EXPECT_TRUE(WIFSIGNALED(lost.status));
      EXPECT_NE(std::string(lost.what()).find("killed by signal 9 (SIGKILL"), std::string::npos) << lost.what();
    }
  }
  EXPECT_TRUE(loader_segments().empty());
}

TEST(LoaderPool, AWorkerThatCannotFillABatchSaysWhy) {
  loader::WorkerPool pool({1, 2, 64, ""}, [](std::uint64_t index, std::byte*) {
    if (index == 1) throw DataError("train-images-idx3-ubyte: read came up short");
  });
  pool.next();
  try {
    pool.next();
    FAIL() << "no error";
  } catch (const loader::BatchFailed& e) {
    EXPECT_NE(std::string(e.what()).find("could not deliver batch 1: train-images-idx3-ubyte: read came up short"),
              std::string::npos)
        << e.what();
  }
}

// A loader killed before its pool could clean up (SIGKILL at a timeout)
// leaves its batches in flight; whoever gave it its token removes them.
TEST(LoaderPool, WhatAKilledLoaderLeftIsRemovedByItsToken) {
  const std::string token = "test-launch-" + std::to_string(getpid());
  auto with_token = [&] {
    std::set<std::string> names;
    for (const auto& name : loader_segments_in("/dev/shm"))
      if (name.rfind("dlcbench-loader-" + token + "-", 0) == 0) names.insert(name);
    return names;
  };
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    loader::WorkerPool pool({2, 2, 4096, token}, [](std::uint64_t, std::byte* out) { out[0] = std::byte{1}; });
    pool.next();
    // Killed once a batch asked ahead is in /dev/shm (its workers end with
    // it, PR_SET_PDEATHSIG; the batches they wrote stay).
    _exit(testing_wait_until([&] { return !with_token().empty(); }) ? 0 : 1);  // no destructor runs
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "no batch asked ahead reached /dev/shm";
  const auto left = with_token();
  const auto removed = loader::remove_segments(token);
  EXPECT_EQ(std::set<std::string>(removed.begin(), removed.end()), left);
  EXPECT_TRUE(with_token().empty());
  EXPECT_TRUE(loader::remove_segments("../etc").empty());  // no token of ours: nothing is touched
}

TEST(LoaderPool, WaitStatusesReadAsAUserSearchesForThem) {
  EXPECT_EQ(loader::describe_wait_status(SIGBUS), "killed by signal 7 (SIGBUS: Bus error)");
  EXPECT_EQ(loader::describe_wait_status(3 << 8), "exited with status 3");
}

TEST(LoaderWorkload, TrainsOnBatchesHandedOverByWorkersAndReportsTheWaitForData) {
  testing::TempDir dir;
  write_learnable_mnist(dir / "mnist", 512);
  MicroParams params;
  params.variant = "mnist";
  params.size = 28;
  params.batch = 32;
  params.workers = 2;
  params.prefetch = 2;
  params.seed = 9;
  params.examples = open_example_reader("mnist", dir.path());
  auto benchmark = make_loader(params);
  const nlohmann::json described = benchmark->describe();
  EXPECT_EQ(described["workers"], 2);
  EXPECT_EQ(described["in_flight_bytes"], 4 * loader_batch_bytes("mnist", 32, 28));
  std::vector<double> losses;
  for (int op = 0; op < 12; ++op) {
    const MicroResult r = benchmark->run();
    EXPECT_EQ(r.work, kLoaderBatchesPerOperation * 32);
    EXPECT_GT(r.seconds, 0);
    const double wait = r.detail.at("data_wait_seconds").get<double>();
    EXPECT_GE(wait, 0);
    EXPECT_LE(wait, r.seconds);
    losses.push_back(r.detail.at("loss").get<double>());
  }
  EXPECT_LT(losses.back(), 0.3 * losses.front()) << "first " << losses.front() << ", last " << losses.back();
  benchmark.reset();
  EXPECT_TRUE(loader_segments().empty());
}

TEST(LoaderWorkload, ItsCasesNameTheirSettingsAndRefuseBadOnes) {
  MicroPlanSettings settings;
  const auto cases = expand_micro_cases(parse_micro_request("loader/cifar10:workers=3,prefetch=1,batch=16,edge=40"),
                                        settings);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].id(), "loader/cifar10/w3/p1/b16/e40");
  const CaseSpec back = nlohmann::json(cases[0]).get<CaseSpec>();
  EXPECT_EQ(back.workers, 3);
  EXPECT_EQ(back.prefetch, 1);
  EXPECT_EQ(back.batch, 16);
  EXPECT_EQ(back.id(), cases[0].id());
  EXPECT_EQ(expand_micro_cases(parse_micro_request("loader"), settings).size(), 2u);  // mnist and cifar10
  EXPECT_EQ(micro_params(cases[0], "").workers, 3);
  EXPECT_NE(testing::error_of<UsageError>([&] {
              expand_micro_cases(parse_micro_request("loader/mnist:workers=0"), settings);
            }).find("workers=0 is not a positive whole number"),
            std::string::npos);
  EXPECT_NE(testing::error_of<UsageError>([&] {
              expand_micro_cases(parse_micro_request("loader/mnist:prefetch=1000"), settings);
            }).find("prefetch=1000 is out of range"),
            std::string::npos);
  EXPECT_NE(testing::error_of<UsageError>([&] { parse_micro_request("loader/imagenet"); }).find("mnist, cifar10"),
            std::string::npos);
}

}  // namespace
}  // namespace dlcbench
