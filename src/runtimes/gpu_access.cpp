#include "runtimes/gpu_access.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/fingerprint.h"
#include "core/process.h"

namespace fs = std::filesystem;

namespace dlcbench {

nlohmann::json GpuPassthrough::to_json() const {
  nlohmann::json d = nlohmann::json::array();
  for (const auto& n : devices) d.push_back(fmt::format("{} ({}:{})", n.path, n.major, n.minor));
  return {{"devices", d}, {"libraries", libraries}, {"library_dir", library_dir}};
}

std::vector<std::string> driver_library_names(const std::vector<std::string>& names) {
  std::vector<std::string> found;
  for (const auto& n : names)
    if (is_gpu_driver_library(n)) found.push_back(n);
  std::sort(found.begin(), found.end());
  return found;
}

bool is_gpu_device_node(const std::string& name) {
  static const std::regex node(R"(nvidia([0-9]+|ctl|-uvm|-uvm-tools|-modeset))");
  return std::regex_match(name, node);
}

GpuPassthrough host_gpu_passthrough() {
  GpuPassthrough p;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/dev", ec)) {
    if (!is_gpu_device_node(entry.path().filename().string())) continue;
    struct stat st {};
    if (stat(entry.path().c_str(), &st) != 0 || !S_ISCHR(st.st_mode)) continue;
    p.devices.push_back({entry.path().string(), major(st.st_rdev), minor(st.st_rdev)});
  }
  std::sort(p.devices.begin(), p.devices.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  if (std::none_of(p.devices.begin(), p.devices.end(), [](const auto& d) { return d.path == "/dev/nvidiactl"; }))
    throw EnvironmentUnavailable("no NVIDIA GPU to pass into containers: /dev/nvidiactl is missing (is the driver "
                                 "loaded? `nvidia-smi`)");
  // The driver's folder is where the loader finds libcuda.so.1 here.
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  struct link_map* map = nullptr;
  if (!driver || dlinfo(driver, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name)
    throw EnvironmentUnavailable("no NVIDIA driver library to pass into containers: libcuda.so.1 is not found "
                                 "(install the driver, or add its folder to the loader's path)");
  p.library_dir = fs::path(map->l_name).parent_path().string();
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(p.library_dir, ec)) names.push_back(entry.path().filename().string());
  // A link left dangling by a driver upgrade would fail the container's start.
  for (const auto& name : driver_library_names(names))
    if (const fs::path file = fs::path(p.library_dir) / name; fs::exists(file, ec)) p.libraries.push_back(file.string());
  return p;
}

// dockerd registers --gpus only where it finds this hook; nvidia-ctk alone
// (nvidia-container-toolkit-base) does not make --gpus work.
bool docker_gpu_toolkit_present() { return find_program("nvidia-container-runtime-hook").has_value(); }

bool podman_gpu_cdi_present() {
  for (const char* folder : {"/etc/cdi", "/var/run/cdi"}) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      std::ifstream in(entry.path());
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (text.find("nvidia.com/gpu") != std::string::npos) return true;
    }
  }
  return false;
}

std::string gpu_method(const std::string& environment, const std::string& requested, bool gpu_cases) {
  if (requested == "none" || (!gpu_cases && requested == "auto")) return "none";
  // The packaged gVisor has no GPU proxy: its sandbox cannot use device nodes.
  if (environment == "runsc") return "none";
  if (requested == "nodes") return "nodes";
  const bool engine = environment == "docker" || environment == "podman";
  const bool toolkit = environment == "docker" ? docker_gpu_toolkit_present()
                       : environment == "podman" ? podman_gpu_cdi_present()
                                                 : false;
  if (requested == "all") {
    if (!engine) return "nodes";  // runc and crun: the bundle lists the devices itself
    if (!toolkit)
      throw EnvironmentUnavailable(fmt::format(
          "{}:gpus=all needs the NVIDIA container toolkit ({}), which is not installed: install it, or use "
          "{}:gpus=nodes to let dlcbench pass the GPU device nodes and driver libraries itself",
          environment,
          environment == "docker" ? "nvidia-container-runtime-hook on the PATH"
                                  : "a CDI specification made by `nvidia-ctk cdi generate`",
          environment));
    return "toolkit";
  }
  return toolkit ? "toolkit" : "nodes";
}

}  // namespace dlcbench
