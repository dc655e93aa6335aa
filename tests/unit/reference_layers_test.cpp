// The reference engine's layers, one by one: every backward pass against
// central finite differences of a scalar loss, L = sum(output * r) for a
// fixed random r (so dL/doutput = r), at a small size. Then whole networks:
// refused where their shapes cannot be wired, learning a task that can be
// learnt.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/reference/activations.h"
#include "backends/reference/batch_norm.h"
#include "backends/reference/convolution.h"
#include "backends/reference/embedding.h"
#include "backends/reference/image.h"
#include "backends/reference/linear.h"
#include "backends/reference/loss.h"
#include "backends/reference/lstm.h"
#include "backends/reference/networks.h"
#include "backends/reference/pooling.h"
#include "backends/reference/sgd.h"

namespace dlcbench::reference {
namespace {

std::vector<float> random_values(std::size_t n, std::uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = normal(rng);
  return v;
}

// Values at least 0.05 apart and from zero, in random order: ReLU's kink and
// max pooling's ties stay farther away than the finite-difference step.
std::vector<float> separated_values(std::size_t n, std::uint32_t seed) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = (i % 2 ? 1.0f : -1.0f) * (0.05f + 0.05f * static_cast<float>(i / 2));
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  return v;
}

void fill_parameters(ParameterList& params, std::uint32_t seed) {
  for (auto& p : params.items) p.value.values = random_values(p.value.values.size(), seed++, 0.5f);
}

double weighted_sum(const float* y, const std::vector<float>& r) {
  double sum = 0;
  for (std::size_t i = 0; i < r.size(); ++i) sum += static_cast<double>(y[i]) * r[i];
  return sum;
}

// Compares `analytic` (copied before any further forward pass) with
// (L(v + h) - L(v - h)) / 2h for every entry of `values`.
void expect_gradient(const std::string& what, float* values, const std::vector<float>& analytic,
                     const std::function<double()>& loss, float step = 1e-3f) {
  for (std::size_t i = 0; i < analytic.size(); ++i) {
    const float saved = values[i];
    values[i] = saved + step;
    const double up = loss();
    values[i] = saved - step;
    const double down = loss();
    values[i] = saved;
    const double numeric = (up - down) / (2.0 * static_cast<double>(step));
    EXPECT_NEAR(analytic[i], numeric, 5e-3 + 1e-2 * std::abs(numeric)) << what << "[" << i << "]";
  }
}

std::vector<float> copy(const float* p, std::int64_t n) { return {p, p + n}; }

TEST(ReferenceLayers, LinearGradients) {
  ParameterList params;
  Linear layer(params, "fc", 5, 4, 3, true);
  fill_parameters(params, 1);
  std::vector<float> x = random_values(15, 2);
  const std::vector<float> r = random_values(12, 3);
  auto loss = [&] { return weighted_sum(layer.forward(x.data()), r); };
  loss();
  std::vector<float> dy = r;
  const std::vector<float> dx = copy(layer.backward(dy.data()), 15);
  expect_gradient("dx", x.data(), dx, loss);
  for (auto& p : params.items) expect_gradient(p.name, p.value.data(), p.grad.values, loss);
}

TEST(ReferenceLayers, ActivationGradients) {
  for (const auto kind : {models::Activation::kSigmoid, models::Activation::kRelu}) {
    std::vector<float> x = separated_values(20, 4), y(20);
    const std::vector<float> r = random_values(20, 5);
    auto loss = [&] {
      y = x;
      activate(kind, y.data(), 20);
      return weighted_sum(y.data(), r);
    };
    loss();
    std::vector<float> grad = r;
    activation_backward(kind, y.data(), grad.data(), 20);
    expect_gradient(kind == models::Activation::kRelu ? "relu" : "sigmoid", x.data(), grad, loss);
  }
}

struct ConvCase {
  ImageShape input;
  ConvOptions options;
};

TEST(ReferenceLayers, ConvolutionGradients) {
  const ConvCase cases[] = {
      {{2, 2, 5, 5}, {.out_channels = 3, .kernel = 3, .stride = 1, .padding = 1, .bias = false}},
      {{2, 2, 6, 5}, {.out_channels = 3, .kernel = 3, .stride = 2, .padding = 1, .bias = false}},
      {{3, 2, 6, 6}, {.out_channels = 2, .kernel = 5, .stride = 1, .padding = 2, .bias = true}},
      {{1, 1, 7, 7}, {.out_channels = 2, .kernel = 3, .stride = 2, .padding = 0, .bias = true}},
  };
  for (const auto& c : cases) {
    ParameterList params;
    Workspace workspace;
    Conv2d conv(params, "conv", c.input, c.options, workspace, true);
    fill_parameters(params, 6);
    std::vector<float> x = random_values(static_cast<std::size_t>(c.input.numel()), 7);
    const std::vector<float> r = random_values(static_cast<std::size_t>(conv.output_shape().numel()), 8);
    auto loss = [&] { return weighted_sum(conv.forward(x.data()), r); };
    loss();
    const std::vector<float> dx = copy(conv.backward(r.data()), c.input.numel());
    const std::string name = "conv k" + std::to_string(c.options.kernel) + " s" + std::to_string(c.options.stride);
    expect_gradient(name + " dx", x.data(), dx, loss);
    for (auto& p : params.items) expect_gradient(name + " " + p.name, p.value.data(), p.grad.values, loss);
  }
}

TEST(ReferenceLayers, ConvolutionMatchesTheDefinition) {
  const ImageShape in{2, 2, 5, 4};
  ParameterList params;
  Workspace workspace;
  Conv2d conv(params, "conv", in, {.out_channels = 3, .kernel = 3, .stride = 2, .padding = 1, .bias = true},
              workspace, false);
  fill_parameters(params, 9);
  const std::vector<float> x = random_values(static_cast<std::size_t>(in.numel()), 10);
  const float* y = conv.forward(x.data());
  const ImageShape out = conv.output_shape();
  ASSERT_EQ(out.height, 3);
  ASSERT_EQ(out.width, 2);
  const auto& w = params.items[0].value.values;
  const auto& b = params.items[1].value.values;
  for (std::int64_t co = 0; co < out.channels; ++co)
    for (std::int64_t n = 0; n < in.batch; ++n)
      for (std::int64_t oh = 0; oh < out.height; ++oh)
        for (std::int64_t ow = 0; ow < out.width; ++ow) {
          double sum = b[co];
          for (std::int64_t ci = 0; ci < in.channels; ++ci)
            for (std::int64_t ki = 0; ki < 3; ++ki)
              for (std::int64_t kj = 0; kj < 3; ++kj) {
                const std::int64_t ih = oh * 2 - 1 + ki, iw = ow * 2 - 1 + kj;
                if (ih < 0 || ih >= in.height || iw < 0 || iw >= in.width) continue;
                sum += static_cast<double>(w[((co * in.channels + ci) * 3 + ki) * 3 + kj]) *
                       x[((ci * in.batch + n) * in.height + ih) * in.width + iw];
              }
          EXPECT_NEAR(y[((co * out.batch + n) * out.height + oh) * out.width + ow], sum, 1e-5);
        }
}

TEST(ReferenceLayers, BatchNormGradients) {
  const ImageShape shape{3, 2, 3, 2};
  ParameterList params;
  BatchNorm2d bn(params, "bn", shape);
  fill_parameters(params, 11);
  std::vector<float> x = random_values(static_cast<std::size_t>(shape.numel()), 12);
  const std::vector<float> r = random_values(x.size(), 13);
  auto loss = [&] { return weighted_sum(bn.forward(x.data()), r); };
  loss();
  std::vector<float> grad = r;
  bn.backward(grad.data());
  expect_gradient("bn dx", x.data(), grad, loss);
  for (auto& p : params.items) expect_gradient(p.name, p.value.data(), p.grad.values, loss);
}

TEST(ReferenceLayers, BatchNormNormalisesEachChannel) {
  const ImageShape shape{2, 4, 3, 3};
  ParameterList params;
  BatchNorm2d bn(params, "bn", shape);
  std::fill(params.items[0].value.values.begin(), params.items[0].value.values.end(), 1.0f);
  const std::vector<float> x = random_values(static_cast<std::size_t>(shape.numel()), 14, 3.0f);
  const float* y = bn.forward(x.data());
  for (std::int64_t c = 0; c < shape.channels; ++c) {
    double sum = 0, squares = 0;
    for (std::int64_t i = 0; i < shape.channel_size(); ++i) sum += y[c * shape.channel_size() + i];
    for (std::int64_t i = 0; i < shape.channel_size(); ++i)
      squares += std::pow(y[c * shape.channel_size() + i] - sum / 36.0, 2);
    EXPECT_NEAR(sum / 36.0, 0.0, 1e-5);
    EXPECT_NEAR(squares / 36.0, 1.0, 1e-3);  // biased variance, plus eps
  }
}

TEST(ReferenceLayers, PoolingGradients) {
  const ImageShape shape{2, 2, 7, 6};
  for (const auto kind : {models::PoolKind::kMax, models::PoolKind::kAverage}) {
    Pool2d pool(kind, shape, 3, 2);
    EXPECT_EQ(pool.output_shape().height, 3);  // floor((7 - 3) / 2) + 1
    EXPECT_EQ(pool.output_shape().width, 2);
    std::vector<float> x = separated_values(static_cast<std::size_t>(shape.numel()), 15);
    const std::vector<float> r = random_values(static_cast<std::size_t>(pool.output_shape().numel()), 16);
    auto loss = [&] { return weighted_sum(pool.forward(x.data()), r); };
    loss();
    const std::vector<float> dx = copy(pool.backward(r.data()), shape.numel());
    expect_gradient(kind == models::PoolKind::kMax ? "max pool" : "average pool", x.data(), dx, loss);
  }
}

TEST(ReferenceLayers, MaxPoolSendsTiesToTheFirstMaximum) {
  const ImageShape shape{1, 1, 3, 3};
  Pool2d pool(models::PoolKind::kMax, shape, 3, 2);
  const std::vector<float> x = {0, 2, 1, 2, 0, 2, 0, 0, 0};
  EXPECT_EQ(pool.forward(x.data())[0], 2.0f);
  const float dy = 1.0f;
  const float* dx = pool.backward(&dy);
  EXPECT_EQ(copy(dx, 9), (std::vector<float>{0, 1, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(ReferenceLayers, GlobalAveragePoolGradients) {
  const ImageShape shape{3, 2, 2, 3};
  GlobalAvgPool pool(shape);
  std::vector<float> x = random_values(static_cast<std::size_t>(shape.numel()), 17);
  const std::vector<float> r = random_values(6, 18);
  auto loss = [&] { return weighted_sum(pool.forward(x.data()), r); };
  loss();
  expect_gradient("global pool", x.data(), copy(pool.backward(r.data()), shape.numel()), loss);
}

TEST(ReferenceLayers, ShortcutSubsamplesPadsAndSendsTheGradientBack) {
  const ImageShape in{2, 2, 5, 5}, out{4, 2, 3, 3};
  std::vector<float> x = random_values(static_cast<std::size_t>(in.numel()), 19);
  std::vector<float> y(static_cast<std::size_t>(out.numel()));
  add_shortcut(x.data(), in, 2, y.data(), out);
  for (std::int64_t c = 0; c < out.channels; ++c)
    for (std::int64_t n = 0; n < out.batch; ++n)
      for (std::int64_t i = 0; i < 3; ++i)
        for (std::int64_t j = 0; j < 3; ++j)
          EXPECT_EQ(y[((c * 2 + n) * 3 + i) * 3 + j], c < 2 ? x[((c * 2 + n) * 5 + 2 * i) * 5 + 2 * j] : 0.0f);
  const std::vector<float> r = random_values(y.size(), 20);
  auto loss = [&] {
    std::fill(y.begin(), y.end(), 0.0f);
    add_shortcut(x.data(), in, 2, y.data(), out);
    return weighted_sum(y.data(), r);
  };
  std::vector<float> dx(x.size());
  add_shortcut_gradient(r.data(), out, 2, dx.data(), in);
  expect_gradient("shortcut", x.data(), dx, loss);
}

TEST(ReferenceLayers, EmbeddingAddsTheGradientsOfRepeatedTokens) {
  ParameterList params;
  Embedding embedding(params, "embedding", 5, 3, 4);
  fill_parameters(params, 21);
  const std::vector<std::int64_t> tokens = {1, 3, 1, 0};
  const std::vector<float> r = random_values(12, 22);
  auto loss = [&] { return weighted_sum(embedding.forward(tokens.data()), r); };
  loss();
  embedding.backward(r.data());
  expect_gradient("embedding", params.items[0].value.data(), params.items[0].grad.values, loss);
  const std::int64_t bad = 5;
  Embedding one(params, "other", 5, 3, 1);
  EXPECT_THROW(one.forward(&bad), std::out_of_range);
}

TEST(ReferenceLayers, LstmGradientsThroughTime) {
  const std::int64_t steps = 3, batch = 2, in = 3, hidden = 4;
  ParameterList params;
  LstmLayer lstm(params, 0, in, hidden, steps, batch, true);
  fill_parameters(params, 23);
  std::vector<float> x = random_values(static_cast<std::size_t>(steps * batch * in), 24);
  const std::vector<float> h0 = random_values(static_cast<std::size_t>(batch * hidden), 25, 0.5f);
  const std::vector<float> c0 = random_values(h0.size(), 26, 0.5f);
  const std::vector<float> r = random_values(static_cast<std::size_t>(steps * batch * hidden), 27);
  auto loss = [&] {
    std::vector<float> h = h0, c = c0;  // the starting state, the same every time
    return weighted_sum(lstm.forward(x.data(), h.data(), c.data()), r);
  };
  loss();
  const std::vector<float> dx = copy(lstm.backward(r.data()), steps * batch * in);
  expect_gradient("lstm dx", x.data(), dx, loss);
  for (auto& p : params.items) expect_gradient(p.name, p.value.data(), p.grad.values, loss);
}

TEST(ReferenceLayers, LstmCarriesTheStateAcrossWindows) {
  // Two windows of 2 steps give the outputs of one window of 4 steps.
  ParameterList long_params, short_params;
  LstmLayer long_window(long_params, 0, 2, 3, 4, 1, false);
  LstmLayer short_window(short_params, 0, 2, 3, 2, 1, false);
  fill_parameters(long_params, 28);
  fill_parameters(short_params, 28);
  const std::vector<float> x = random_values(8, 29);
  std::vector<float> h(3, 0.0f), c(3, 0.0f);
  const std::vector<float> whole = copy(long_window.forward(x.data(), h.data(), c.data()), 12);
  std::fill(h.begin(), h.end(), 0.0f);
  std::fill(c.begin(), c.end(), 0.0f);
  const std::vector<float> first = copy(short_window.forward(x.data(), h.data(), c.data()), 6);
  const std::vector<float> second = copy(short_window.forward(x.data() + 4, h.data(), c.data()), 6);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_NEAR(first[i], whole[i], 1e-6);
    EXPECT_NEAR(second[i], whole[6 + i], 1e-6);
  }
}

TEST(ReferenceLayers, SoftmaxCrossEntropyGradient) {
  std::vector<float> scores = random_values(12, 30, 3.0f);
  const std::vector<std::int64_t> labels = {2, 0, 3};
  auto loss = [&] {
    std::vector<float> s = scores;
    return softmax_cross_entropy(s.data(), labels.data(), 3, 4);
  };
  std::vector<float> grad = scores;
  const double value = softmax_cross_entropy(grad.data(), labels.data(), 3, 4);
  double expected = 0;
  for (std::int64_t r = 0; r < 3; ++r) {
    double sum = 0;
    for (std::int64_t k = 0; k < 4; ++k) sum += std::exp(static_cast<double>(scores[r * 4 + k]));
    expected += std::log(sum) - scores[r * 4 + labels[r]];
  }
  EXPECT_NEAR(value, expected / 3, 1e-6);
  expect_gradient("cross-entropy", scores.data(), grad, loss);
  // Far-apart scores: no overflow, no log(0).
  std::vector<float> extreme = {1000.0f, -1000.0f};
  const std::int64_t second = 1;
  EXPECT_NEAR(softmax_cross_entropy(extreme.data(), &second, 1, 2), 2000.0, 1e-3);
}

TEST(ReferenceLayers, SgdWithMomentumAndClipping) {
  ParameterList params;
  Parameter& p = params.add("w", {2});
  p.value.values = {1.0f, 2.0f};
  p.grad.values = {0.5f, -1.0f};
  const Sgd sgd{0.1, 0.9};
  sgd.step(params);  // v = g
  EXPECT_FLOAT_EQ(p.value.values[0], 0.95f);
  sgd.step(params);  // v = 0.9 g + g
  EXPECT_FLOAT_EQ(p.value.values[0], 0.95f - 0.1f * 0.95f);
  EXPECT_FLOAT_EQ(p.value.values[1], 2.1f + 0.19f);
  p.grad.values = {3.0f, 4.0f};  // norm 5
  clip_grad_norm(params, 1.0);
  EXPECT_NEAR(p.grad.values[0], 0.6, 1e-6);
  EXPECT_NEAR(p.grad.values[1], 0.8, 1e-6);
  clip_grad_norm(params, 10.0);  // below the limit: unchanged
  EXPECT_NEAR(p.grad.values[1], 0.8, 1e-6);
}

WorkloadInfo small_workload(models::Architecture architecture, models::SgdSpec sgd) {
  models::ModelSpec m;
  m.name = "small";
  m.architecture = std::move(architecture);
  m.init = std::holds_alternative<models::LstmSpec>(m.architecture) ? models::WeightInit::kUniform
                                                                     : models::WeightInit::kKaimingNormal;
  m.optimizer = sgd;
  return WorkloadInfo{"small", "a small network that can learn its task", "s/batch", m};
}

// Mean loss of the first and of the last 5 of `steps` steps.
std::pair<double, double> train(TrainingSession& session, int steps) {
  double first = 0, last = 0;
  for (int i = 0; i < steps; ++i) {
    session.load_batch(static_cast<std::size_t>(i));
    const double loss = session.train_step();
    EXPECT_TRUE(std::isfinite(loss)) << "step " << i;
    if (i < 5) first += loss / 5;
    if (i >= steps - 5) last += loss / 5;
  }
  return {first, last};
}

// The class of an example is the quadrant its first two features fall in:
// what a small classifier can learn in a few dozen steps.
ClassificationData quadrant_data(std::vector<std::int64_t> shape, std::size_t count) {
  ClassificationData d;
  d.name = "quadrants";
  d.example_shape = std::move(shape);
  d.num_classes = 4;
  d.count = count;
  d.features = random_values(count * d.example_size(), 31);
  for (std::size_t i = 0; i < count; ++i) {
    const float* x = d.features.data() + i * d.example_size();
    d.labels.push_back((x[0] > 0 ? 1 : 0) + (x[1] > 0 ? 2 : 0));
  }
  return d;
}

TEST(ReferenceTraining, MlpLossFalls) {
  const WorkloadInfo w = small_workload(models::MlpSpec{.layer_sizes = {8, 32, 16, 4},
                                                        .activation = models::Activation::kRelu},
                                        {.learning_rate = 0.05, .momentum = 0.9});
  CaseSpec spec;
  spec.batch = 32;
  auto session = make_backend("reference", 1)->prepare(w, quadrant_data({8}, 32 * 8), spec);
  const auto [first, last] = train(*session, 50);
  EXPECT_LT(last, 0.5 * first) << "from " << first << " to " << last;
}

TEST(ReferenceTraining, ResNetLossFalls) {
  const WorkloadInfo w = small_workload(
      models::ResNetSpec{.input_shape = {1, 4, 4}, .blocks_per_stage = 1, .stage_channels = {4, 8}, .classes = 4},
      {.learning_rate = 0.05, .momentum = 0.9});
  CaseSpec spec;
  spec.batch = 16;
  auto session = make_backend("reference", 1)->prepare(w, quadrant_data({1, 4, 4}, 16 * 8), spec);
  const auto [first, last] = train(*session, 50);
  EXPECT_LT(last, 0.7 * first) << "from " << first << " to " << last;
}

// ResNet's shortcut (option A) only adds channels: a stage narrower than the
// one before cannot be wired, and the network walk refuses it when the
// network is built instead of writing past the block's output.
TEST(ReferenceNetworks, ResNetWithAShortcutThatCannotMapItsInputIsRefused) {
  models::ModelSpec spec;
  spec.name = "narrowing";
  spec.architecture = models::ResNetSpec{.input_shape = {1, 4, 4}, .blocks_per_stage = 1, .stage_channels = {8, 4}};
  ParameterList params;
  try {
    make_classifier(params, spec, 2);
    ADD_FAILURE() << "a ResNet narrowing from 8 to 4 channels was built";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "blocks.1: the shortcut cannot map 8x4x4 onto 4x2x2");
  }
}

TEST(ReferenceTraining, LanguageModelLearnsARepeatingText) {
  const WorkloadInfo w = small_workload(
      // Weights wider than the real model's 0.1, so the signal crosses two
      // small layers within the test's few steps.
      models::LstmSpec{.vocabulary = 8, .embedding = 8, .hidden = 16, .layers = 2, .sequence = 5, .init_range = 0.5},
      {.learning_rate = 1.0, .momentum = 0.0, .clip_grad_norm = 5.0});
  TokenStream text;
  text.name = "cycle";
  text.vocabulary = 8;
  for (int i = 0; i < 4 * 200; ++i) text.tokens.push_back(i % 8);  // the next word is always the word + 1
  CaseSpec spec;
  spec.batch = 4;
  auto session = make_backend("reference", 1)->prepare(w, text, spec);
  const auto [first, last] = train(*session, 80);
  EXPECT_LT(last, 0.5 * first) << "from " << first << " to " << last;
}

}  // namespace
}  // namespace dlcbench::reference
