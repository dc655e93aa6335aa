// The plugin's one exported symbol: the table of what it provides.
#include "backends/cuda/gpu_plugin.h"

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/gpu_micro.h"

namespace {

const dlcbench::GpuPlugin kPlugin = {
    dlcbench::kGpuPluginAbi,
    &dlcbench::cuda::build_info,
    &dlcbench::cuda::probe_device,
    &dlcbench::cuda::make_cuda_backend,
    &dlcbench::cuda::make_gpu_gemm,
    &dlcbench::cuda::make_gpu_copy,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const dlcbench::GpuPlugin* dlcbench_gpu_plugin() { return &kPlugin; }
