// Numerical agreement between back ends: from LibTorch's initial weights
// (moved through the shared parameter layout) and the same batches, every
// other back end must give LibTorch's loss after 1 step and after 10 steps,
// and LibTorch's weights after one step, for each network at a small size.
//
// Tolerances, stated once for every back end and network, in float32:
//   loss after step 1:   relative 1e-5 (the same forward pass; only the
//                        order of the sums differs)
//   weights after step 1: |difference| <= 1e-5 + 1e-3 |value| (one gradient,
//                        one update)
//   loss after step 10:  relative 1e-3 (nine updates compound the rounding)
// A back end outside these is wrong, not the tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/backend.h"
#include "backends/parameters.h"
#include "core/errors.h"
#include "workloads/registry.h"

namespace dlcbench {
namespace {

constexpr int kBatch = 4;
constexpr int kSteps = 10;
constexpr double kFirstLossTolerance = 1e-5;
constexpr double kTenthLossTolerance = 1e-3;
constexpr double kWeightAbsolute = 1e-5, kWeightRelative = 1e-3;

WorkloadInfo small(const std::string& name, models::Architecture architecture, models::WeightInit init,
                   models::SgdSpec sgd, const std::string& dataset) {
  models::ModelSpec m;
  m.name = name;
  m.architecture = std::move(architecture);
  m.init = init;
  m.optimizer = sgd;
  m.dataset = dataset;
  return WorkloadInfo{name, "small " + name + " for the agreement test", "s/batch", m};
}

// The four networks of the suite, each shrunk but keeping its kind of layers.
std::vector<WorkloadInfo> small_networks() {
  using namespace models;
  return {
      small("fcn5", MlpSpec{.layer_sizes = {64, 48, 32, 24, 10}, .activation = Activation::kSigmoid},
            WeightInit::kXavierUniform, SgdSpec{.learning_rate = 0.05, .momentum = 0.9}, "mnist"),
      small("alexnet",
            ConvNetSpec{.input_shape = {3, 16, 16},
                        .stages = {{.out_channels = 8, .kernel = 5, .stride = 1, .padding = 2, .pool = PoolKind::kMax},
                                   {.out_channels = 8, .kernel = 5, .stride = 1, .padding = 2, .pool = PoolKind::kMax},
                                   {.out_channels = 16, .kernel = 5, .stride = 1, .padding = 2,
                                    .pool = PoolKind::kAverage}},
                        .activation = Activation::kRelu,
                        .classes = 10},
            WeightInit::kKaimingNormal, SgdSpec{.learning_rate = 0.01, .momentum = 0.9}, "cifar10"),
      small("resnet56",
            ResNetSpec{.input_shape = {3, 8, 8}, .blocks_per_stage = 1, .stage_channels = {4, 8, 16}, .classes = 10},
            WeightInit::kKaimingNormal, SgdSpec{.learning_rate = 0.01, .momentum = 0.9}, "cifar10"),
      small("lstm",
            LstmSpec{.vocabulary = 40, .embedding = 12, .hidden = 16, .layers = 2, .sequence = 6, .init_range = 0.1},
            WeightInit::kUniform, SgdSpec{.learning_rate = 1.0, .momentum = 0.0, .clip_grad_norm = 5.0}, "ptb"),
  };
}

// Random examples (or text) the network's shape needs, the same for every back end.
TrainingData data_for(const WorkloadInfo& w) {
  std::mt19937 rng(7);
  if (const auto* lstm = std::get_if<models::LstmSpec>(&w.model.architecture)) {
    TokenStream text;
    text.name = "synthetic";
    text.synthetic = true;
    text.vocabulary = lstm->vocabulary;
    std::uniform_int_distribution<std::int64_t> word(0, lstm->vocabulary - 1);
    for (int i = 0; i < kBatch * (lstm->sequence * (kSteps + 2) + 1); ++i) text.tokens.push_back(word(rng));
    return text;
  }
  ClassificationData d;
  d.name = "synthetic";
  d.synthetic = true;
  d.example_shape = w.model.input_shape();
  d.num_classes = static_cast<int>(w.model.outputs());
  d.count = kBatch * kSteps;
  std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
  std::uniform_int_distribution<std::int64_t> label(0, d.num_classes - 1);
  d.features.resize(d.count * d.example_size());
  for (auto& f : d.features) f = pixel(rng);
  for (std::size_t i = 0; i < d.count; ++i) d.labels.push_back(label(rng));
  return d;
}

// Step `step`'s batch, given to the session the way --input disk gives it.
// A session reads the caller's memory until the next load, so a text
// window's tokens go into `window` (input, target), which the caller keeps.
void load(TrainingSession& s, const TrainingData& data, const WorkloadInfo& w, int step,
          std::vector<std::int64_t> (&window)[2]) {
  if (const auto* text = std::get_if<TokenStream>(&data)) {
    // Column-major windows as batchify lays them out: [sequence, batch].
    const auto& lstm = std::get<models::LstmSpec>(w.model.architecture);
    const std::size_t columns = text->tokens.size() / kBatch;
    auto& [input, target] = window;
    input.clear();
    target.clear();
    for (std::int64_t t = 0; t < lstm.sequence; ++t)
      for (std::size_t b = 0; b < kBatch; ++b) {
        const std::size_t at = b * columns + static_cast<std::size_t>(step * lstm.sequence + t);
        input.push_back(text->tokens[at]);
        target.push_back(text->tokens[at + 1]);
      }
    s.load_tokens(static_cast<std::size_t>(step), input.data(), target.data());
    return;
  }
  const auto& d = std::get<ClassificationData>(data);
  const std::size_t first = static_cast<std::size_t>(step) * kBatch;
  s.load_examples(d.features.data() + first * d.example_size(), d.labels.data() + first);
}

// The back ends to compare with LibTorch; one not compiled in is skipped
// with the message that says how to build it.
class Agreement : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(Agreement, LossAndWeightsMatchLibTorch) {
  const auto& [backend_name, network] = GetParam();
  const WorkloadInfo w = small_networks()[static_cast<std::size_t>(network)];
  std::unique_ptr<Backend> other;
  try {
    other = make_backend(backend_name, 1);
  } catch (const UsageError& e) {
    GTEST_SKIP() << e.what();
  }
  auto torch = make_backend("torch", 1);
  const TrainingData data = data_for(w);
  CaseSpec spec;
  spec.workload = w.name;
  spec.backend = backend_name;
  spec.batch = kBatch;
  auto reference = torch->prepare(w, data, spec);
  auto tested = other->prepare(w, data, spec);
  ASSERT_EQ(tested->parameter_count(), reference->parameter_count());

