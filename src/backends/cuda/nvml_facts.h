// What the driver's management library (NVML, libnvidia-ml.so.1) says of a
// GPU that the CUDA runtime does not: its clocks now, persistence mode and
// PCIe link. Opened at run time, since it comes with the driver, not the
// toolkit (a container gets it with the driver's other libraries).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace dlcbench::cuda {

// For the GPU at `pci_bus_id` (as cudaDeviceGetPCIBusId writes it):
// persistence_mode (bool), sm_clock_mhz and memory_clock_mhz (now),
// pcie_generation and pcie_width (now), pcie_generation_max and
// pcie_width_max (the most this GPU and this machine's slot allow). A fact
// NVML cannot give is left out and named under "unavailable" with why; if
// NVML cannot be opened at all, that is the only key.
nlohmann::json nvml_device_facts(const std::string& pci_bus_id);

}  // namespace dlcbench::cuda
