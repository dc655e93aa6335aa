// The oneDNN back end on its own: parameters survive the trip through
// oneDNN's blocked layouts, the LSTM's weights and biases mean what
// PyTorch's mean, and a small network learns. (backend_agreement_test.cpp
// compares it with LibTorch step by step.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/parameters.h"
#include "core/errors.h"
#include "workloads/registry.h"

namespace dlcbench {
namespace {

std::unique_ptr<Backend> onednn_or_skip() {
  try {
    return make_backend("onednn", 1);
  } catch (const UsageError&) {
    return nullptr;
  }
}

WorkloadInfo workload(models::Architecture architecture, models::SgdSpec sgd,
                      models::WeightInit init = models::WeightInit::kKaimingNormal) {
  models::ModelSpec m;
  m.name = "small";
  m.architecture = std::move(architecture);
  m.init = init;
  m.optimizer = sgd;
  return WorkloadInfo{"small", "a small network", "s/batch", m};
}

ClassificationData random_examples(const models::ModelSpec& model, std::size_t count) {
  ClassificationData d;
  d.name = "synthetic";
  d.example_shape = model.input_shape();
  d.num_classes = static_cast<int>(model.outputs());
  d.count = count;
  std::mt19937 rng(3);
  std::normal_distribution<float> value;
  d.features.resize(count * d.example_size());
  for (auto& f : d.features) f = value(rng);
  for (std::size_t i = 0; i < count; ++i) d.labels.push_back(static_cast<std::int64_t>(i) % d.num_classes);
  return d;
}

CaseSpec batch_of(int batch) {
  CaseSpec c;
  c.batch = batch;
  return c;
}

// Convolution weights with 3 input channels and batch norm on 16-channel
// activations live in blocked, padded layouts inside oneDNN.
TEST(OnednnBackend, ParametersSurviveTheBlockedLayouts) {
  auto backend = onednn_or_skip();
  if (!backend) GTEST_SKIP() << "the onednn back end is not compiled in";
  using namespace models;
  const std::vector<Architecture> networks = {
      ConvNetSpec{.input_shape = {3, 12, 12},
                  .stages = {{.out_channels = 16, .kernel = 3, .stride = 1, .padding = 1, .pool = PoolKind::kMax},
                             {.out_channels = 8, .kernel = 3, .stride = 1, .padding = 1, .pool = PoolKind::kAverage}},
                  .classes = 5},
      ResNetSpec{.input_shape = {3, 8, 8}, .blocks_per_stage = 1, .stage_channels = {16, 32}, .classes = 10},
  };
  for (const auto& architecture : networks) {
    const WorkloadInfo w = workload(architecture, {});
    auto session = backend->prepare(w, random_examples(w.model, 4), batch_of(2));
    EXPECT_EQ(session->parameters().size(), parameter_layout(w.model).size());
    const ParameterSet given = initial_parameters(w.model, 1234);  // not the session's seed
    session->set_parameters(given);
    const ParameterSet back = session->parameters();
    ASSERT_EQ(back.size(), given.size());
    for (std::size_t i = 0; i < given.size(); ++i) {
      EXPECT_EQ(back[i].name, given[i].name);
      EXPECT_EQ(back[i].shape, given[i].shape);
      EXPECT_EQ(back[i].values, given[i].values) << given[i].name;
    }
    EXPECT_EQ(session->parameter_count(), parameter_count(given));
  }
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// One LSTM layer and the decoder computed by hand from PyTorch's layout:
// gates = W_ih x + b_ih + W_hh h + b_hh in the order i, f, g, o.
TEST(OnednnBackend, LstmWeightsAndBiasesMeanWhatPyTorchsMean) {
  auto backend = onednn_or_skip();
  if (!backend) GTEST_SKIP() << "the onednn back end is not compiled in";
  constexpr std::int64_t kVocabulary = 5, kEmbedding = 3, kHidden = 2, kSequence = 3;
  const WorkloadInfo w = workload(
      models::LstmSpec{.vocabulary = kVocabulary, .embedding = kEmbedding, .hidden = kHidden, .layers = 1,
                       .sequence = kSequence, .init_range = 0.8},
      {.learning_rate = 0.5, .momentum = 0.0}, models::WeightInit::kUniform);
  TokenStream text;
  text.name = "synthetic";
  text.vocabulary = kVocabulary;
  text.tokens = {1, 4, 2, 0, 3, 3, 1, 2};
  auto session = backend->prepare(w, text, batch_of(1));
  const ParameterSet p = initial_parameters(w.model, 99);
  session->set_parameters(p);
  const std::vector<std::int64_t> input = {1, 4, 2}, target = {4, 2, 0};
  session->load_tokens(0, input.data(), target.data());
  const double loss = session->train_step();

  const auto& embedding = p[0].values;
  const auto &w_ih = p[1].values, &w_hh = p[2].values, &b_ih = p[3].values, &b_hh = p[4].values;
  const auto &decoder = p[5].values, &decoder_bias = p[6].values;
  std::vector<float> h(kHidden, 0.0f), c(kHidden, 0.0f);
  double expected = 0;
  for (std::int64_t t = 0; t < kSequence; ++t) {
    const float* x = embedding.data() + input[t] * kEmbedding;
    std::vector<float> gates(4 * kHidden);
    for (std::int64_t r = 0; r < 4 * kHidden; ++r) {
      float sum = b_ih[r] + b_hh[r];
      for (std::int64_t i = 0; i < kEmbedding; ++i) sum += w_ih[r * kEmbedding + i] * x[i];
      for (std::int64_t i = 0; i < kHidden; ++i) sum += w_hh[r * kHidden + i] * h[i];
      gates[r] = sum;
    }
    for (std::int64_t j = 0; j < kHidden; ++j) {
      const float in = sigmoid(gates[j]), forget = sigmoid(gates[kHidden + j]);
      const float cell = std::tanh(gates[2 * kHidden + j]), out = sigmoid(gates[3 * kHidden + j]);
      c[j] = forget * c[j] + in * cell;
      h[j] = out * std::tanh(c[j]);
    }
    std::vector<double> scores(kVocabulary);
    double total = 0;
    for (std::int64_t v = 0; v < kVocabulary; ++v) {
      scores[v] = decoder_bias[v];
      for (std::int64_t j = 0; j < kHidden; ++j) scores[v] += decoder[v * kHidden + j] * h[j];
      total += std::exp(scores[v]);
    }
    expected += std::log(total) - scores[target[t]];
  }
  EXPECT_NEAR(loss, expected / kSequence, 1e-5 * expected / kSequence);

  // oneDNN has one bias per gate; both of PyTorch's get its gradient.
  const ParameterSet after = session->parameters();
  for (std::size_t i = 0; i < after[3].values.size(); ++i) {
    const float step_ih = after[3].values[i] - p[3].values[i], step_hh = after[4].values[i] - p[4].values[i];
    EXPECT_NEAR(step_ih, step_hh, 1e-6) << "gate row " << i;
  }
  EXPECT_NE(after[3].values, p[3].values);
}

// Four classes decided by which of the first four features is largest.
TEST(OnednnBackend, SmallNetworkLearnsASyntheticTask) {
  auto backend = onednn_or_skip();
  if (!backend) GTEST_SKIP() << "the onednn back end is not compiled in";
  const WorkloadInfo w = workload(models::MlpSpec{.layer_sizes = {16, 32, 4}, .activation = models::Activation::kSigmoid},
                                  {.learning_rate = 0.2, .momentum = 0.9}, models::WeightInit::kXavierUniform);
  ClassificationData data = random_examples(w.model, 512);
  for (std::size_t i = 0; i < data.count; ++i) {
    const float* x = data.features.data() + i * 16;
    data.labels[i] = std::max_element(x, x + 4) - x;
  }
  auto session = backend->prepare(w, data, batch_of(32));
  std::vector<double> losses;
  for (std::size_t step = 0; step < 50; ++step) {
    session->load_batch(step);
    losses.push_back(session->train_step());
    ASSERT_TRUE(std::isfinite(losses.back()));
  }
  const double first = losses.front();
  const double last = (losses[45] + losses[46] + losses[47] + losses[48] + losses[49]) / 5;
  EXPECT_LT(last, 0.6 * first) << "loss " << first << " -> " << last;
}

TEST(OnednnBackend, RefusesABatchLargerThanTheDataAndSaysWhatItIs) {
  auto backend = onednn_or_skip();
  if (!backend) GTEST_SKIP() << "the onednn back end is not compiled in";
  const WorkloadInfo w = workload(models::MlpSpec{.layer_sizes = {8, 4}}, {});
  EXPECT_THROW(backend->prepare(w, random_examples(w.model, 3), batch_of(4)), UsageError);
  const auto d = backend->describe();
  EXPECT_EQ(d["name"], "onednn");
  EXPECT_EQ(d["version"], "2.6.3");
  EXPECT_FALSE(d["isa"].get<std::string>().empty());
}

}  // namespace
}  // namespace dlcbench
