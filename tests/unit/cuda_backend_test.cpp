// The cuda back end, loaded through the plugin as a worker loads it, against
// LibTorch on the CPU (the reference back end in a build without LibTorch):
// from the reference's initial weights and the same batches,
// the loss after 1 and 10 steps and the weights after one step
// (agreement_support.h), for the four networks at a small size; and the
// session's own promises (parameters round-trip, GPU time per step).
//
// Tolerances, in float32, wider than the CPU back ends' (1e-5, 1e-3,
// 1e-5 + 1e-3 |w|) because the GPU sums in another order: cuBLAS and cuDNN
// split every dot product, reduction and batch-norm statistic across
// thousands of threads (and cuDNN's weight gradients may add partial sums
// atomically, in whatever order they arrive), and expf/tanhf on the GPU may
// differ from the CPU's in the last bit. TF32 is off, so these are rounding
// differences of FP32 only:
//   loss after step 1:    relative 1e-4
//   weights after step 1: |difference| <= 1e-4 + 2e-3 |value|
//   loss after step 10:   relative 2e-3 (nine updates compound the rounding)
//
// Without a GPU (or without the plugin) every test here skips, saying why.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "agreement_support.h"
#include "backends/backend.h"
#include "backends/parameters.h"
#include "core/errors.h"
#include "gpu/gpu_loader.h"

namespace dlcbench {
namespace {

#if DLCBENCH_HAVE_CUDA

constexpr agreement::Tolerances kGpuTolerances{
    .first_loss = 1e-4, .tenth_loss = 2e-3, .weight_absolute = 1e-4, .weight_relative = 2e-3};

// Loads the back end from the plugin, or skips the test when this machine
// cannot run it.
class CudaBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string reason = gpu_unavailable_reason();
    if (!reason.empty()) GTEST_SKIP() << "no GPU: " << reason << " (the cuda back end's tests need one)";
    backend_ = gpu_plugin().make_backend(1);
  }

  std::unique_ptr<Backend> backend_;
};

class CudaAgreement : public CudaBackendTest, public ::testing::WithParamInterface<int> {};

TEST_P(CudaAgreement, LossAndWeightsMatchTheCpu) {
  agreement::expect_agreement_with_reference(
      *backend_, "cuda", agreement::small_networks()[static_cast<std::size_t>(GetParam())], kGpuTolerances);
}

INSTANTIATE_TEST_SUITE_P(Networks, CudaAgreement, ::testing::Range(0, 4),
                         [](const ::testing::TestParamInfo<int>& param) {
                           return agreement::small_networks()[static_cast<std::size_t>(param.param)].name;
                         });

TEST_F(CudaBackendTest, DescribesTheLibrariesTheDeviceAndTheMath) {
  const nlohmann::json d = backend_->describe();
  EXPECT_EQ(d.at("name"), "cuda");
  EXPECT_NE(d.at("library").get<std::string>().find("cuDNN"), std::string::npos) << d.dump();
  EXPECT_FALSE(d.at("device").get<std::string>().empty());
  EXPECT_EQ(d.at("math"), "FP32 (TF32 off)");
}

TEST_F(CudaBackendTest, ParametersRoundTripAndStepsReportGpuTime) {
  for (const WorkloadInfo& w : agreement::small_networks()) {
    const TrainingData data = agreement::data_for(w);
    CaseSpec spec;
    spec.workload = w.name;
    spec.backend = "cuda";
    spec.batch = agreement::kBatch;
    auto session = backend_->prepare(w, data, spec);
    EXPECT_EQ(session->parameter_count(), w.model.parameter_count()) << w.name;

    // Values unlike the initial ones, so a copy that did nothing shows.
    ParameterSet given = initial_parameters(w.model, 1234);
    for (auto& tensor : given)
      for (std::size_t i = 0; i < tensor.values.size(); ++i) tensor.values[i] += 0.001f * static_cast<float>(i % 7);
    session->set_parameters(given);
    const ParameterSet got = session->parameters();
    ASSERT_EQ(got.size(), given.size()) << w.name;
    for (std::size_t i = 0; i < given.size(); ++i) {
      EXPECT_EQ(got[i].name, given[i].name) << w.name;
      EXPECT_EQ(got[i].shape, given[i].shape) << w.name << " " << given[i].name;
      EXPECT_EQ(got[i].values, given[i].values) << w.name << " " << given[i].name;
    }

    session->load_batch(1);
    const double loss = session->train_step();
    EXPECT_TRUE(std::isfinite(loss)) << w.name;
    EXPECT_GT(loss, 0.0) << w.name;
    const nlohmann::json detail = session->step_detail();
    ASSERT_TRUE(detail.contains("gpu_seconds")) << w.name << ": " << detail.dump();
    EXPECT_GT(detail.at("gpu_seconds").get<double>(), 0.0) << w.name;
  }
}

TEST_F(CudaBackendTest, LabelsOutsideTheClassesAreRejectedOnLoad) {
  const WorkloadInfo w = agreement::small_networks()[0];
  const TrainingData data = agreement::data_for(w);
  CaseSpec spec;
  spec.workload = w.name;
  spec.batch = agreement::kBatch;
  auto session = backend_->prepare(w, data, spec);
  const auto& examples = std::get<ClassificationData>(data);
  const std::vector<std::int64_t> labels(agreement::kBatch, w.model.outputs());
  EXPECT_THROW(session->load_examples(examples.features.data(), labels.data()), std::out_of_range);
}

#else

TEST(CudaBackendTest, SkippedWithoutTheCudaToolkit) {
  GTEST_SKIP() << "no GPU: " << gpu_plugin_not_built();
}

#endif

}  // namespace
}  // namespace dlcbench
