// The cuda back end's own kernels (kernels.cu): everything a training step
// needs besides cuBLAS's products and cuDNN's convolution, pooling and batch
// norm. Each launches on `stream` and returns at once; a bad launch throws
// GpuError. Tensors are row-major (images NCHW) float arrays on the device;
// the per-element arithmetic is kernel_math.h's.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "backends/cuda/kernel_math.h"
#include "workloads/models/model_spec.h"

namespace dlcbench::cuda::kernels {

// x[0..n) = value.
void fill(float* x, std::int64_t n, float value, cudaStream_t stream);
// out[r, :] = row for each of `rows` rows of `columns` values: a bias about
// to receive a GEMM's product (beta = 1).
void broadcast_rows(const float* row, std::int64_t rows, std::int64_t columns, float* out, cudaStream_t stream);
// out = a + b.
void add(const float* a, const float* b, std::int64_t n, float* out, cudaStream_t stream);

// In place, as the reference engine's activate() and activation_backward():
// backward turns the gradient of the activated values into that of their
// inputs, from the activated values.
void activate(models::Activation kind, float* x, std::int64_t n, cudaStream_t stream);
void activation_backward(models::Activation kind, const float* activated, float* grad, std::int64_t n,
                         cudaStream_t stream);

// ResNet's option-A shortcut (math::shortcut_source) over a batch of NCHW
// images: y += shortcut(x) forward, dx += its transpose applied to dy backward.
void add_shortcut(const float* x, math::ImageDims in, std::int64_t batch, std::int64_t stride, float* y,
                  math::ImageDims out, cudaStream_t stream);
void add_shortcut_gradient(const float* dy, math::ImageDims out, std::int64_t batch, std::int64_t stride, float* dx,
                           math::ImageDims in, cudaStream_t stream);

// One LSTM time step for `batch` rows of `hidden` units. Forward: `gates`
// [batch, 4H] holds the pre-activations (x W_ih^T + h W_hh^T + biases) and
// receives the activated gates; c_next, tanh_c and h_next [batch, H] are
// written. Backward: from the activated gates, c_prev, tanh_c, dy (the
// gradient of this step's output from the layer above), dh_next (that of h'
// from the next step, read only) and dc_next (that of c' from the next step,
// replaced by the gradient of c_prev), writes the pre-activations' gradient
// into dgates [batch, 4H].
void lstm_forward_step(float* gates, const float* c_prev, float* c_next, float* tanh_c, float* h_next,
                       std::int64_t batch, std::int64_t hidden, cudaStream_t stream);
void lstm_backward_step(const float* gates, const float* c_prev, const float* tanh_c, const float* dy,
                        const float* dh_next, float* dc_next, float* dgates, std::int64_t batch, std::int64_t hidden,
                        cudaStream_t stream);

// y[r, :] = table[tokens[r], :]; backward adds dy[r, :] to grad[tokens[r], :]
// (grad zeroed by the caller; repeated tokens add up atomically).
void embedding_forward(const std::int64_t* tokens, std::int64_t rows, const float* table, std::int64_t dim, float* y,
                       cudaStream_t stream);
void embedding_backward(const std::int64_t* tokens, std::int64_t rows, const float* dy, std::int64_t dim,
                        float* grad, cudaStream_t stream);

// Softmax cross-entropy, mean over rows: adds the rows' losses (not yet
// divided by rows) to *loss_sum, which the caller zeroes, and replaces the
// scores [rows, classes] by the loss's gradient with respect to them.
// Labels must be in [0, classes): the session checks them on the host.
void softmax_cross_entropy(float* scores, const std::int64_t* labels, std::int64_t rows, std::int64_t classes,
                           double* loss_sum, cudaStream_t stream);

// *sum += sum of x[i]^2 (the caller zeroes *sum), in double.
void add_sum_of_squares(const float* x, std::int64_t n, double* sum, cudaStream_t stream);
// x *= math::clip_factor(*sum_of_squares, max_norm), read on the device so the
// step never waits for the host.
void clip_by_norm(float* x, std::int64_t n, const double* sum_of_squares, double max_norm, cudaStream_t stream);

// math::sgd_update over n values with their gradients and momentum buffers.
void sgd_step(float* values, float* velocity, const float* grads, std::int64_t n, float learning_rate,
              float momentum, bool first_step, cudaStream_t stream);

}  // namespace dlcbench::cuda::kernels
