// gpu-gemm: C = A B of square n x n matrices through cublasGemmEx, in FP32,
// TF32 (FP32 data, tensor cores with 10-bit mantissa inputs), BF16 and FP16
// (16-bit data and results, FP32 accumulation, as frameworks train). One
// operation is as many products as take about 100 ms, timed with CUDA events;
// every operation checks sampled entries of C against the host.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/device_memory.h"
#include "backends/cuda/gpu_micro.h"
#include "backends/cuda/gpu_peak.h"

namespace dlcbench::cuda {
namespace {

struct Precision {
  cudaDataType_t data;
  cublasComputeType_t compute;
  std::size_t element_bytes;
  double input_rounding;   // relative error of each product's inputs inside cuBLAS
  double output_rounding;  // relative error of storing C
};

Precision precision_of(const std::string& variant) {
  // Rounding: TF32 keeps 10 mantissa bits (unit roundoff 2^-11, two inputs:
  // 2^-10); BF16 stores 8 bits (2^-8 for the result), FP16 11 (2^-11). The
  // 16-bit inputs are exact: the host reference uses the rounded values.
  if (variant == "fp32") return {CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC, 4, 0, 0};
  if (variant == "tf32") return {CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, std::ldexp(1.0, -10), 0};
  if (variant == "bf16") return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, 0, std::ldexp(1.0, -8)};
  if (variant == "fp16") return {CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, 0, std::ldexp(1.0, -11)};
  throw UsageError(fmt::format("gpu-gemm/{}: valid variants are fp32, tf32, bf16, fp16", variant));
}

// Host values in the variant's storage type, and their exact float values.
void fill(std::vector<float>& exact, std::vector<unsigned char>& stored, const std::string& variant,
          std::mt19937_64& rng) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (std::size_t i = 0; i < exact.size(); ++i) {
    const float v = value(rng);
    if (variant == "bf16") {
      const __nv_bfloat16 b = __float2bfloat16(v);
      exact[i] = __bfloat162float(b);
      std::memcpy(&stored[i * 2], &b, 2);
    } else if (variant == "fp16") {
      const __half h = __float2half(v);
      exact[i] = __half2float(h);
      std::memcpy(&stored[i * 2], &h, 2);
    } else {
      exact[i] = v;
      std::memcpy(&stored[i * 4], &v, 4);
    }
  }
}

