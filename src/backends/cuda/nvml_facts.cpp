#include "backends/cuda/nvml_facts.h"

#include <dlfcn.h>

#include <fmt/format.h>

namespace dlcbench::cuda {
namespace {

// NVML's C interface, declared here rather than from nvml.h, which the
// toolkit's Python wheels do not ship: these entry points and their
// arguments have been stable since NVML 1 (enums pass as int).
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kClockSm = 1, kClockMemory = 2;  // nvmlClockType_t

class Nvml {
 public:
  Nvml() {
    library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library_) {
      const char* why = dlerror();
      problem_ = fmt::format("libnvidia-ml.so.1 (the driver's NVML) cannot be opened: {}", why ? why : "not found");
      return;
    }
    init_ = symbol<NvmlReturn (*)()>("nvmlInit_v2");
    shutdown_ = symbol<NvmlReturn (*)()>("nvmlShutdown");
    error_string_ = symbol<const char* (*)(NvmlReturn)>("nvmlErrorString");
    if (!init_ || !shutdown_) {
      problem_ = "libnvidia-ml.so.1 has no nvmlInit_v2 or nvmlShutdown";
      return;
    }
    if (const NvmlReturn r = init_(); r != kNvmlSuccess) {
      problem_ = fmt::format("nvmlInit failed: {}", error(r));
      return;
    }
    initialised_ = true;
  }
  ~Nvml() {
    if (initialised_) shutdown_();
    if (library_) dlclose(library_);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  const std::string& problem() const { return problem_; }

  template <typename Function>
  Function symbol(const char* name) const {
    return library_ ? reinterpret_cast<Function>(dlsym(library_, name)) : nullptr;
  }

  std::string error(NvmlReturn r) const {
    const char* text = error_string_ ? error_string_(r) : nullptr;
    return text ? fmt::format("{} (NVML error {})", text, r) : fmt::format("NVML error {}", r);
  }

 private:
  void* library_ = nullptr;
  NvmlReturn (*init_)() = nullptr;
  NvmlReturn (*shutdown_)() = nullptr;
  const char* (*error_string_)(NvmlReturn) = nullptr;
  bool initialised_ = false;
  std::string problem_;
};

}  // namespace

nlohmann::json nvml_device_facts(const std::string& pci_bus_id) {
  const Nvml nvml;
  if (!nvml.problem().empty()) return {{"unavailable", nvml.problem()}};
  NvmlDevice device = nullptr;
  const auto by_bus = nvml.symbol<NvmlReturn (*)(const char*, NvmlDevice*)>("nvmlDeviceGetHandleByPciBusId_v2");
  if (!by_bus) return {{"unavailable", "libnvidia-ml.so.1 has no nvmlDeviceGetHandleByPciBusId_v2"}};
  if (const NvmlReturn r = by_bus(pci_bus_id.c_str(), &device); r != kNvmlSuccess)
    return {{"unavailable", fmt::format("NVML does not know the GPU at {}: {}", pci_bus_id, nvml.error(r))}};

  nlohmann::json facts = nlohmann::json::object();
  nlohmann::json unavailable = nlohmann::json::object();
  // One unsigned fact, `function(device, arguments..., &value)`, or why not.
  auto read = [&](const char* key, const char* function, auto... arguments) {
    const auto f = nvml.symbol<NvmlReturn (*)(NvmlDevice, decltype(arguments)..., unsigned*)>(function);
    if (!f) {
      unavailable[key] = fmt::format("libnvidia-ml.so.1 has no {}", function);
      return;
    }
    unsigned value = 0;
    if (const NvmlReturn r = f(device, arguments..., &value); r == kNvmlSuccess) facts[key] = value;
    else unavailable[key] = fmt::format("{}: {}", function, nvml.error(r));
  };
  read("persistence_mode", "nvmlDeviceGetPersistenceMode");  // nvmlEnableState_t: 0 or 1
  read("sm_clock_mhz", "nvmlDeviceGetClockInfo", kClockSm);
  read("memory_clock_mhz", "nvmlDeviceGetClockInfo", kClockMemory);
  read("pcie_generation", "nvmlDeviceGetCurrPcieLinkGeneration");
  read("pcie_width", "nvmlDeviceGetCurrPcieLinkWidth");
  read("pcie_generation_max", "nvmlDeviceGetMaxPcieLinkGeneration");
  read("pcie_width_max", "nvmlDeviceGetMaxPcieLinkWidth");
  if (facts.contains("persistence_mode")) facts["persistence_mode"] = facts["persistence_mode"].get<unsigned>() != 0;
  if (!unavailable.empty()) facts["unavailable"] = unavailable;
  return facts;
}

}  // namespace dlcbench::cuda
