// gpu-copy: the bandwidth of one cudaMemcpyAsync of `size` bytes, host to
// device and device to host from pinned (page-locked) and pageable memory,
// and device to device, timed with CUDA events as NVIDIA's bandwidthTest
// does. The figure counts the bytes copied; a device-to-device copy reads
// and writes each, so its memory traffic is twice that. Every operation
// checks sampled words of the destination.
#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/device_memory.h"
#include "backends/cuda/gpu_micro.h"

namespace dlcbench::cuda {
namespace {

// The word written at `index` in round `round`: changes every round, so a
// copy that did not happen is caught.
std::uint64_t pattern(std::uint64_t index, std::uint64_t round) {
  return (index * 0x9E3779B97F4A7C15ull) ^ (round << 48) ^ 0x5DEECE66Dull;
}

class GpuCopy : public MicroBenchmark {
 public:
  explicit GpuCopy(const MicroParams& p) : variant_(p.variant), bytes_(static_cast<std::size_t>(p.size)) {
    if (variant_ != "h2d-pinned" && variant_ != "h2d-pageable" && variant_ != "d2h-pinned" &&
        variant_ != "d2h-pageable" && variant_ != "d2d")
      throw UsageError(fmt::format("gpu-copy/{}: valid variants are h2d-pinned, h2d-pageable, d2h-pinned, "
                                   "d2h-pageable, d2d", variant_));
    if (bytes_ % sizeof(std::uint64_t) != 0 || bytes_ == 0)
      throw UsageError(fmt::format("gpu-copy: size={} is not a positive multiple of 8 bytes", bytes_));
    device_info_ = probe_device();
    words_ = bytes_ / sizeof(std::uint64_t);
    device_a_ = DeviceMemory(bytes_);
    if (variant_ == "d2d") {
      device_b_ = DeviceMemory(bytes_);
    } else if (variant_.ends_with("pinned")) {
      pinned_ = std::make_unique<PinnedMemory>(bytes_);
      host_ = static_cast<std::uint64_t*>(pinned_->get());
    } else {
      pageable_.resize(words_);  // touched by the fill below, so its pages exist
      host_ = pageable_.data();
    }
    DLCBENCH_CUDA(cudaStreamCreate(&stream_));
    DLCBENCH_CUDA(cudaEventCreate(&start_));
    DLCBENCH_CUDA(cudaEventCreate(&stop_));
  }

  ~GpuCopy() override {
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  nlohmann::json describe() const override {
    nlohmann::json d = {{"variant", variant_}, {"bytes", bytes_}, {"counts", "bytes copied"}, {"device", device_info_}};
    // The most the copy could move, in the figure's unit (GB copied per
    // second): the PCIe link's one-way limit, or half the memory's, since a
    // device-to-device copy reads and writes every byte.
    if (variant_ == "d2d") {
      d["estimated_limit_gb_per_s"] = device_info_["memory_limit_bytes_per_s"].get<double>() / 2 / 1e9;
      d["limit_from"] = "device memory: 2 transfers x memory clock x bus width, read plus written";
    } else if (device_info_.contains("pcie_limit_bytes_per_s")) {
      d["estimated_limit_gb_per_s"] = device_info_["pcie_limit_bytes_per_s"].get<double>() / 1e9;
      d["limit_from"] = fmt::format("PCIe generation {} x{}, one way, less its line code",
                                    device_info_["nvml"]["pcie_generation_max"].get<int>(),
                                    device_info_["nvml"]["pcie_width_max"].get<int>());
    }
    return d;
  }

  MicroResult run() override {
    ++round_;
    prepare_source();
    void* to = nullptr;
    const void* from = nullptr;
    cudaMemcpyKind kind{};
    if (variant_.starts_with("h2d")) to = device_a_.get(), from = host_, kind = cudaMemcpyHostToDevice;
    else if (variant_.starts_with("d2h")) to = host_, from = device_a_.get(), kind = cudaMemcpyDeviceToHost;
    else to = device_b_.get(), from = device_a_.get(), kind = cudaMemcpyDeviceToDevice;
    DLCBENCH_CUDA(cudaEventRecord(start_, stream_));
    DLCBENCH_CUDA(cudaMemcpyAsync(to, from, bytes_, kind, stream_));
    DLCBENCH_CUDA(cudaEventRecord(stop_, stream_));
    DLCBENCH_CUDA(cudaEventSynchronize(stop_));
    float ms = 0;
    DLCBENCH_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    verify(to, kind);
    MicroResult r;
    r.seconds = ms / 1e3;
    r.work = static_cast<double>(bytes_);
    return r;
  }

 private:
  // Untimed: the source holds this round's pattern.
  void prepare_source() {
    if (variant_.starts_with("h2d")) {
      for (std::size_t i = 0; i < words_; ++i) host_[i] = pattern(i, round_);
      return;
    }
    // The device source is written in chunks from a host staging buffer.
    constexpr std::size_t kChunk = 1 << 20;
    std::vector<std::uint64_t> staging(std::min(words_, kChunk));
    for (std::size_t first = 0; first < words_; first += kChunk) {
      const std::size_t count = std::min(kChunk, words_ - first);
      for (std::size_t i = 0; i < count; ++i) staging[i] = pattern(first + i, round_);
      DLCBENCH_CUDA(cudaMemcpy(static_cast<std::uint64_t*>(device_a_.get()) + first, staging.data(),
                               count * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
    }
  }

  // The first, the last and 62 random words of the destination.
  void verify(void* destination, cudaMemcpyKind kind) {
    std::mt19937_64 rng(round_);
    std::uniform_int_distribution<std::size_t> index(0, words_ - 1);
    for (int s = 0; s < 64; ++s) {
      const std::size_t i = s == 0 ? 0 : s == 1 ? words_ - 1 : index(rng);
      std::uint64_t value = 0;
      const auto* word = static_cast<const std::uint64_t*>(destination) + i;
      if (kind == cudaMemcpyDeviceToHost) std::memcpy(&value, word, sizeof value);
      else DLCBENCH_CUDA(cudaMemcpy(&value, word, sizeof value, cudaMemcpyDeviceToHost));
      if (value != pattern(i, round_))
        throw ValidationError(fmt::format("gpu-copy/{}: word {} of {} holds {:#x} after the copy, not {:#x}", variant_,
                                          i, words_, value, pattern(i, round_)));
    }
  }

  std::string variant_;
  std::size_t bytes_, words_ = 0;
  std::uint64_t round_ = 0;
  nlohmann::json device_info_;
  DeviceMemory device_a_, device_b_;
  std::unique_ptr<PinnedMemory> pinned_;
  std::vector<std::uint64_t> pageable_;
  std::uint64_t* host_ = nullptr;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace

std::unique_ptr<MicroBenchmark> make_gpu_copy(const MicroParams& params) { return std::make_unique<GpuCopy>(params); }

}  // namespace dlcbench::cuda
