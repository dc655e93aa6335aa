// The GPU micro-benchmarks and the device probe, in the plugin.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "workloads/micro/micro_benchmark.h"

namespace dlcbench::cuda {

// Versions of the CUDA runtime, cuBLAS and cuDNN this plugin was built with.
nlohmann::json build_info();
// Opens device 0 (GpuError naming the cause otherwise) and describes it.
nlohmann::json probe_device();
// cuDNN opens its engine libraries by name at first use; load them from
// beside libcudnn.so.9 first, so images need no loader cache or
// LD_LIBRARY_PATH. Idempotent.
void preload_cudnn_libraries();

std::unique_ptr<MicroBenchmark> make_gpu_gemm(const MicroParams& params);
std::unique_ptr<MicroBenchmark> make_gpu_copy(const MicroParams& params);

}  // namespace dlcbench::cuda
