#include "core/blas_check.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

namespace dlcbench {

std::string CpuVectorIsa::best() const {
  if (avx512f && avx512bw && avx512vl && avx512dq) return "AVX-512";
  if (avx2 && fma) return "AVX2";
  if (avx) return "AVX";
  return "SSE";
}

CpuVectorIsa read_cpu_isa(const std::filesystem::path& cpuinfo) {
  CpuVectorIsa isa;
  std::ifstream in(cpuinfo);
  std::string line;
  bool flags_seen = false;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "vendor_id" && isa.vendor.empty()) isa.vendor = value;
    if (key == "cpu MHz" && isa.mhz == 0) {
      try {
        isa.mhz = std::stod(value);
      } catch (const std::exception&) {
      }
    }
    if (key == "flags" && !flags_seen) {  // the first CPU's; they are alike
      flags_seen = true;
      std::istringstream words(value);
      std::string flag;
      while (words >> flag) {
        if (flag == "avx") isa.avx = true;
        else if (flag == "avx2") isa.avx2 = true;
        else if (flag == "fma") isa.fma = true;
        else if (flag == "avx512f") isa.avx512f = true;
        else if (flag == "avx512bw") isa.avx512bw = true;
        else if (flag == "avx512vl") isa.avx512vl = true;
        else if (flag == "avx512dq") isa.avx512dq = true;
        else if (flag == "avx512_bf16") isa.avx512_bf16 = true;
        else if (flag == "hypervisor") isa.hypervisor = true;
      }
    }
  }
  return isa;
}

std::string openblas_core_isa(const std::string& core) {
  // OpenBLAS 0.3.21's x86-64 DYNAMIC_ARCH cores (driver/others/dynamic.c)
  // and the widest vector instructions their kernels use.
  static const std::map<std::string, std::string> table = {
      {"SkylakeX", "AVX-512"}, {"Cooperlake", "AVX-512"}, {"SapphireRapids", "AVX-512"},
      {"Haswell", "AVX2"},     {"Zen", "AVX2"},
      {"Sandybridge", "AVX"},  {"Bulldozer", "AVX"},      {"Piledriver", "AVX"},
      {"Steamroller", "AVX"},  {"Excavator", "AVX"},
      {"Prescott", "SSE"},     {"Core2", "SSE"},          {"Penryn", "SSE"},
      {"Dunnington", "SSE"},   {"Nehalem", "SSE"},        {"Opteron", "SSE"},
      {"Opteron_SSE3", "SSE"}, {"Barcelona", "SSE"},      {"Atom", "SSE"},
      {"Nano", "SSE"},         {"Bobcat", "SSE"},         {"Katmai", "SSE"},
      {"Coppermine", "SSE"},   {"Northwood", "SSE"},      {"Banias", "SSE"},
      {"Athlon", "SSE"},
  };
  for (const auto& [name, isa] : table)
    if (name.size() == core.size() &&
        std::equal(name.begin(), name.end(), core.begin(), [](char a, char b) { return std::tolower(a) == std::tolower(b); }))
      return isa;
  return "";
}

namespace {

int rank(const std::string& isa) {
  if (isa == "AVX-512") return 3;
  if (isa == "AVX2") return 2;
  if (isa == "AVX") return 1;
  return 0;
}

std::string core_for(const CpuVectorIsa& cpu) {
  const std::string best = cpu.best();
  if (best == "AVX-512") return cpu.avx512_bf16 ? "Cooperlake" : "SkylakeX";
  if (best == "AVX2") return cpu.vendor == "AuthenticAMD" || cpu.vendor == "HygonGenuine" ? "Zen" : "Haswell";
  if (best == "AVX") return "Sandybridge";
  return "";
}

}  // namespace

BlasKernelVerdict check_blas_kernel(const std::string& core, const CpuVectorIsa& cpu, const std::string& coretype_env) {
  BlasKernelVerdict v;
  const std::string cpu_best = cpu.best();
  if (!coretype_env.empty()) {
    const std::string forced = openblas_core_isa(coretype_env);
    if (!forced.empty() && rank(forced) > rank(cpu_best)) {
      v.ok = false;
      v.would_crash = true;
      v.suggested_core = core_for(cpu);
      v.message = fmt::format("OPENBLAS_CORETYPE={} asks for {} kernels, which this CPU ({}) cannot run: every "
                              "BLAS call would die with SIGILL; {}",
                              coretype_env, forced, cpu_best,
                              v.suggested_core.empty() ? "unset OPENBLAS_CORETYPE"
                                                       : "set OPENBLAS_CORETYPE=" + v.suggested_core + " or unset it");
      return v;
    }
  }
  const std::string used = openblas_core_isa(core);
  if (used.empty()) {
    v.message = fmt::format("OpenBLAS kernel {} is not in dlcbench's table; cannot tell whether it uses this CPU's {}",
                            core, cpu_best);
    return v;
  }
  if (rank(used) < rank(cpu_best)) {
    v.ok = false;
    v.suggested_core = core_for(cpu);
    v.message = fmt::format("OpenBLAS picked the {} kernel ({}), but this CPU has {}: GEMM runs several times "
                            "slower than it could; set OPENBLAS_CORETYPE={} before `dlcbench run` (it passes it "
                            "to every environment)",
                            core, used, cpu_best, v.suggested_core);
    return v;
  }
  v.message = fmt::format("OpenBLAS kernel {} uses {}, the widest this CPU has", core, used);
  return v;
}

int sp_flops_per_cycle(const CpuVectorIsa& cpu) {
  const std::string best = cpu.best();
  // Lanes x 2 (multiply and add) x 2 FMA units.
  if (best == "AVX-512") return 16 * 2 * 2;
  if (best == "AVX2") return 8 * 2 * 2;
  if (best == "AVX") return 8 * 2;  // separate add and multiply units
  return 4 * 2;
}

}  // namespace dlcbench
