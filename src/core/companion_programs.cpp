#include "core/companion_programs.h"

namespace dlcbench {

std::filesystem::path worker_program_beside(const std::filesystem::path& self_exe) {
  return self_exe.parent_path() / "dlcbench-worker";
}

std::filesystem::path noop_program_beside(const std::filesystem::path& self_exe) {
  return self_exe.parent_path() / "dlcbench-noop";
}

std::filesystem::path probe_program_beside(const std::filesystem::path& self_exe) {
  return self_exe.parent_path() / "dlcbench-probe";
}

}  // namespace dlcbench
