// The layers of the classifiers, each built from oneDNN primitives. Every
// function adds the layer's forward steps to the program and one backward
// group (weight gradients, and the input's gradient where the input has one),
// and returns the layer's output. Parameters are added in the order of the
// shared layout. Layouts are oneDNN's choice (format_tag::any) with reorders
// where two primitives disagree.
#pragma once

#include <string>
#include <vector>

#include "backends/onednn/tensor.h"
#include "workloads/models/model_spec.h"

namespace dlcbench::onednn {

// Fully connected: input [N, I] or [N, C, H, W] (flattened in C, H, W
// order), output [N, outputs] row-major; parameters `name`.weight, .bias.
Activation add_linear(Program& program, Context& context, const Activation& in, std::int64_t outputs,
                      const std::string& name);

struct ConvShape {
  std::int64_t out_channels = 0, kernel = 0, stride = 1, padding = 0;
  bool bias = true;
};
// 2-D convolution, square kernel, symmetric zero padding; `name`.weight
// [O, I, K, K] and, with a bias, `name`.bias.
Activation add_convolution(Program& program, Context& context, const Activation& in, const ConvShape& shape,
                           const std::string& name);

// Element-wise sigmoid or ReLU.
Activation add_activation(Program& program, Context& context, const Activation& in, models::Activation kind);

// Max (with its workspace) or average pooling, no padding, floor rounding;
// average divides by the window's area.
Activation add_pooling(Program& program, Context& context, const Activation& in, models::PoolKind kind,
                       std::int64_t kernel_h, std::int64_t kernel_w, std::int64_t stride);

// Training-mode batch normalisation (batch statistics, biased variance,
// eps 1e-5) with scale `name`.weight and shift `name`.bias.
Activation add_batch_norm(Program& program, Context& context, const Activation& in, const std::string& name);

// y + shortcut(x), ResNet option A: x subsampled by `stride` and padded with
// zero channels up to y's. The sum's gradient is y's gradient (the same
// memory); x's share of it is added to x's gradient by steps placed in
// `after_input_gradient`, a backward group that must run after whatever
// writes x's gradient (the block's first convolution).
Activation add_shortcut_sum(Program& program, Context& context, const Activation& x, const Activation& y,
                            std::int64_t stride, std::vector<Step>& after_input_gradient);

}  // namespace dlcbench::onednn
