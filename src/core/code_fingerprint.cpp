// The fingerprint's code identity: this binary, the libraries it mapped,
// the BLAS it loaded. Apart from the rest of the fingerprint (fingerprint.cpp)
// because dlcbench-probe, a static program, records only the surroundings.
#include <dlfcn.h>
#include <gnu/libc-version.h>

#include <fstream>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "core/fingerprint.h"
#include "core/sha.h"

namespace fs = std::filesystem;

namespace dlcbench {

nlohmann::json blas_info() {
  using CharFn = char* (*)();
  using IntFn = int (*)();
  nlohmann::json j = nlohmann::json::object();
  if (auto core = reinterpret_cast<CharFn>(dlsym(RTLD_DEFAULT, "openblas_get_corename"))) {
    j["library"] = "OpenBLAS";
    j["core"] = core();
    if (auto config = reinterpret_cast<CharFn>(dlsym(RTLD_DEFAULT, "openblas_get_config")))
      j["config"] = config();
    if (auto threads = reinterpret_cast<IntFn>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads")))
      j["threads"] = threads();
    if (auto parallel = reinterpret_cast<IntFn>(dlsym(RTLD_DEFAULT, "openblas_get_parallel"))) {
      static const char* kinds[] = {"sequential", "pthreads", "openmp"};
      int p = parallel();
      j["parallel"] = (p >= 0 && p <= 2) ? kinds[p] : "unknown";
    }
  } else {
    j["library"] = "unknown (not OpenBLAS)";
  }
  return j;
}

bool is_gpu_driver_library(const std::string& file_name) {
  static const std::regex driver_file(R"(lib(cuda|cudadebugger|nvidia-[A-Za-z0-9_-]+)\.so\.[0-9][0-9.]*)");
  return std::regex_match(file_name, driver_file);
}

nlohmann::json loaded_libraries(const fs::path& maps_file) {
  std::set<std::string> entries;
  std::ifstream maps(maps_file);
  std::string line;
  while (std::getline(maps, line)) {
    // "7f..-7f.. r-xp 00000000 08:01 1234   /usr/lib/x86_64-linux-gnu/libc.so.6"
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const fs::path path = line.substr(slash);
    std::string name = path.filename().string();
    if (name.find(".so") == std::string::npos) continue;
    if (is_gpu_driver_library(name)) name.erase(name.find(".so") + 3);
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    entries.insert(fmt::format("{} {}", name, ec ? 0 : size));
  }
  std::string joined;
  for (const auto& e : entries) joined += e + "\n";
  return {{"count", entries.size()}, {"digest", string_digest(joined, "sha256")}, {"files", entries}};
}

std::string self_executable_sha256() { return file_digest("/proc/self/exe", "sha256"); }

nlohmann::json environment_fingerprint(const FingerprintPaths& paths) {
  nlohmann::json j = surroundings_fingerprint(paths);
  j["binary_sha256"] = self_executable_sha256();
  j["dlcbench_version"] = DLCBENCH_VERSION;
  j["libc"] = gnu_get_libc_version();
  j["libraries"] = loaded_libraries();
  j["blas"] = blas_info();
  return j;
}

}  // namespace dlcbench
