// The programs built beside the dlcbench binary, found by their place next
// to it (in build/, in an install and in every image alike).
#pragma once

#include <filesystem>

namespace dlcbench {

// dlcbench-worker: runs one case (the back ends and micro-benchmarks); the
// program `run` launches on the host and in every container.
std::filesystem::path worker_program_beside(const std::filesystem::path& self_exe);
// dlcbench-noop: the startup workload's trivial static program.
std::filesystem::path noop_program_beside(const std::filesystem::path& self_exe);
// dlcbench-probe: the static program that runs a user's command.
std::filesystem::path probe_program_beside(const std::filesystem::path& self_exe);

}  // namespace dlcbench
