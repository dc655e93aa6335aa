// cuDNN's descriptors, owned, for the shapes the networks use: FP32 tensors
// in NCHW (PyTorch's layout, so examples go in and features flatten
// without reordering), filters [out, in, kh, kw], 2-D convolutions and
// pooling windows.
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>

#include <cudnn.h>

namespace dlcbench::cuda {

// The shape of a batch of images, NCHW.
struct ImageShape {
  std::int64_t n = 0, c = 0, h = 0, w = 0;
  std::int64_t plane() const { return h * w; }
  std::int64_t numel() const { return n * c * h * w; }
};

class TensorDescriptor {
 public:
  explicit TensorDescriptor(ImageShape shape);
  cudnnTensorDescriptor_t get() const { return desc_.get(); }

 private:
  struct Destroy {
    void operator()(cudnnTensorDescriptor_t d) const { cudnnDestroyTensorDescriptor(d); }
  };
  std::unique_ptr<std::remove_pointer_t<cudnnTensorDescriptor_t>, Destroy> desc_;
};

class FilterDescriptor {
 public:
  FilterDescriptor(std::int64_t out_channels, std::int64_t in_channels, std::int64_t kernel);
  cudnnFilterDescriptor_t get() const { return desc_.get(); }

 private:
  struct Destroy {
    void operator()(cudnnFilterDescriptor_t d) const { cudnnDestroyFilterDescriptor(d); }
  };
  std::unique_ptr<std::remove_pointer_t<cudnnFilterDescriptor_t>, Destroy> desc_;
};

// Cross-correlation (what PyTorch calls convolution), FP32 arithmetic on
// FMA units only: no TF32 tensor cores.
class ConvolutionDescriptor {
 public:
  ConvolutionDescriptor(std::int64_t padding, std::int64_t stride);
  cudnnConvolutionDescriptor_t get() const { return desc_.get(); }

 private:
  struct Destroy {
    void operator()(cudnnConvolutionDescriptor_t d) const { cudnnDestroyConvolutionDescriptor(d); }
  };
  std::unique_ptr<std::remove_pointer_t<cudnnConvolutionDescriptor_t>, Destroy> desc_;
};

// No padding; NaNs are not propagated by max pooling (PyTorch's max pooling
// does propagate them, but a NaN has ended the agreement long before).
class PoolingDescriptor {
 public:
  PoolingDescriptor(cudnnPoolingMode_t mode, std::int64_t window_h, std::int64_t window_w, std::int64_t stride);
  cudnnPoolingDescriptor_t get() const { return desc_.get(); }

 private:
  struct Destroy {
    void operator()(cudnnPoolingDescriptor_t d) const { cudnnDestroyPoolingDescriptor(d); }
  };
  std::unique_ptr<std::remove_pointer_t<cudnnPoolingDescriptor_t>, Destroy> desc_;
};

// cuDNN counts in int.
int cudnn_dim(std::int64_t n);

}  // namespace dlcbench::cuda
