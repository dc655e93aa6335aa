// What the agreement tests share (backend_agreement_test.cpp for the CPU
// back ends, cuda_backend_test.cpp for the GPU): the four networks shrunk to
// a test's size, random data for them, loading a step's batch as --input
// disk does, and the comparison itself: from the reference's initial weights
// (moved through the shared parameter layout) and the same batches, the
// tested back end's loss after 1 and after 10 steps and its weights after
// one step, against the reference on the CPU, within the caller's
// tolerances. The reference is LibTorch; a build without it (a bundle build
// on a GPU machine) compares with the reference back end, which itself
// agrees with LibTorch to 1e-5 (backend_agreement_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/parameters.h"
#include "workloads/registry.h"

namespace dlcbench::agreement {

inline constexpr int kBatch = 4;
inline constexpr int kSteps = 10;

// Relative for the losses; |difference| <= weight_absolute + weight_relative |value| for the weights.
struct Tolerances {
  double first_loss, tenth_loss, weight_absolute, weight_relative;
};

inline WorkloadInfo small(const std::string& name, models::Architecture architecture, models::WeightInit init,
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
inline std::vector<WorkloadInfo> small_networks() {
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
inline TrainingData data_for(const WorkloadInfo& w) {
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
inline void load(TrainingSession& s, const TrainingData& data, const WorkloadInfo& w, int step,
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

#if DLCBENCH_HAVE_TORCH
inline constexpr const char* kReference = "torch";
#else
inline constexpr const char* kReference = "reference";
#endif

// Trains `tested` (a back end named `backend_name`) and the reference side by
// side on network `w` and reports every disagreement beyond `t` as a failure.
inline void expect_agreement_with_reference(Backend& tested_backend, const std::string& backend_name,
                                            const WorkloadInfo& w, const Tolerances& t) {
  auto reference_backend = make_backend(kReference, 1);
  const TrainingData data = data_for(w);
  CaseSpec spec;
  spec.workload = w.name;
  spec.backend = backend_name;
  spec.batch = kBatch;
  auto reference = reference_backend->prepare(w, data, spec);
  auto tested = tested_backend.prepare(w, data, spec);
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
      EXPECT_NEAR(got, expected, t.first_loss * std::abs(expected)) << w.name << " loss after 1 step";
      const ParameterSet want = reference->parameters(), have = tested->parameters();
      for (std::size_t i = 0; i < want.size(); ++i) {
        double worst = 0;
        std::size_t at = 0;
        for (std::size_t j = 0; j < want[i].values.size(); ++j) {
          const double excess = std::abs(double{have[i].values[j]} - want[i].values[j]) -
                                (t.weight_absolute + t.weight_relative * std::abs(want[i].values[j]));
          if (excess > worst) worst = excess, at = j;
        }
        EXPECT_LE(worst, 0.0) << w.name << " " << want[i].name << "[" << at << "] after 1 step: "
                              << have[i].values[at] << " vs " << kReference << "'s " << want[i].values[at];
      }
    }
    if (step == kSteps - 1) {
      EXPECT_NEAR(got, expected, t.tenth_loss * std::abs(expected)) << w.name << " loss after 10 steps";
    }
  }
}

}  // namespace dlcbench::agreement
