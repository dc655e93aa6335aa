#include "workloads/models/model_spec.h"

#include <fmt/format.h>

namespace dlcbench::models {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

const char* activation_name(Activation a) { return a == Activation::kSigmoid ? "sigmoid" : "relu"; }

// Walks a network once, layer by layer, collecting what `list` and the
// tests need. Training FLOPs are three times the forward ones.
struct Census {
  std::int64_t parameters = 0;
  double forward_flops = 0;
  std::vector<Layer> layers;

  void add(std::string name, std::string description, std::int64_t params, double flops) {
    parameters += params;
    forward_flops += flops;
    layers.push_back({std::move(name), std::move(description), params});
  }
};

Census census_of(const Architecture& architecture) {
  Census c;
  std::visit(
      Overloaded{
          [&](const MlpSpec& m) {
            for (std::size_t i = 1; i < m.layer_sizes.size(); ++i) {
              const auto in = m.layer_sizes[i - 1], out = m.layer_sizes[i];
              const bool last = i + 1 == m.layer_sizes.size();
              c.add(fmt::format("fc{}", i), fmt::format("linear {} -> {}{}", in, out,
                                last ? ", softmax cross-entropy" : fmt::format(", {}", activation_name(m.activation))),
                    in * out + out, 2.0 * static_cast<double>(in * out));
            }
          },
          [&](const ConvNetSpec& n) {
            std::int64_t ch = n.input_shape[0], h = n.input_shape[1], w = n.input_shape[2];
            for (std::size_t i = 0; i < n.stages.size(); ++i) {
              const auto& s = n.stages[i];
              const auto oh = (h + 2 * s.padding - s.kernel) / s.stride + 1;
              const auto ow = (w + 2 * s.padding - s.kernel) / s.stride + 1;
              c.add(fmt::format("conv{}", i + 1),
                    fmt::format("{}x{} conv {} -> {}, stride {}, pad {}, {} -> {}x{}x{}", s.kernel, s.kernel, ch, s.out_channels, s.stride, s.padding, activation_name(n.activation),
                                s.out_channels, oh, ow),
                    s.kernel * s.kernel * ch * s.out_channels + s.out_channels,
                    2.0 * static_cast<double>(s.kernel * s.kernel * ch * s.out_channels * oh * ow));
              ch = s.out_channels;
              h = (oh - s.pool_kernel) / s.pool_stride + 1;
              w = (ow - s.pool_kernel) / s.pool_stride + 1;
              c.add(fmt::format("pool{}", i + 1),
                    fmt::format("{} pool {}x{}, stride {} -> {}x{}x{}", s.pool == PoolKind::kMax ? "max" : "average", s.pool_kernel, s.pool_kernel,
                                s.pool_stride, ch, h, w),
                    0, 0);
            }
            const auto features = ch * h * w;
            c.add("fc", fmt::format("linear {} -> {}, softmax cross-entropy", features, n.classes),
                  features * n.classes + n.classes, 2.0 * static_cast<double>(features * n.classes));
          },
          [&](const ResNetSpec& r) {
            std::int64_t ch = r.input_shape[0], h = r.input_shape[1], w = r.input_shape[2];
            const auto c0 = r.stage_channels.front();
            c.add("conv1", fmt::format("3x3 conv {} -> {}, batch norm, relu -> {}x{}x{}", ch, c0, c0, h, w),
                  9 * ch * c0 + 2 * c0, 2.0 * static_cast<double>(9 * ch * c0 * h * w));
            ch = c0;
            for (std::size_t stage = 0; stage < r.stage_channels.size(); ++stage) {
              const auto out = r.stage_channels[stage];
              for (std::int64_t b = 0; b < r.blocks_per_stage; ++b) {
                const bool down = stage > 0 && b == 0;
                if (down) h /= 2, w /= 2;
                const std::int64_t params = 9 * ch * out + 9 * out * out + 4 * out;
                const double flops = 2.0 * static_cast<double>(9 * ch * out * h * w + 9 * out * out * h * w);
                c.add(fmt::format("stage{}.{}", stage + 1, b + 1),
                      fmt::format("conv3x3 {} -> {}{}, BN, relu, conv3x3, add{}, BN -> {}x{}x{}", ch, out,
                                  down ? " stride 2" : "",
                                  down ? " (zero-padded shortcut)" : "", out, h, w),
                      params, flops);
                ch = out;
              }
            }
            c.add("pool", fmt::format("global average pool -> {}", ch), 0, 0);
            c.add("fc", fmt::format("linear {} -> {}, softmax cross-entropy", ch, r.classes),
                  ch * r.classes + r.classes, 2.0 * static_cast<double>(ch * r.classes));
          },
          [&](const LstmSpec& l) {
            const double steps = static_cast<double>(l.sequence);
            c.add("embed", fmt::format("embedding {} words -> {}", l.vocabulary, l.embedding),
                  l.vocabulary * l.embedding, 0);
            std::int64_t in = l.embedding;
            for (std::int64_t i = 0; i < l.layers; ++i) {
              // Four gates, input and recurrent weights, two bias vectors
              // (the cuDNN / PyTorch layout).
              c.add(fmt::format("lstm{}", i + 1), fmt::format("LSTM {} -> {}, {} steps", in, l.hidden, l.sequence),
                    4 * l.hidden * (in + l.hidden) + 8 * l.hidden,
                    steps * 2.0 * static_cast<double>(4 * l.hidden * (in + l.hidden)));
              in = l.hidden;
            }
            c.add("decoder", fmt::format("linear {} -> {}, softmax cross-entropy per step", l.hidden, l.vocabulary),
                  l.hidden * l.vocabulary + l.vocabulary, steps * 2.0 * static_cast<double>(l.hidden * l.vocabulary));
          },
      },
      architecture);
  return c;
}

}  // namespace

std::int64_t ModelSpec::parameter_count() const { return census_of(architecture).parameters; }

double ModelSpec::training_flops_per_example() const { return 3 * census_of(architecture).forward_flops; }

std::vector<Layer> ModelSpec::layers() const { return census_of(architecture).layers; }

std::vector<std::int64_t> ModelSpec::input_shape() const {
  return std::visit(Overloaded{[](const MlpSpec& m) { return std::vector<std::int64_t>{m.layer_sizes.front()}; },
                               [](const ConvNetSpec& n) { return n.input_shape; },
                               [](const ResNetSpec& r) { return r.input_shape; },
                               [](const LstmSpec& l) { return std::vector<std::int64_t>{l.sequence}; }},
                    architecture);
}

std::int64_t ModelSpec::outputs() const {
  return std::visit(Overloaded{[](const MlpSpec& m) { return m.layer_sizes.back(); },
                               [](const ConvNetSpec& n) { return n.classes; },
                               [](const ResNetSpec& r) { return r.classes; },
                               [](const LstmSpec& l) { return l.vocabulary; }},
                    architecture);
}

DataNeed ModelSpec::data_need() const {
  const auto* lstm = std::get_if<LstmSpec>(&architecture);
  return {.workload = name,
          .dataset = dataset,
          .example_shape = input_shape(),
          .outputs = outputs(),
          .sequence = lstm ? lstm->sequence : 0};
}

}  // namespace dlcbench::models
