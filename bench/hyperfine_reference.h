// hyperfine -N as the reference a dlcbench figure is held against, in the
// benchmarks that compare them (startup_vs_hyperfine, command_vs_hyperfine).
// hyperfine 1.15 (Debian's) takes its command as one string and splits it
// into arguments itself (shell-words rules, no shell runs it with -N): each
// argument is quoted for that split, never given to a shell.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace dlcbench::bench {

// Runs the program to its end; throws with its stderr when it fails.
void run_or_throw(const std::vector<std::string>& argv);

// One argument as hyperfine's shell-words split reads it back unchanged.
std::string quoted_for_hyperfine(const std::string& argument);

// `hyperfine -N` on the command, `runs` times after `warmup`: each run's
// wall time in seconds, as hyperfine's JSON export (written to json_file) has them.
std::vector<double> hyperfine_times(const std::vector<std::string>& command, int runs,
                                    const std::filesystem::path& json_file, int warmup = 3);

}  // namespace dlcbench::bench
