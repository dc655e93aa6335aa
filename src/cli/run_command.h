// What `run`, `explain` and `calibrate` share: their options
// (run_options.h), and one way to run or resume them.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/run_options.h"

namespace dlcbench::cli {

// Runs `o`, or resumes the run in o.resume, and sets `exit_code`; bad input
// becomes a message naming the fix and exit code 2.
void run_or_resume(const RunOptions& o, const CLI::App* cmd, int& exit_code);

// The options of `run` that calibrate and explain take too. They choose
// their environments themselves and refuse --envs with the reason
// (cli/run_options.cpp), so their --help leaves it out; a `-- CMD` after
// them is taken, so that the refusal says what to do instead of CLI11's
// "argument was not expected".
void add_options_of_a_chosen_run(CLI::App* cmd, RunOptions& o);

}  // namespace dlcbench::cli
