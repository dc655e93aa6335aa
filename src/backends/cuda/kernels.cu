// The kernels of kernels.h. Element-wise ones are grid-stride loops over
// 64-bit indices; the arithmetic is kernel_math.h's, tested on the CPU.
#include "backends/cuda/kernels.h"

#include <limits>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "backends/cuda/cuda_check.h"

namespace dlcbench::cuda::kernels {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 1 << 16;  // enough to fill any GPU; the loops stride over the rest

unsigned blocks_for(std::int64_t n) {
  const std::int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks));
}

__device__ std::int64_t first_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ std::int64_t grid_stride() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }

// Sum and maximum over a block of kThreads threads; every thread gets the
// result. The leading __syncthreads lets a block reduce twice in a row.
template <class T>
__device__ T warp_sum(T v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__device__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

template <class T>
__device__ T block_sum(T v) {
  __shared__ T partial[kThreads / 32];
  __shared__ T total;
  __syncthreads();
  v = warp_sum(v);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    T w = threadIdx.x < kThreads / 32 ? partial[threadIdx.x] : T{0};
    w = warp_sum(w);
    if (threadIdx.x == 0) total = w;
  }
  __syncthreads();
  return total;
}

__device__ float block_max(float v) {
  __shared__ float partial[kThreads / 32];
  __shared__ float total;
  __syncthreads();
  v = warp_max(v);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    float w = threadIdx.x < kThreads / 32 ? partial[threadIdx.x] : -INFINITY;
    w = warp_max(w);
    if (threadIdx.x == 0) total = w;
  }
  __syncthreads();
  return total;
}

__global__ void fill_kernel(float* x, std::int64_t n, float value) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) x[i] = value;
}

__global__ void broadcast_rows_kernel(const float* row, std::int64_t rows, std::int64_t columns, float* out) {
  const std::int64_t n = rows * columns;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) out[i] = row[i % columns];
}

__global__ void add_kernel(const float* a, const float* b, std::int64_t n, float* out) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) out[i] = a[i] + b[i];
}

__global__ void relu_kernel(float* x, std::int64_t n) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) x[i] = math::relu(x[i]);
}

__global__ void sigmoid_kernel(float* x, std::int64_t n) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) x[i] = math::sigmoid(x[i]);
}

__global__ void relu_backward_kernel(const float* activated, float* grad, std::int64_t n) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) grad[i] = math::relu_backward(activated[i], grad[i]);
}

__global__ void sigmoid_backward_kernel(const float* activated, float* grad, std::int64_t n) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride())
    grad[i] = math::sigmoid_backward(activated[i], grad[i]);
}

__global__ void add_shortcut_kernel(const float* x, math::ImageDims in, std::int64_t stride, float* y,
                                    math::ImageDims out, std::int64_t n) {
  for (std::int64_t o = first_index(); o < n; o += grid_stride()) {
    const std::int64_t from = math::shortcut_source(o, out, in, stride);
    if (from >= 0) y[o] += x[from];
  }
}

__global__ void add_shortcut_gradient_kernel(const float* dy, math::ImageDims out, std::int64_t stride, float* dx,
                                             math::ImageDims in, std::int64_t n) {
  for (std::int64_t o = first_index(); o < n; o += grid_stride()) {
    const std::int64_t to = math::shortcut_source(o, out, in, stride);
    if (to >= 0) dx[to] += dy[o];
  }
}

__global__ void lstm_forward_step_kernel(float* gates, const float* c_prev, float* c_next, float* tanh_c,
                                         float* h_next, std::int64_t batch, std::int64_t hidden) {
  const std::int64_t n = batch * hidden;
  for (std::int64_t at = first_index(); at < n; at += grid_stride()) {
    const std::int64_t b = at / hidden, j = at % hidden;
    float* row = gates + b * 4 * hidden;
    const math::LstmCellOutput cell =
        math::lstm_cell_forward(row[j], row[hidden + j], row[2 * hidden + j], row[3 * hidden + j], c_prev[at]);
    row[j] = cell.gates.i;  // kept activated: backward needs the gates, not their inputs
    row[hidden + j] = cell.gates.f;
    row[2 * hidden + j] = cell.gates.g;
    row[3 * hidden + j] = cell.gates.o;
    c_next[at] = cell.c;
    tanh_c[at] = cell.tanh_c;
    h_next[at] = cell.h;
  }
}

