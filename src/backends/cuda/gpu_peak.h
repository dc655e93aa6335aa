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

// The bandwidth limit of a PCIe link in one direction, in bytes per second:
// the generation's transfers per second per lane, times the lanes, less the
// line code (8b/10b up to generation 2, 128b/130b from 3 on). Packet headers
// take a few percent more, so a copy reaches about 90% of it at best.
// nullopt for a generation the table does not know.
inline std::optional<double> pcie_bytes_per_second(int generation, int lanes) {
  static constexpr double kGigatransfers[] = {0, 2.5, 5, 8, 16, 32, 64};
  if (generation < 1 || generation > 6 || lanes < 1) return std::nullopt;
  const double code = generation <= 2 ? 8.0 / 10.0 : 128.0 / 130.0;
  return kGigatransfers[generation] * 1e9 * lanes * code / 8.0;
}

// The device memory's bandwidth limit, reads and writes together: two
// transfers per memory clock (HBM and GDDR alike, at the clock CUDA reports)
// over the bus width.
inline double memory_bytes_per_second(double memory_clock_hz, int bus_bits) {
  return 2.0 * memory_clock_hz * bus_bits / 8.0;
}

}  // namespace dlcbench
