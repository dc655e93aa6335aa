#include "core/image_files.h"

#include <sstream>

#include <fmt/format.h>

#include "core/errors.h"

namespace fs = std::filesystem;

namespace dlcbench {

std::vector<fs::path> parse_ldd_output(const std::string& text) {
  std::vector<fs::path> libs;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    // "\tlibfoo.so.1 => /lib/x86_64-linux-gnu/libfoo.so.1 (0x...)"
    // "\t/lib64/ld-linux-x86-64.so.2 (0x...)"
    // "\tlinux-vdso.so.1 (0x...)"  (in the kernel, nothing to copy)
    // "\tlibbar.so.2 => not found"
    const auto arrow = line.find("=> ");
    std::string rest = arrow == std::string::npos ? line : line.substr(arrow + 3);
    const auto first = rest.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    rest = rest.substr(first);
    if (rest.rfind("not found", 0) == 0)
      throw EnvironmentUnavailable(fmt::format(
          "the dynamic loader cannot find a library dlcbench needs ({}): install it before building "
          "the container image",
          line.substr(line.find_first_not_of(" \t"))));
    if (rest.front() != '/') continue;
    libs.emplace_back(rest.substr(0, rest.find(' ')));
  }
  return libs;
}

std::vector<ImageExtra> optional_extras_in(const std::vector<fs::path>& folders, const std::string& extension) {
  std::vector<ImageExtra> extras;
  for (const auto& dir : folders) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.is_regular_file() && entry.path().extension() == extension) extras.push_back({entry.path(), true, {}});
  }
  return extras;
}

}  // namespace dlcbench
