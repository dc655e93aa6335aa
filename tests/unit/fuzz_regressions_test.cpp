// Replays every input kept in fuzz/regressions/<target>/ (crashes the
// fuzzers found, and hand-made hostile files) through the same target
// functions the fuzzers run: each must end in success or a clean DataError /
// UsageError, never another exception, a broken invariant or a crash (the
// sanitizer build of .ci/run would catch the memory errors).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../../fuzz/fuzz_targets.h"
#include "analysis/analysis.h"
#include "core/errors.h"
#include "core/results_file.h"
#include "data/mnist.h"

namespace dlcbench {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct FuzzTarget {
  const char* name;  // as in fuzz/<name>_fuzzer.cpp and fuzz/regressions/<name>/
  void (*run)(fuzz::Input);
};
const FuzzTarget kFuzzTargets[] = {
    {"mnist_idx", fuzz::mnist_idx},         {"cifar10", fuzz::cifar10},   {"ptb", fuzz::ptb},
    {"results_jsonl", fuzz::results_jsonl}, {"manifest", fuzz::manifest}, {"environment_options", fuzz::environment_options},
};

const fs::path kRegressions = fs::path(DLCBENCH_SOURCE_DIR) / "fuzz" / "regressions";

std::vector<std::uint8_t> read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<fs::path> inputs_of(const std::string& target) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kRegressions / target))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(FuzzRegressions, EveryKeptInputEndsCleanly) {
  std::size_t replayed = 0;
  for (const auto& target : kFuzzTargets) {
    const auto files = inputs_of(target.name);
    // Each parser keeps hostile inputs, so the mechanism is always exercised.
    EXPECT_GE(files.size(), 3u) << "fuzz/regressions/" << target.name;
    for (const auto& file : files) {
      SCOPED_TRACE(file.string());
      const auto bytes = read_bytes(file);
      EXPECT_NO_THROW(target.run(bytes));
      ++replayed;
    }
    EXPECT_NO_THROW(target.run({}));  // the empty input
  }
  std::cout << "replayed " << replayed << " inputs from " << kRegressions.string() << "\n";
}

TEST(FuzzRegressions, IdxDimensionsThatWrapPast64BitsAreRefused) {
  // 2^31 x 2^31 x 4 wraps to 0 in 64 bits: a 16-byte file used to pass as
  // an array of that shape with no values.
  const auto bytes = read_bytes(kRegressions / "mnist_idx" / "handmade-dimensions-wrap-past-2-pow-64");
  try {
    parse_idx_ubyte(bytes, 3, "images");
    FAIL() << "accepted";
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), HasSubstr("images: the header's dimensions (2147483648x2147483648x4)"));
  }
}

TEST(FuzzRegressions, ManifestFieldsOfTheWrongTypeAreNamed) {
  EXPECT_THAT([] { analyze(parse_json_text(R"({"plan":{"environments":["host",1],"cases":[]}})", "m"), {}); },
              ::testing::ThrowsMessage<DataError>(HasSubstr("plan.environments[1] is 1, not an environment label")));
  EXPECT_THAT([] { analyze(parse_json_text(R"({"schema_version":1e300,"plan":{"environments":[],"cases":[]}})", "m"), {}); },
              ::testing::ThrowsMessage<DataError>(HasSubstr("schema_version")));
}

TEST(FuzzRegressions, ResultRecordsOfTheWrongTypeAreLeftOutWithANote) {
  const auto manifest = parse_json_text(
      R"({"plan":{"environments":["host"],"cases":[{"id":"c","workload":"fcn5"}]}})", "m");
  const ResultsContent content = parse_results_text(
      "{\"type\":\"sample\",\"case\":\"c\",\"env\":\"host\",\"round\":1e300,\"seconds\":1}\n"
      "{\"type\":\"sample\",\"case\":\"c\",\"env\":\"host\",\"round\":1}\n"
      "{\"type\":\"sample\",\"case\":\"c\",\"env\":\"host\",\"round\":1,\"seconds\":2}\n"
      "{\"type\":\"launch\",\"case\":\"c\",\"env\":\"host\",\"round\":1,\"ok\":true}\n");
  const Analysis a = analyze(manifest, content.records, content.line_numbers);
  ASSERT_EQ(a.cases.size(), 1u);
  EXPECT_EQ(a.cases[0].envs[0].run_values, std::vector<double>{2.0});
  EXPECT_THAT(::testing::PrintToString(a.notes),
              HasSubstr("2 record(s) with a field missing or of the wrong type (first at line 1: record.round is 1e+300"));
}

TEST(FuzzRegressions, JsonNestedDeeperThanDlcbenchWritesIsRefusedBeforeAnythingWalksIt) {
  // Parsed whole, 200,000 levels overflowed the stack of the first recursive
  // walk (the dump that shows a wrong value in an error message), in every
  // build; Clang's ASan build overflowed at 1,802 (handmade-deeply-nested).
  const auto nested = [](std::size_t depth, const std::string& inner) {
    return std::string(depth, '[') + inner + std::string(depth, ']');
  };
  const std::string deep = "{\"plan\":" + nested(200000, "1") + "}";
  EXPECT_THAT([&] { parse_json_text(deep, "manifest.json"); },
              ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("manifest.json nests deeper than 64 levels")));
  EXPECT_NO_THROW(fuzz::manifest(std::vector<std::uint8_t>(deep.begin(), deep.end())));
  // A results line nested so deep is a bad line; the line beside it is read.
  const ResultsContent content = parse_results_text("{\"a\":" + nested(200000, "") + "}\n{\"type\":\"sample\"}\n");
  EXPECT_EQ(content.bad_lines, std::vector<std::size_t>{1});
  EXPECT_EQ(content.line_numbers, std::vector<std::size_t>{2});
  // What dlcbench writes is far from the limit: 60 levels still read.
  EXPECT_EQ(parse_json_text(nested(60, "7"), "m").flatten().begin()->get<int>(), 7);
}

}  // namespace
}  // namespace dlcbench