__global__ void lstm_backward_step_kernel(const float* gates, const float* c_prev, const float* tanh_c,
                                          const float* dy, const float* dh_next, float* dc_next, float* dgates,
                                          std::int64_t batch, std::int64_t hidden) {
  const std::int64_t n = batch * hidden;
  for (std::int64_t at = first_index(); at < n; at += grid_stride()) {
    const std::int64_t b = at / hidden, j = at % hidden;
    const float* row = gates + b * 4 * hidden;
    const math::LstmGates g{row[j], row[hidden + j], row[2 * hidden + j], row[3 * hidden + j]};
    const math::LstmCellGradient grad =
        math::lstm_cell_backward(g, c_prev[at], tanh_c[at], dy[at] + dh_next[at], dc_next[at]);
    dc_next[at] = grad.dc_prev;
    float* drow = dgates + b * 4 * hidden;
    drow[j] = grad.d_pre_i;
    drow[hidden + j] = grad.d_pre_f;
    drow[2 * hidden + j] = grad.d_pre_g;
    drow[3 * hidden + j] = grad.d_pre_o;
  }
}

__global__ void embedding_forward_kernel(const std::int64_t* tokens, std::int64_t rows, const float* table,
                                         std::int64_t dim, float* y) {
  const std::int64_t n = rows * dim;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) y[i] = table[tokens[i / dim] * dim + i % dim];
}

__global__ void embedding_backward_kernel(const std::int64_t* tokens, std::int64_t rows, const float* dy,
                                          std::int64_t dim, float* grad) {
  const std::int64_t n = rows * dim;
  for (std::int64_t i = first_index(); i < n; i += grid_stride())
    atomicAdd(grad + tokens[i / dim] * dim + i % dim, dy[i]);
}

// One block per row.
__global__ void softmax_cross_entropy_kernel(float* scores, const std::int64_t* labels, std::int64_t classes,
                                             float per_row, double* loss_sum) {
  float* s = scores + static_cast<std::int64_t>(blockIdx.x) * classes;
  const std::int64_t label = labels[blockIdx.x];
  const float label_score = s[label];  // read before any thread overwrites the row
  float max = -INFINITY;
  for (std::int64_t k = threadIdx.x; k < classes; k += blockDim.x) max = fmaxf(max, s[k]);
  max = block_max(max);
  double sum = 0;
  for (std::int64_t k = threadIdx.x; k < classes; k += blockDim.x) sum += static_cast<double>(expf(s[k] - max));
  sum = block_sum(sum);  // its barriers also order every thread's reads of s before the writes below
  if (threadIdx.x == 0) atomicAdd(loss_sum, math::xent_row_loss(label_score, max, sum));
  const float inv_sum_per_row = static_cast<float>(1.0 / sum) * per_row;
  for (std::int64_t k = threadIdx.x; k < classes; k += blockDim.x)
    s[k] = math::xent_gradient(s[k], max, inv_sum_per_row, k == label, per_row);
}

__global__ void sum_of_squares_kernel(const float* x, std::int64_t n, double* sum) {
  double partial = 0;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) partial += static_cast<double>(x[i]) * x[i];
  partial = block_sum(partial);
  if (threadIdx.x == 0) atomicAdd(sum, partial);
}

__global__ void clip_kernel(float* x, std::int64_t n, const double* sum_of_squares, double max_norm) {
  const double factor = math::clip_factor(*sum_of_squares, max_norm);
  if (factor >= 1.0) return;
  const auto scale = static_cast<float>(factor);
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) x[i] *= scale;
}

__global__ void sgd_kernel(float* values, float* velocity, const float* grads, std::int64_t n, float lr,
                           float momentum, bool first_step) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    float unused = 0.0f;
    float& v = velocity ? velocity[i] : unused;
    math::sgd_update(values[i], v, grads[i], lr, momentum, first_step);
  }
}

}  // namespace

void fill(float* x, std::int64_t n, float value, cudaStream_t stream) {
  fill_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, n, value);
  DLCBENCH_CUDA_LAUNCHED();
}

void broadcast_rows(const float* row, std::int64_t rows, std::int64_t columns, float* out, cudaStream_t stream) {
  broadcast_rows_kernel<<<blocks_for(rows * columns), kThreads, 0, stream>>>(row, rows, columns, out);
  DLCBENCH_CUDA_LAUNCHED();
}

void add(const float* a, const float* b, std::int64_t n, float* out, cudaStream_t stream) {
  add_kernel<<<blocks_for(n), kThreads, 0, stream>>>(a, b, n, out);
  DLCBENCH_CUDA_LAUNCHED();
}

void activate(models::Activation kind, float* x, std::int64_t n, cudaStream_t stream) {
  if (kind == models::Activation::kRelu)
    relu_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, n);
  else
    sigmoid_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, n);
  DLCBENCH_CUDA_LAUNCHED();
}

