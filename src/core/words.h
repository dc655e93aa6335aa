// Numbers in sentences: "1 run", "2 runs", "1 launch", "3 launches".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace dlcbench {

inline std::string counted(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace dlcbench