class GpuGemm : public MicroBenchmark {
 public:
  explicit GpuGemm(const MicroParams& p)
      : variant_(p.variant), precision_(precision_of(p.variant)), n_(p.size),
        elements_(static_cast<std::size_t>(p.size) * static_cast<std::size_t>(p.size)) {
    device_ = probe_device();
    a_exact_.resize(elements_);
    b_exact_.resize(elements_);
    std::vector<unsigned char> stored(elements_ * precision_.element_bytes);
    std::mt19937_64 rng(p.seed);
    a_ = DeviceMemory(stored.size());
    b_ = DeviceMemory(stored.size());
    c_ = DeviceMemory(stored.size());
    fill(a_exact_, stored, variant_, rng);
    DLCBENCH_CUDA(cudaMemcpy(a_.get(), stored.data(), stored.size(), cudaMemcpyHostToDevice));
    fill(b_exact_, stored, variant_, rng);
    DLCBENCH_CUDA(cudaMemcpy(b_.get(), stored.data(), stored.size(), cudaMemcpyHostToDevice));
    DLCBENCH_CUBLAS(cublasCreate(&handle_));
    DLCBENCH_CUDA(cudaStreamCreate(&stream_));
    DLCBENCH_CUBLAS(cublasSetStream(handle_, stream_));
    // 16-bit products summed in FP32 throughout, as "FP32 accumulation" and
    // the check's bound say: by default cuBLAS may add split-K partial sums
    // in the 16-bit output type.
    DLCBENCH_CUBLAS(cublasSetMathMode(handle_, CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
    DLCBENCH_CUDA(cudaEventCreate(&start_));
    DLCBENCH_CUDA(cudaEventCreate(&stop_));
    // Untimed: the first product picks its kernel.
    product();
    repeats_ = products_per_operation();
  }

  ~GpuGemm() override {
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
    if (handle_) cublasDestroy(handle_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  nlohmann::json describe() const override {
    nlohmann::json d = {{"variant", variant_},
                        {"n", n_},
                        {"products_per_operation", repeats_},
                        {"products_per_operation_from", estimated_peak() ? "estimated peak" : "one timed product"},
                        {"compute", variant_ == "tf32" ? "FP32 data, TF32 tensor cores"
                                    : variant_ == "fp32" ? "FP32 (pedantic: no tensor cores)"
                                                         : variant_ + " data, FP32 accumulation"},
                        {"device", device_}};
    if (const auto peak = estimated_peak()) d["estimated_peak_gflops"] = *peak / 1e9;
    return d;
  }

  MicroResult run() override {
    MicroResult r;
    r.seconds = timed(repeats_);
    r.work = 2.0 * static_cast<double>(n_) * static_cast<double>(n_) * static_cast<double>(n_) * repeats_;
    r.detail = {{"max_error_ratio", check()}};
    return r;
  }

 private:
  // About 100 ms of products. Where the peak table knows the GPU, from its
  // estimated peak (cuBLAS reaches about 70% of it): the same number in
  // every environment, so every launch does the same work and their times
  // compare. Elsewhere from one timed product, rounded down to a power of
  // two so that launches mostly agree.
  int products_per_operation() {
    const double flops = 2.0 * static_cast<double>(n_) * static_cast<double>(n_) * static_cast<double>(n_);
    if (const auto peak = estimated_peak())
      return static_cast<int>(std::clamp(std::ceil(0.1 * 0.7 * *peak / flops), 1.0, 1000.0));
    const double one = timed(1);
    return static_cast<int>(std::bit_floor(
        static_cast<unsigned>(std::clamp(std::ceil(0.1 / std::max(one, 1e-6)), 1.0, 1024.0))));
  }

  std::optional<double> estimated_peak() const {
    return estimated_peak_flops(device_["cc_major"].get<int>(), device_["cc_minor"].get<int>(),
                                device_["multiprocessors"].get<int>(),
                                device_["sm_clock_max_mhz"].get<double>() * 1e6, variant_);
  }

  void product() {
    const float alpha = 1.0f, beta = 0.0f;
    const int n = static_cast<int>(n_);
    DLCBENCH_CUBLAS(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a_.get(), precision_.data, n,
                                 b_.get(), precision_.data, n, &beta, c_.get(), precision_.data, n,
                                 precision_.compute, CUBLAS_GEMM_DEFAULT));
  }

  double timed(int products) {
    DLCBENCH_CUDA(cudaEventRecord(start_, stream_));
    for (int i = 0; i < products; ++i) product();
    DLCBENCH_CUDA(cudaEventRecord(stop_, stream_));
    DLCBENCH_CUDA(cudaEventSynchronize(stop_));
    float ms = 0;
    DLCBENCH_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    return ms / 1e3;
  }

  // Sampled entries of C (column-major: C[i + j n] = sum_k A[i + k n] B[k + j n])
  // against the host within the variant's rounding; the largest error as a
  // fraction of what is allowed, or ValidationError.
  double check() {
    std::mt19937_64 rng(static_cast<std::uint64_t>(n_));
    std::uniform_int_distribution<std::int64_t> index(0, n_ - 1);
    double worst = 0;
    for (int s = 0; s < 16; ++s) {
      const std::int64_t i = index(rng), j = index(rng);
      double reference = 0, magnitude = 0;
      for (std::int64_t k = 0; k < n_; ++k) {
        const double product = static_cast<double>(a_exact_[static_cast<std::size_t>(i + k * n_)]) *
                               b_exact_[static_cast<std::size_t>(k + j * n_)];
        reference += product;
        magnitude += std::abs(product);
      }
      const auto offset = static_cast<std::size_t>(i + j * n_) * precision_.element_bytes;
      unsigned char raw[4] = {};
      DLCBENCH_CUDA(cudaMemcpy(raw, static_cast<unsigned char*>(c_.get()) + offset, precision_.element_bytes,
                               cudaMemcpyDeviceToHost));
      double value = 0;
      if (variant_ == "bf16") {
        __nv_bfloat16 b;
        std::memcpy(&b, raw, sizeof b);
        value = __bfloat162float(b);
      } else if (variant_ == "fp16") {
        __half h;
        std::memcpy(&h, raw, sizeof h);
        value = __half2float(h);
      } else {
        float f;
        std::memcpy(&f, raw, sizeof f);
        value = f;
      }
      // FP32 accumulation of n terms: n 2^-24 of the magnitude at worst.
      const double allowed = (precision_.input_rounding + static_cast<double>(n_) * std::ldexp(1.0, -24)) * magnitude +
                             precision_.output_rounding * std::abs(reference) + 1e-6;
      const double error = std::abs(value - reference);
      if (!(error <= allowed))
        throw ValidationError(fmt::format("gpu-gemm/{}: C[{},{}] is {} where the host computes {} (allowed error {:.3g})",
                                          variant_, i, j, value, reference, allowed));
      worst = std::max(worst, error / allowed);
    }
    return worst;
  }

  std::string variant_;
  Precision precision_;
  std::int64_t n_;
  std::size_t elements_;
  nlohmann::json device_;
  std::vector<float> a_exact_, b_exact_;
  DeviceMemory a_, b_, c_;
  cublasHandle_t handle_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  int repeats_ = 1;
};

}  // namespace

std::unique_ptr<MicroBenchmark> make_gpu_gemm(const MicroParams& params) { return std::make_unique<GpuGemm>(params); }

}  // namespace dlcbench::cuda
