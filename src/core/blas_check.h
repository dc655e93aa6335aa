// Does the BLAS use the vector instructions this CPU has? OpenBLAS picks a
// kernel by CPU model; on a model it does not know it falls back to an older
// kernel (about 5x slower SGEMM on an AVX-512 Xeon), and OPENBLAS_CORETYPE set
// to a kernel the CPU cannot run kills every process with SIGILL. `doctor`
// says which case this machine is in and what to set.
#pragma once

#include <filesystem>
#include <string>

namespace dlcbench {

struct CpuVectorIsa {
  std::string vendor;  // "GenuineIntel", "AuthenticAMD", ...
  bool avx = false, avx2 = false, fma = false;
  bool avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false, avx512_bf16 = false;
  bool hypervisor = false;  // the flag a CPU shows inside a virtual machine
  double mhz = 0;  // as /proc/cpuinfo reports it (the current clock)
  // The widest level: "AVX-512", "AVX2", "AVX", "SSE".
  std::string best() const;
};
CpuVectorIsa read_cpu_isa(const std::filesystem::path& cpuinfo = "/proc/cpuinfo");

// The vector level an OpenBLAS 0.3 core name's kernels use ("SkylakeX" ->
// "AVX-512", "Zen" -> "AVX2"); "" for a name this table does not know.
std::string openblas_core_isa(const std::string& core);

struct BlasKernelVerdict {
  bool ok = true;
  bool would_crash = false;    // OPENBLAS_CORETYPE names a kernel this CPU cannot run
  std::string message;         // one sentence, for doctor and the run's warning
  std::string suggested_core;  // the OPENBLAS_CORETYPE to set; "" if none is needed
};
// `core`: the kernel OpenBLAS picked (openblas_get_corename); `coretype_env`:
// OPENBLAS_CORETYPE as set, or "" when unset.
BlasKernelVerdict check_blas_kernel(const std::string& core, const CpuVectorIsa& cpu, const std::string& coretype_env);

// Single-precision flops per cycle per core for the vector level, assuming
// two FMA units (an upper bound: some CPUs have one).
int sp_flops_per_cycle(const CpuVectorIsa& cpu);

}  // namespace dlcbench
