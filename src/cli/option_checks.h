// What every command accepts, in one place: the ranges of numeric options
// and the validators that refuse anything else with a message naming the
// option and the fix (CLI11 prefixes the option's name). A refused value is
// bad input: exit status 2, nothing run, nothing written.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace dlcbench::cli {

// Rounds (--runs, --max-runs): more than this is days of launches for any case.
inline constexpr long kMaxRuns = 100000;
// Batches or operations per launch.
inline constexpr long kMaxIters = 1000000;
// Compute threads. Above the CPU count is accepted with a warning (a user may
// want to measure oversubscription); above this it is a typing error.
inline constexpr long kMaxThreads = 1024;
// Mini-batch size: the data sets hold at most 60,000 training examples, so a
// larger batch only repeats them (and needs gigabytes per step).
inline constexpr long kMaxBatch = 65536;
// Timed starts per round of the startup workload.
inline constexpr long kMaxStarts = 10000;
// A micro-benchmark's size (a matrix order, elements, or a file's bytes): 1 TiB.
inline constexpr long kMaxMicroSize = 1L << 40;
// --case-timeout: a week.
inline constexpr double kMaxCaseTimeoutSeconds = 7 * 24 * 3600.0;

// A whole number from `low` to `high`: "--runs: 0 is not allowed: give a
// whole number from 1 to 100000".
CLI::Validator whole_number_in(long low, long high);

// A list of whole numbers ("64,128"), each from `low` to `high`, and at least one.
CLI::Validator whole_numbers_in(long low, long high);

// A number of seconds above 0 and at most `high`.
CLI::Validator seconds_up_to(double high);

// Any text but the empty one: "--envs: an empty value names nothing: give
// {what}". Left out, such an option means its default; given empty, it is
// almost always a shell variable that was not set.
CLI::Validator not_empty(const std::string& what);

// A check that throws UsageError for a bad value (a name parser, say), as a
// validator: its message follows the option's name.
CLI::Validator checked_by(std::function<void(const std::string&)> check);

// Runs a command's body and gives the exit code it returns; a UsageError
// thrown is bad input (2), any other error a failure (1), each printed as
// "error: ...".
int exit_code_of(const std::function<int()>& body);

// CPUs this process may run on (its affinity), at least 1.
int usable_cpu_count();

}  // namespace dlcbench::cli
