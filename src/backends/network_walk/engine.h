// The network walk: the suite's networks written once (classifiers.h,
// language_model.h) for the engines that run their own forward and backward
// passes, the reference engine on the CPU and the cuda engine on the GPU.
// The walk holds what the networks are: the order of the layers, the shapes
// handed from one to the next, the ResNet block's residual wiring, the
// stacking of the LSTM layers and the order of the backward pass. An engine
// supplies only its layers, through a small struct (reference::Layers,
// cuda::Layers) that the walk takes as its template argument E:
//
//   types        Shape (a batch of images in the engine's own layout),
//                ConvOptions, ConvWorkspace, Linear, Conv2d, BatchNorm2d,
//                Pool2d, GlobalAvgPool, Embedding, LstmLayer, ImageInput,
//                Flatten, State
//   layers       linear(), conv2d(), batch_norm(), pool(), global_avg_pool(),
//                embedding(), lstm(), image_input(), flatten(), state(): each
//                makes one; those with parameters take them from the shared
//                layout (backends/parameters.h) in the order they are made,
//                which is the order the walk makes them in
//   arithmetic   activate(), activation_backward(), add_shortcut(),
//                add_shortcut_gradient(), zero(State&)
//   shapes       image_shape(batch, {C, H, W}), size(Shape) -> ImageSize
//   allocate(ConvWorkspace&), once every convolution has reserved its share.
//
// As in PyTorch's modules, a layer's forward(x) returns its output (memory
// the layer owns) and x must stay unchanged until backward(dy), which
// returns the gradient of x: nullptr for a layer told it needs none.
#pragma once

#include <cstdint>

namespace dlcbench::walk {

// One image's extent, whatever the engine's layout.
struct ImageSize {
  std::int64_t channels = 0, height = 0, width = 0;
};

// ImageInput and Flatten for an engine whose images are already PyTorch's
// [N, C, H, W]: examples go in as they are, and x.flatten(1) is the same
// memory.
struct SameLayout {
  const float* forward(const float* x) const { return x; }
  float* backward(float* grad) const { return grad; }
};

// An image or feature classifier: examples in, class scores out.
class ClassifierNetwork {
 public:
  virtual ~ClassifierNetwork() = default;
  // examples [batch, ...] in the engine's memory, as the data set stores
  // them (images [N, C, H, W]) -> scores [batch, classes]. The examples must
  // stay unchanged until backward().
  virtual float* forward(const float* examples) = 0;
  // The gradient of the loss with respect to the scores -> the gradients of
  // all parameters. May overwrite grad_scores.
  virtual void backward(float* grad_scores) = 0;
};

}  // namespace dlcbench::walk
