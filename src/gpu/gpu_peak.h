// Estimated peak arithmetic rate of an NVIDIA GPU, for "what fraction of the
// card does this reach". Dense (no sparsity) floating-point operations per
// clock per streaming multiprocessor, from NVIDIA's architecture white
// papers (A100: 19.5 / 156 / 312 TFLOP/s FP32 / TF32 / BF16 at 108 SMs and
// 1410 MHz; H100 SXM: 67 / 494 / 989 at 132 SMs). Times multiprocessors and
// the maximum SM clock the device reports; NVIDIA's own tensor figures for
// Hopper use a lower clock (1830 MHz), so this estimate is the higher one.
#pragma once

#include <optional>
#include <string>

namespace dlcbench {

// precision: "fp32" (CUDA cores), "tf32", "bf16", "fp16" (tensor cores).
// nullopt for an architecture the table does not know.
inline std::optional<double> flops_per_clock_per_sm(int major, int minor, const std::string& precision) {
  double fp32 = 0, tf32 = 0, half = 0;
  if (major == 8 && minor == 0) fp32 = 128, tf32 = 1024, half = 2048;        // A100
  else if (major == 9 && minor == 0) fp32 = 256, tf32 = 2048, half = 4096;   // H100, H200
  else return std::nullopt;
  if (precision == "fp32") return fp32;
  if (precision == "tf32") return tf32;
  if (precision == "bf16" || precision == "fp16") return half;
  return std::nullopt;
}

inline std::optional<double> estimated_peak_flops(int major, int minor, int multiprocessors, double sm_clock_hz,
                                                  const std::string& precision) {
  const auto per_clock = flops_per_clock_per_sm(major, minor, precision);
  if (!per_clock) return std::nullopt;
  return *per_clock * multiprocessors * sm_clock_hz;
}

}  // namespace dlcbench
