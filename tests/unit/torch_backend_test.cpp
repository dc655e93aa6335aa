#include <cmath>

#include <gtest/gtest.h>

#include "backends/backend.h"
#include "data/dataset.h"
#include "workloads/registry.h"

namespace dlcbench {
namespace {

// A learnable toy problem in MNIST's shape: class k lights up its own band
// of 78 inputs, plus noise.
ClassificationData banded_data(std::size_t count) {
  ClassificationData d = make_synthetic({784}, 10, count, 3);
  for (std::size_t i = 0; i < count; ++i) {
    const auto k = static_cast<std::size_t>(d.labels[i]);
    for (std::size_t p = k * 78; p < (k + 1) * 78; ++p) d.features[i * 784 + p] += 2.0f;
  }
  return d;
}

double mean_of(const std::vector<double>& v, std::size_t from, std::size_t to) {
  double s = 0;
  for (std::size_t i = from; i < to; ++i) s += v[i];
  return s / static_cast<double>(to - from);
}

TEST(TorchBackend, MlpLossFallsOnALearnableProblem) {
  // FCN-5's recipe (sigmoid, Xavier init, SGD momentum 0.9, lr 0.05) on a
  // narrower network, so the test is quick; FCN-5 itself sits on a loss
  // plateau for its first hundred-odd steps (see the real-MNIST figures in
  // bench/README.md).
  WorkloadInfo small = *find_workload("fcn5");
  std::get<models::MlpSpec>(small.model.architecture).layer_sizes = {784, 64, 10};
  const ClassificationData data = banded_data(640);
  CaseSpec spec;
  spec.batch = 32;
  auto backend = make_backend("torch", 1);
  auto session = backend->prepare(small, data, spec);
  EXPECT_EQ(session->parameter_count(), 784 * 64 + 64 + 64 * 10 + 10);
  std::vector<double> losses;
  for (std::size_t i = 0; i < 100; ++i) {
    session->load_batch(i);
    losses.push_back(session->train_step());
    ASSERT_TRUE(std::isfinite(losses.back())) << "step " << i;
  }
  const double first = mean_of(losses, 0, 10), last = mean_of(losses, 90, 100);
  EXPECT_LT(last, 0.25 * first) << "first 10 steps " << first << ", last 10 steps " << last;
}

TEST(TorchBackend, Fcn5IsBuiltWithThePaperShapes) {
  // 784-2048-4096-1024-10 with biases, counted by hand.
  const std::int64_t expected = (784 * 2048 + 2048) + (2048 * 4096 + 4096) + (4096 * 1024 + 1024) + (1024 * 10 + 10);
  EXPECT_EQ(expected, 14205962);
  const WorkloadInfo& fcn5 = *find_workload("fcn5");
  EXPECT_EQ(fcn5.model.parameter_count(), expected);
  const ClassificationData data = make_synthetic({784}, 10, 64, 1);
  CaseSpec spec;
  spec.batch = 16;
  auto backend = make_backend("torch", 2);
  auto session = backend->prepare(fcn5, data, spec);
  EXPECT_EQ(session->parameter_count(), expected);
  session->load_batch(0);
  const double loss = session->train_step();
  EXPECT_NEAR(loss, std::log(10.0), 1.0);  // an untrained 10-way classifier
}

TEST(TorchBackend, DescribesLibraryAndThreads) {
  auto backend = make_backend("torch", 2);
  auto d = backend->describe();
  EXPECT_EQ(d["library"], "LibTorch");
  EXPECT_EQ(d["version"], "1.13.0");
  EXPECT_EQ(d["threads"]["intra_op"], 2);
}

TEST(TorchBackend, RejectsDataOfTheWrongShape) {
  const ClassificationData data = make_synthetic({10}, 10, 64, 1);
  auto backend = make_backend("torch", 1);
  EXPECT_THROW(backend->prepare(*find_workload("fcn5"), data, CaseSpec{}), std::exception);
}

}  // namespace
}  // namespace dlcbench
