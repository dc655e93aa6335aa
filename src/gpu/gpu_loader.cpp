#include "gpu/gpu_loader.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <regex>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/process.h"
#include "gpu/cuda_plugin_status.h"
#include "core/image_files.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

fs::path running_binary() {
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec);
}

// The directory a loaded library was mapped from.
fs::path library_file(void* handle) {
  struct link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name) return {};
  return map->l_name;
}

}  // namespace

bool gpu_plugin_built() {
#if DLCBENCH_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

std::string gpu_plugin_not_built() {
  if (gpu_plugin_built()) return "";
  return fmt::format("the CUDA plugin is not compiled in: {}", DLCBENCH_CUDA_NOT_BUILT);
}

std::string cuda_version_text(int version) { return fmt::format("{}.{}", version / 1000, version % 1000 / 10); }

fs::path gpu_plugin_path() {
  if (const char* given = getenv("DLCBENCH_CUDA_PLUGIN"); given && *given) return given;
  const fs::path beside = running_binary().parent_path() / kGpuPluginFile;
#ifdef DLCBENCH_CUDA_PLUGIN_BUILD_PATH
  // Test programs run from elsewhere in the build tree.
  if (!fs::exists(beside) && fs::exists(DLCBENCH_CUDA_PLUGIN_BUILD_PATH)) return DLCBENCH_CUDA_PLUGIN_BUILD_PATH;
#endif
  return beside;
}

const GpuPlugin& gpu_plugin() {
  static std::mutex mutex;
  static const GpuPlugin* loaded = nullptr;
  std::lock_guard lock(mutex);
  if (loaded) return *loaded;
  if (!gpu_plugin_built()) throw GpuError(gpu_plugin_not_built());
  const fs::path path = gpu_plugin_path();
  if (!fs::exists(path))
    throw GpuError(fmt::format("the CUDA plugin {} is missing: it is built beside dlcbench (target dlcbench_cuda); "
                               "rebuild with scripts/build.sh, or set DLCBENCH_CUDA_PLUGIN to its path",
                               path.string()));
  // Never unloaded: CUDA's own threads and atexit handlers live in it.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw GpuError(fmt::format("cannot load the CUDA plugin {}: {}: the CUDA toolkit's libraries (cuBLAS, cuDNN 9) "
                               "must be where they were at build time",
                               path.string(), dlerror()));
  using Entry = const GpuPlugin* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(handle, kGpuPluginEntry));
  if (!entry) throw GpuError(fmt::format("{} is not a dlcbench CUDA plugin (no {})", path.string(), kGpuPluginEntry));
  const GpuPlugin* plugin = entry();
  if (!plugin || plugin->abi != kGpuPluginAbi)
    throw GpuError(fmt::format("{} was built by another version of dlcbench: rebuild (scripts/build.sh)", path.string()));
  loaded = plugin;
  return *loaded;
}

std::string driver_version_problem(int driver_cuda_version, int runtime_cuda_version) {
  // CUDA's minor-version compatibility: a 13.x runtime runs on any driver of
  // CUDA 13 (the plugin holds machine code, so nothing needs a newer JIT).
  if (!driver_cuda_version || !runtime_cuda_version || driver_cuda_version / 1000 >= runtime_cuda_version / 1000)
    return "";
  return fmt::format("the NVIDIA driver supports CUDA {} and this build needs CUDA {}: update the driver (CUDA 13 "
                     "needs driver 580 or later), or build with an older CUDA toolkit",
                     cuda_version_text(driver_cuda_version), cuda_version_text(runtime_cuda_version));
}

nlohmann::json GpuDriverReport::to_json() const {
  nlohmann::json j = {{"plugin_built", plugin_built},
                      {"plugin", plugin_path},
                      {"plugin_present", plugin_present},
                      {"driver_library", driver_library},
                      {"device_nodes", device_nodes},
                      {"problem", problem}};
  if (driver_cuda_version) j["driver_cuda_version"] = cuda_version_text(driver_cuda_version);
  if (runtime_cuda_version) j["runtime_cuda_version"] = cuda_version_text(runtime_cuda_version);
  if (gpu_count >= 0) j["gpus"] = gpu_count;
  return j;
}

