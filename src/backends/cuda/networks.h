// The networks of src/workloads/models on the cuda back end, as the
// reference engine builds them: the network walk (backends/network_walk) over
// this engine's layers, in device memory, all on the context's one stream.
// Each is built for a fixed batch: every device buffer a training step needs
// is allocated then, none during the step. Tensors are NCHW, so examples go
// in as the data sets store them and features flatten as x.flatten(1).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/cuda/batch_norm.h"
#include "backends/cuda/convolution.h"
#include "backends/cuda/cuda_check.h"
#include "backends/cuda/descriptors.h"
#include "backends/cuda/device_memory.h"
#include "backends/cuda/device_parameters.h"
#include "backends/cuda/embedding.h"
#include "backends/cuda/gpu_context.h"
#include "backends/cuda/kernels.h"
#include "backends/cuda/linear.h"
#include "backends/cuda/lstm.h"
#include "backends/cuda/pooling.h"
#include "backends/network_walk/engine.h"
#include "backends/network_walk/language_model.h"
#include "workloads/models/model_spec.h"

namespace dlcbench::cuda {

// The cuda engine's side of the network walk (network_walk/engine.h): each
// kind of layer with the way to make one. The layers take their tensors from
// *params and queue their work on gpu's stream.
struct Layers {
  const GpuContext* gpu;
  DeviceParameters* params;

  using Shape = ImageShape;
  static ImageShape image_shape(std::int64_t batch, const std::vector<std::int64_t>& chw) {
    return {.n = batch, .c = chw[0], .h = chw[1], .w = chw[2]};
  }
  static walk::ImageSize size(ImageShape s) { return {s.c, s.h, s.w}; }

  using Linear = cuda::Linear;
  Linear linear(const std::string& name, std::int64_t in, std::int64_t out, std::int64_t rows,
                bool input_gradient) const {
    return Linear(*gpu, *params, name, in, out, rows, input_gradient);
  }

  // The convolutions of a network share one workspace, allocated once they
  // have all said what they need.
  using ConvOptions = cuda::ConvOptions;
  using ConvWorkspace = cuda::ConvWorkspace;
  using Conv2d = cuda::Conv2d;
  Conv2d conv2d(const std::string& name, ImageShape in, const ConvOptions& options, ConvWorkspace& workspace,
                bool input_gradient) const {
    return Conv2d(*gpu, *params, name, in, options, workspace, input_gradient);
  }
  static void allocate(ConvWorkspace& workspace) { workspace.allocate(); }

  using BatchNorm2d = cuda::BatchNorm2d;
  BatchNorm2d batch_norm(const std::string& name, ImageShape shape) const {
    return BatchNorm2d(*gpu, *params, name, shape);
  }

  using Pool2d = cuda::Pool2d;
  Pool2d pool(models::PoolKind kind, ImageShape in, std::int64_t kernel, std::int64_t stride) const {
    return Pool2d(*gpu, kind, in, kernel, kernel, stride);
  }
  using GlobalAvgPool = cuda::Pool2d;  // a window the size of the image
  Pool2d global_avg_pool(ImageShape in) const { return Pool2d(*gpu, models::PoolKind::kAverage, in, in.h, in.w, 1); }

  // NCHW is PyTorch's layout already.
  using ImageInput = walk::SameLayout;
  static walk::SameLayout image_input(ImageShape) { return {}; }
  using Flatten = walk::SameLayout;
  static walk::SameLayout flatten(ImageShape) { return {}; }

  void activate(models::Activation kind, float* x, std::int64_t n) const {
    kernels::activate(kind, x, n, gpu->stream());
  }
  void activation_backward(models::Activation kind, const float* activated, float* grad, std::int64_t n) const {
    kernels::activation_backward(kind, activated, grad, n, gpu->stream());
  }
  void add_shortcut(const float* x, ImageShape in, std::int64_t stride, float* y, ImageShape out) const {
    kernels::add_shortcut(x, dims(in), in.n, stride, y, dims(out), gpu->stream());
  }
  void add_shortcut_gradient(const float* dy, ImageShape out, std::int64_t stride, float* dx, ImageShape in) const {
    kernels::add_shortcut_gradient(dy, dims(out), in.n, stride, dx, dims(in), gpu->stream());
  }

  using Embedding = cuda::Embedding;
  Embedding embedding(const std::string& name, std::int64_t vocabulary, std::int64_t dim, std::int64_t rows) const {
    return Embedding(*gpu, *params, name, vocabulary, dim, rows);
  }
  using LstmLayer = cuda::LstmLayer;
  LstmLayer lstm(int index, std::int64_t input_size, std::int64_t hidden, std::int64_t steps, std::int64_t batch,
                 bool input_gradient) const {
    return LstmLayer(*gpu, *params, index, input_size, hidden, steps, batch, input_gradient);
  }
  using State = DeviceArray<float>;
  static DeviceArray<float> state(std::int64_t count) { return DeviceArray<float>(static_cast<std::size_t>(count)); }
  void zero(DeviceArray<float>& state) const {
    DLCBENCH_CUDA(cudaMemsetAsync(state.data(), 0, state.size() * sizeof(float), gpu->stream()));
  }

 private:
  static math::ImageDims dims(ImageShape s) { return {s.c, s.h, s.w}; }
};

using ClassifierNetwork = walk::ClassifierNetwork;
using LanguageModel = walk::LanguageModel<Layers>;

// The network takes its tensors from `params` (made from
// parameter_layout(spec), and outliving the network), every one of them.
std::unique_ptr<ClassifierNetwork> make_classifier(const GpuContext& gpu, DeviceParameters& params,
                                                   const models::ModelSpec& spec, std::int64_t batch);
std::unique_ptr<LanguageModel> make_language_model(const GpuContext& gpu, DeviceParameters& params,
                                                   const models::LstmSpec& spec, std::int64_t batch);

}  // namespace dlcbench::cuda
