// The fuzz targets: each feeds one input to a parser of dlcbench the way the
// tool does, and lets through only what a user may see: a DataError or
// UsageError with a message (or, for the run's JSON files, the reader's
// std::runtime_error). Anything else escapes: another exception, a broken
// invariant (FuzzInvariantBroken) or a sanitizer report is a bug.
//
// Each <target>_fuzzer.cpp defines its function and, unless
// DLCBENCH_FUZZ_AS_LIBRARY is defined, libFuzzer's entry point. The unit
// test tests/unit/fuzz_regressions_test.cpp compiles them as a library and
// replays fuzz/regressions/<target>/ through the same functions.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dlcbench::fuzz {

using Input = std::span<const std::uint8_t>;

void mnist_idx(Input input);
void cifar10(Input input);
void ptb(Input input);
void results_jsonl(Input input);
void manifest(Input input);
void environment_options(Input input);

// A parser returned something its contract rules out.
struct FuzzInvariantBroken : std::logic_error {
  using std::logic_error::logic_error;
};

inline void expect(bool condition, const char* what) {
  if (!condition) throw FuzzInvariantBroken(what);
}

inline std::string_view as_text(Input input) {
  return {reinterpret_cast<const char*>(input.data()), input.size()};
}

// The input cut at NUL bytes into `parts` texts (the last takes the rest);
// missing ones are empty. Lets one input hold several files or fields.
inline std::vector<std::string> split_at_nul(Input input, std::size_t parts) {
  std::vector<std::string> out(parts);
  std::string_view text = as_text(input);
  for (std::size_t i = 0; i + 1 < parts; ++i) {
    const auto nul = text.find('\0');
    if (nul == std::string_view::npos) {
      out[i] = std::string(text);
      return out;
    }
    out[i] = std::string(text.substr(0, nul));
    text.remove_prefix(nul + 1);
  }
  out[parts - 1] = std::string(text);
  return out;
}

}  // namespace dlcbench::fuzz

// libFuzzer's entry point for one target function.
#ifndef DLCBENCH_FUZZ_AS_LIBRARY
#define DLCBENCH_FUZZ_ENTRY(function)                                                 \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
    function(dlcbench::fuzz::Input(data, size));                                       \
    return 0;                                                                          \
  }
#else
#define DLCBENCH_FUZZ_ENTRY(function)
#endif