GpuDriverReport gpu_driver_report() {
  GpuDriverReport r;
  r.plugin_built = gpu_plugin_built();
  r.plugin_path = gpu_plugin_path().string();
  r.plugin_present = fs::exists(r.plugin_path);
#ifdef DLCBENCH_CUDA_RUNTIME_VERSION
  r.runtime_cuda_version = DLCBENCH_CUDA_RUNTIME_VERSION;
#endif
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/dev", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("nvidia", 0) == 0 && !entry.is_directory(ec)) r.device_nodes.push_back(entry.path().string());
  }
  std::sort(r.device_nodes.begin(), r.device_nodes.end());

  auto problem = [&](std::string text) {
    if (r.problem.empty()) r.problem = std::move(text);
  };
  if (!r.plugin_built) problem(gpu_plugin_not_built());
  else if (!r.plugin_present) problem(fmt::format("the CUDA plugin {} is missing: rebuild (scripts/build.sh)", r.plugin_path));

  // The driver's user-space library. dlopen does not start the driver; the
  // handle is kept, as CUDA itself keeps it.
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!driver) {
    problem("no NVIDIA driver: libcuda.so.1 is not found (install the NVIDIA driver; `nvidia-smi` should list the "
            "GPU)");
    return r;
  }
  r.driver_library = library_file(driver).string();
  using VersionFn = int (*)(int*);
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int*);
  if (auto version = reinterpret_cast<VersionFn>(dlsym(driver, "cuDriverGetVersion"))) version(&r.driver_cuda_version);
  if (auto too_old = driver_version_problem(r.driver_cuda_version, r.runtime_cuda_version); !too_old.empty())
    problem(std::move(too_old));
  if (std::none_of(r.device_nodes.begin(), r.device_nodes.end(), [](const std::string& n) { return n == "/dev/nvidiactl"; }))
    problem("no NVIDIA device nodes: /dev/nvidiactl is missing (is the nvidia kernel module loaded? `nvidia-smi`)");
  auto init = reinterpret_cast<InitFn>(dlsym(driver, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(driver, "cuDeviceGetCount"));
  if (init && count) {
    constexpr int kNoDevice = 100;  // CUDA_ERROR_NO_DEVICE
    const int status = init(0);
    if (status == 0) count(&r.gpu_count);
    else if (status == kNoDevice) r.gpu_count = 0;
    else problem(fmt::format("the NVIDIA driver failed to start (cuInit error {}): `nvidia-smi` tells more", status));
    if (r.gpu_count == 0)
      problem("no CUDA GPU is visible to the driver: check `nvidia-smi` and CUDA_VISIBLE_DEVICES");
  }
  return r;
}

std::string gpu_unavailable_reason() {
  static const std::string reason = gpu_driver_report().problem;
  return reason;
}

std::vector<ImageExtra> gpu_image_extras() {
  std::vector<ImageExtra> extras;
  const fs::path plugin = gpu_plugin_path();
  extras.push_back({plugin, false, fs::path(kImageWorkerPath).parent_path() / kGpuPluginFile});
  // Libraries cuDNN and cuBLAS open by name at run time: beside the cuDNN
  // library the plugin links.
  auto ldd = capture_output({"ldd", plugin.string()}, 60);
  std::vector<fs::path> folders;
  for (const auto& lib : parse_ldd_output(ldd.out)) {
    const std::string name = lib.filename().string();
    if (name.rfind("libcudnn.so", 0) == 0 || name.rfind("libcublas", 0) == 0 || name.rfind("libcudart", 0) == 0)
      folders.push_back(fs::canonical(lib).parent_path());
  }
  std::sort(folders.begin(), folders.end());
  folders.erase(std::unique(folders.begin(), folders.end()), folders.end());
  static const std::regex runtime_opened(R"(lib(cudnn_[a-z_]+\.so\.\d+|nvrtc(-builtins)?\.so\.[\d.]+|nvJitLink\.so\.\d+))");
  for (const auto& folder : folders) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec))
      if (std::regex_match(entry.path().filename().string(), runtime_opened))
        extras.push_back({entry.path(), true, {}});
  }
  return extras;
}

}  // namespace dlcbench
