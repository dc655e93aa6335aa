#include "backends/parameters.h"

#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <variant>

#include <fmt/format.h>

namespace dlcbench {
namespace {

using models::WeightInit;

std::int64_t product(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

void add(ParameterSet& set, std::string name, std::vector<std::int64_t> shape) {
  set.push_back({std::move(name), std::move(shape), {}});
}

void add_mlp(ParameterSet& set, const models::MlpSpec& spec) {
  for (std::size_t i = 1; i < spec.layer_sizes.size(); ++i) {
    add(set, fmt::format("fc{}.weight", i), {spec.layer_sizes[i], spec.layer_sizes[i - 1]});
    add(set, fmt::format("fc{}.bias", i), {spec.layer_sizes[i]});
  }
}

void add_convnet(ParameterSet& set, const models::ConvNetSpec& spec) {
  std::int64_t channels = spec.input_shape[0], h = spec.input_shape[1], w = spec.input_shape[2];
  for (std::size_t i = 0; i < spec.stages.size(); ++i) {
    const auto& s = spec.stages[i];
    add(set, fmt::format("conv{}.weight", i + 1), {s.out_channels, channels, s.kernel, s.kernel});
    add(set, fmt::format("conv{}.bias", i + 1), {s.out_channels});
    channels = s.out_channels;
    // Convolution, then pooling with floor rounding and no padding.
    h = ((h + 2 * s.padding - s.kernel) / s.stride + 1 - s.pool_kernel) / s.pool_stride + 1;
    w = ((w + 2 * s.padding - s.kernel) / s.stride + 1 - s.pool_kernel) / s.pool_stride + 1;
  }
  add(set, "fc.weight", {spec.classes, channels * h * w});
  add(set, "fc.bias", {spec.classes});
}

void add_batch_norm(ParameterSet& set, const std::string& prefix, std::int64_t channels) {
  add(set, prefix + ".weight", {channels});
  add(set, prefix + ".bias", {channels});
}

void add_resnet(ParameterSet& set, const models::ResNetSpec& spec) {
  std::int64_t channels = spec.stage_channels.front();
  add(set, "conv1.weight", {channels, spec.input_shape[0], 3, 3});
  add_batch_norm(set, "bn1", channels);
  int block = 0;
  for (const std::int64_t out : spec.stage_channels)
    for (std::int64_t b = 0; b < spec.blocks_per_stage; ++b, ++block) {
      const std::string prefix = fmt::format("blocks.{}", block);
      add(set, prefix + ".conv1.weight", {out, channels, 3, 3});
      add_batch_norm(set, prefix + ".bn1", out);
      add(set, prefix + ".conv2.weight", {out, out, 3, 3});
      add_batch_norm(set, prefix + ".bn_out", out);
      channels = out;
    }
  add(set, "fc.weight", {spec.classes, channels});
  add(set, "fc.bias", {spec.classes});
}

void add_lstm(ParameterSet& set, const models::LstmSpec& spec) {
  add(set, "embedding.weight", {spec.vocabulary, spec.embedding});
  for (std::int64_t k = 0; k < spec.layers; ++k) {
    const std::int64_t in = k == 0 ? spec.embedding : spec.hidden;
    add(set, fmt::format("lstm.weight_ih_l{}", k), {4 * spec.hidden, in});
    add(set, fmt::format("lstm.weight_hh_l{}", k), {4 * spec.hidden, spec.hidden});
    add(set, fmt::format("lstm.bias_ih_l{}", k), {4 * spec.hidden});
    add(set, fmt::format("lstm.bias_hh_l{}", k), {4 * spec.hidden});
  }
  add(set, "decoder.weight", {spec.vocabulary, spec.hidden});
  add(set, "decoder.bias", {spec.vocabulary});
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Uniform in [0, 1) from the top 53 bits: the same numbers from every
// standard library, unlike std::uniform_real_distribution.
double unit_uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Box-Muller: a standard normal value from two uniform ones.
double standard_normal(std::mt19937_64& rng) {
  const double u1 = 1.0 - unit_uniform(rng), u2 = unit_uniform(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace

std::int64_t ParameterTensor::numel() const { return product(shape); }

ParameterSet parameter_layout(const models::ModelSpec& model) {
  ParameterSet set;
  std::visit(
      [&](const auto& spec) {
        using Spec = std::decay_t<decltype(spec)>;
        if constexpr (std::is_same_v<Spec, models::MlpSpec>) add_mlp(set, spec);
        else if constexpr (std::is_same_v<Spec, models::ConvNetSpec>) add_convnet(set, spec);
        else if constexpr (std::is_same_v<Spec, models::ResNetSpec>) add_resnet(set, spec);
        else add_lstm(set, spec);
      },
      model.architecture);
  return set;
}

void check_parameters(const ParameterSet& given, const models::ModelSpec& model) {
  const ParameterSet layout = parameter_layout(model);
  if (given.size() != layout.size())
    throw std::invalid_argument(
        fmt::format("{} has {} parameter tensors, {} were given", model.name, layout.size(), given.size()));
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const auto& want = layout[i];
    const auto& got = given[i];
    if (got.name != want.name || got.shape != want.shape ||
        static_cast<std::int64_t>(got.values.size()) != want.numel())
      throw std::invalid_argument(fmt::format("{}: parameter {} should be {} [{}] with {} values; got {} [{}] with {}",
                                              model.name, i, want.name, fmt::join(want.shape, "x"), want.numel(),
                                              got.name, fmt::join(got.shape, "x"), got.values.size()));
  }
}

ParameterSet initial_parameters(const models::ModelSpec& model, std::uint64_t seed) {
  ParameterSet set = parameter_layout(model);
  std::mt19937_64 rng(seed);
  const bool lstm = std::holds_alternative<models::LstmSpec>(model.architecture);
  for (auto& p : set) {
    p.values.assign(static_cast<std::size_t>(p.numel()), 0.0f);
    if (lstm) {
      const double range = std::get<models::LstmSpec>(model.architecture).init_range;
      for (auto& v : p.values) v = static_cast<float>((2 * unit_uniform(rng) - 1) * range);
      continue;
    }
    const bool batch_norm = p.name.find(".bn") != std::string::npos || p.name.rfind("bn", 0) == 0;
    if (ends_with(p.name, ".bias")) continue;  // zero
    if (batch_norm) {
      std::fill(p.values.begin(), p.values.end(), 1.0f);  // scale 1
      continue;
    }
    // A weight: [out, in] or [out, in, kh, kw].
    const std::int64_t receptive = p.shape.size() == 4 ? p.shape[2] * p.shape[3] : 1;
    const auto fan_in = static_cast<double>(p.shape[1] * receptive);
    const auto fan_out = static_cast<double>(p.shape[0] * receptive);
    if (p.shape.size() == 4 && model.init == WeightInit::kKaimingNormal) {
      const double std_dev = std::sqrt(2.0 / fan_out);
      for (auto& v : p.values) v = static_cast<float>(standard_normal(rng) * std_dev);
    } else {
      const double bound = std::sqrt(6.0 / (fan_in + fan_out));
      for (auto& v : p.values) v = static_cast<float>((2 * unit_uniform(rng) - 1) * bound);
    }
  }
  return set;
}

std::int64_t parameter_count(const ParameterSet& parameters) {
  std::int64_t n = 0;
  for (const auto& p : parameters) n += p.numel();
  return n;
}

}  // namespace dlcbench