  const ParameterSet start = reference->parameters();
  tested->set_parameters(start);
  const ParameterSet round_trip = tested->parameters();
  ASSERT_EQ(round_trip.size(), start.size());
  for (std::size_t i = 0; i < start.size(); ++i) ASSERT_EQ(round_trip[i].values, start[i].values) << start[i].name;

  std::vector<std::int64_t> reference_window[2], tested_window[2];
  for (int step = 0; step < kSteps; ++step) {
    load(*reference, data, w, step, reference_window);
    load(*tested, data, w, step, tested_window);
    const double expected = reference->train_step();
    const double got = tested->train_step();
    ASSERT_TRUE(std::isfinite(got)) << "step " << step + 1;
    if (step == 0) {
      EXPECT_NEAR(got, expected, kFirstLossTolerance * std::abs(expected)) << w.name << " loss after 1 step";
      const ParameterSet want = reference->parameters(), have = tested->parameters();
      for (std::size_t i = 0; i < want.size(); ++i) {
        double worst = 0;
        std::size_t at = 0;
        for (std::size_t j = 0; j < want[i].values.size(); ++j) {
          const double excess = std::abs(double{have[i].values[j]} - want[i].values[j]) -
                                (kWeightAbsolute + kWeightRelative * std::abs(want[i].values[j]));
          if (excess > worst) worst = excess, at = j;
        }
        EXPECT_LE(worst, 0.0) << w.name << " " << want[i].name << "[" << at << "] after 1 step: "
                              << have[i].values[at] << " vs LibTorch's " << want[i].values[at];
      }
    }
    if (step == kSteps - 1) {
      EXPECT_NEAR(got, expected, kTenthLossTolerance * std::abs(expected)) << w.name << " loss after 10 steps";
    }
  }
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<std::string, int>>& param) {
  return std::get<0>(param.param) + "_" + small_networks()[static_cast<std::size_t>(std::get<1>(param.param))].name;
}

INSTANTIATE_TEST_SUITE_P(BackEnds, Agreement,
                         ::testing::Combine(::testing::Values("reference", "onednn"), ::testing::Range(0, 4)),
                         case_name);

TEST(Parameters, LayoutMatchesLibTorchAndTheInitialisersKeepTheirShapes) {
  for (const auto& w : workloads()) {
    auto session = make_backend("torch", 1)->prepare(w, data_for(w), [&] {
      CaseSpec c;
      c.batch = kBatch;
      c.workload = w.name;
      return c;
    }());
    const ParameterSet from_torch = session->parameters();
    EXPECT_NO_THROW(check_parameters(from_torch, w.model)) << w.name;
    EXPECT_EQ(parameter_count(from_torch), w.model.parameter_count()) << w.name;
    const ParameterSet ours = initial_parameters(w.model, 42);
    EXPECT_NO_THROW(check_parameters(ours, w.model)) << w.name;
    EXPECT_EQ(initial_parameters(w.model, 42)[0].values, ours[0].values) << w.name << ": a seed gives one set";
  }
}

}  // namespace
}  // namespace dlcbench
