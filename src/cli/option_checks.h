// What every command accepts, in one place: the ranges of numeric options
// and the validators that refuse anything else with a message naming the
// option and the fix (CLI11 prefixes the option's name). A refused value is
// bad input: exit status 2, nothing run, nothing written.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "core/limits.h"

namespace dlcbench::cli {

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

}  // namespace dlcbench::cli