void activation_backward(models::Activation kind, const float* activated, float* grad, std::int64_t n,
                         cudaStream_t stream) {
  if (kind == models::Activation::kRelu)
    relu_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(activated, grad, n);
  else
    sigmoid_backward_kernel<<<blocks_for(n), kThreads, 0, stream>>>(activated, grad, n);
  DLCBENCH_CUDA_LAUNCHED();
}

void add_shortcut(const float* x, math::ImageDims in, std::int64_t batch, std::int64_t stride, float* y,
                  math::ImageDims out, cudaStream_t stream) {
  const std::int64_t n = batch * out.channels * out.height * out.width;
  add_shortcut_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, in, stride, y, out, n);
  DLCBENCH_CUDA_LAUNCHED();
}

void add_shortcut_gradient(const float* dy, math::ImageDims out, std::int64_t batch, std::int64_t stride, float* dx,
                           math::ImageDims in, cudaStream_t stream) {
  const std::int64_t n = batch * out.channels * out.height * out.width;
  add_shortcut_gradient_kernel<<<blocks_for(n), kThreads, 0, stream>>>(dy, out, stride, dx, in, n);
  DLCBENCH_CUDA_LAUNCHED();
}

void lstm_forward_step(float* gates, const float* c_prev, float* c_next, float* tanh_c, float* h_next,
                       std::int64_t batch, std::int64_t hidden, cudaStream_t stream) {
  lstm_forward_step_kernel<<<blocks_for(batch * hidden), kThreads, 0, stream>>>(gates, c_prev, c_next, tanh_c,
                                                                                 h_next, batch, hidden);
  DLCBENCH_CUDA_LAUNCHED();
}

void lstm_backward_step(const float* gates, const float* c_prev, const float* tanh_c, const float* dy,
                        const float* dh_next, float* dc_next, float* dgates, std::int64_t batch, std::int64_t hidden,
                        cudaStream_t stream) {
  lstm_backward_step_kernel<<<blocks_for(batch * hidden), kThreads, 0, stream>>>(gates, c_prev, tanh_c, dy, dh_next,
                                                                                  dc_next, dgates, batch, hidden);
  DLCBENCH_CUDA_LAUNCHED();
}

void embedding_forward(const std::int64_t* tokens, std::int64_t rows, const float* table, std::int64_t dim, float* y,
                       cudaStream_t stream) {
  embedding_forward_kernel<<<blocks_for(rows * dim), kThreads, 0, stream>>>(tokens, rows, table, dim, y);
  DLCBENCH_CUDA_LAUNCHED();
}

void embedding_backward(const std::int64_t* tokens, std::int64_t rows, const float* dy, std::int64_t dim,
                        float* grad, cudaStream_t stream) {
  embedding_backward_kernel<<<blocks_for(rows * dim), kThreads, 0, stream>>>(tokens, rows, dy, dim, grad);
  DLCBENCH_CUDA_LAUNCHED();
}

void softmax_cross_entropy(float* scores, const std::int64_t* labels, std::int64_t rows, std::int64_t classes,
                           double* loss_sum, cudaStream_t stream) {
  // One block per row: a grid of 1 to 2^31 - 1 blocks.
  if (rows <= 0 || rows > std::numeric_limits<int>::max())
    throw std::invalid_argument("softmax_cross_entropy: " + std::to_string(rows) + " rows");
  const auto per_row = static_cast<float>(1.0 / static_cast<double>(rows));
  softmax_cross_entropy_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(scores, labels, classes, per_row,
                                                                                      loss_sum);
  DLCBENCH_CUDA_LAUNCHED();
}

void add_sum_of_squares(const float* x, std::int64_t n, double* sum, cudaStream_t stream) {
  sum_of_squares_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, n, sum);
  DLCBENCH_CUDA_LAUNCHED();
}

void clip_by_norm(float* x, std::int64_t n, const double* sum_of_squares, double max_norm, cudaStream_t stream) {
  clip_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, n, sum_of_squares, max_norm);
  DLCBENCH_CUDA_LAUNCHED();
}

void sgd_step(float* values, float* velocity, const float* grads, std::int64_t n, float learning_rate,
              float momentum, bool first_step, cudaStream_t stream) {
  sgd_kernel<<<blocks_for(n), kThreads, 0, stream>>>(values, velocity, grads, n, learning_rate, momentum, first_step);
  DLCBENCH_CUDA_LAUNCHED();
}

}  // namespace dlcbench::cuda::kernels
