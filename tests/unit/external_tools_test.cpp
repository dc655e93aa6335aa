// The external tools as workloads: parsing what dd, ioping, fio and hpcc
// print (from output in their real formats, and from failures), and each
// tool run for real on a small problem where it is installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/errors.h"
#include "core/process.h"
#include "runtimes/image_builder.h"
#include "test_files.h"
#include "workloads/micro/external_tools.h"
#include "workloads/micro/hpl.h"
#include "workloads/micro/io_file.h"
#include "workloads/micro/micro_workloads.h"
#include "workloads/micro/tool_benchmarks.h"
#include "workloads/micro/tool_output.h"

namespace dlcbench {
namespace {

using testing::error_of;
using testing::TempDir;

TEST(ToolOutput, DdSummaryGivesBytesAndSeconds) {
  const auto f = parse_dd_output(
      "64+0 records in\n64+0 records out\n67108864 bytes (67 MB, 64 MiB) copied, 0.172653 s, 389 MB/s\n");
  EXPECT_EQ(f.bytes, 67108864);
  EXPECT_DOUBLE_EQ(f.seconds, 0.172653);
  // status=progress lines come first; the last summary counts.
  const auto g = parse_dd_output("1048576 bytes (1.0 MB, 1.0 MiB) copied, 1 s, 1.0 MB/s\r"
                                 "2+0 records in\n2+0 records out\n2097152 bytes (2.1 MB, 2.0 MiB) copied, 2.5 s, 839 kB/s\n");
  EXPECT_EQ(g.bytes, 2097152);
  EXPECT_DOUBLE_EQ(g.seconds, 2.5);
  EXPECT_NE(error_of<ToolOutputError>([] { parse_dd_output("dd: failed to open 'x': No such file or directory\n"); })
                .find("dd printed no transfer summary"),
            std::string::npos);
}

TEST(ToolOutput, IopingBatchLineInNanoseconds) {
  const auto f = parse_ioping_batch("49 2097908 23357 95668638 31790 42814 104736 15503 50 2294103\n");
  EXPECT_EQ(f.requests, 49);
  EXPECT_DOUBLE_EQ(f.min_ns, 31790);
  EXPECT_DOUBLE_EQ(f.avg_ns, 42814);
  EXPECT_DOUBLE_EQ(f.max_ns, 104736);
  EXPECT_DOUBLE_EQ(f.mdev_ns, 15503);
  EXPECT_NE(error_of<ToolOutputError>([] { parse_ioping_batch("ioping: request failed: Invalid argument\n"); })
                .find("no statistics line"),
            std::string::npos);
  EXPECT_NE(error_of<ToolOutputError>([] { parse_ioping_batch("1 2 3\n"); }).find("ioping"), std::string::npos);
}

TEST(ToolOutput, FioJsonFirstJobOfTheDirection) {
  const std::string report = R"(note: both iodepth >= 1 and synchronous I/O engine are selected
{"fio version": "fio-3.33", "jobs": [{"jobname": "dlcbench", "error": 0,
  "read": {"io_bytes": 33554432, "bw_bytes": 97612345, "runtime": 344, "clat_ns": {"mean": 41000.5}},
  "write": {"io_bytes": 0, "bw_bytes": 0, "runtime": 0}}]})";
  const auto f = parse_fio_json(report, "read");
  EXPECT_EQ(f.io_bytes, 33554432);
  EXPECT_DOUBLE_EQ(f.bw_bytes, 97612345);
  EXPECT_DOUBLE_EQ(f.mean_latency_ns, 41000.5);
  EXPECT_NE(error_of<ToolOutputError>([&] { parse_fio_json(report, "write"); }).find("reports no transfer"),
            std::string::npos);
  EXPECT_NE(error_of<ToolOutputError>([] { parse_fio_json(R"({"jobs": [{"error": 1, "read": {}}]})", "read"); })
                .find("failed with error 1"),
            std::string::npos);
  EXPECT_NE(error_of<ToolOutputError>([] { parse_fio_json("fio: unrecognized option '--x'", "read"); })
                .find("no JSON report"),
            std::string::npos);
}

TEST(ToolOutput, HpccSummaryOfTheLastRunAndItsChecks) {
  const std::string two_runs =
      "Begin of Summary section.\nHPL_Tflops=0.001\nSuccess=1\nEnd of Summary section.\n"
      "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=        0.0037728 ...... PASSED\n"
      "Begin of Summary section.\nHPL_Tflops=0.0292596\nHPL_N=4096\nSuccess=1\nEnd of Summary section.\n";
  const auto summary = parse_hpcc_summary(two_runs);
  EXPECT_DOUBLE_EQ(hpcc_value(summary, "HPL_Tflops"), 0.0292596);
  EXPECT_EQ(hpcc_failure(two_runs, summary), "");
  EXPECT_NE(error_of<ToolOutputError>([&] { hpcc_value(summary, "SingleSTREAM_Triad"); }).find("no SingleSTREAM_Triad"),
            std::string::npos);

  const std::string failed = "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=  1.0e+05 ...... FAILED\n"
                             "Begin of Summary section.\nSuccess=0\nEnd of Summary section.\n";
  EXPECT_NE(hpcc_failure(failed, parse_hpcc_summary(failed)).find("residual check failed"), std::string::npos);
  const std::string unsuccessful = "Begin of Summary section.\nSuccess=0\nEnd of Summary section.\n";
  EXPECT_NE(hpcc_failure(unsuccessful, parse_hpcc_summary(unsuccessful)).find("Success=0"), std::string::npos);
  EXPECT_NE(error_of<ToolOutputError>([] { parse_hpcc_summary("HPL ERROR: Memory allocation failed\n"); })
                .find("no summary section"),
            std::string::npos);
}

TEST(ToolOutput, HpccInputHasTheProblemWhereHplReadsIt) {
  const std::string text = hpcc_input(4096, 192);
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 36u);
  EXPECT_EQ(lines[5].substr(0, lines[5].find(' ')), "4096");  // line 6: Ns
  EXPECT_EQ(lines[7].substr(0, lines[7].find(' ')), "192");   // line 8: NBs
  EXPECT_EQ(lines[10].substr(0, lines[10].find(' ')), "1");   // line 11: Ps
  EXPECT_EQ(lines[11].substr(0, lines[11].find(' ')), "1");   // line 12: Qs
  EXPECT_NE(lines[31].find("line (no. 32) is ignored"), std::string::npos);
}

TEST(ExternalTools, MissingToolIsNamedWithItsPackage) {
  const char* saved = std::getenv("PATH");
  const std::string path = saved ? saved : "";
  TempDir empty;
  setenv("PATH", empty.path().c_str(), 1);
  const bool missing = external_tool_missing("fio/randread:block=4k");
  const std::string message = error_of<UsageError>([] {
    MicroPlanSettings settings;
    expand_micro_cases(parse_micro_request("ioping"), settings);
  });
  setenv("PATH", path.c_str(), 1);
  EXPECT_TRUE(missing);
  EXPECT_NE(message.find("ioping is not installed"), std::string::npos) << message;
  EXPECT_NE(message.find("apt-get install ioping"), std::string::npos) << message;
  EXPECT_FALSE(external_tool_missing("gemm/sgemm"));
}

TEST(ExternalTools, HpccStreamFigureIsInGigabytesPerSecond) {
  const MicroWorkloadInfo* hpcc = find_micro_workload("hpcc");
  ASSERT_NE(hpcc, nullptr);
  EXPECT_TRUE(hpcc->external);
  EXPECT_EQ(hpcc->unit("hpl"), "GFLOP/s");
  EXPECT_EQ(hpcc->unit("stream"), "GB/s");
  EXPECT_FALSE(find_micro_workload("gemm")->external);
}

TEST(ExternalTools, ImageFilesHoldTheProgramAndHpccItsMpiComponents) {
  for (const char* name : {"fio", "hpcc"})
    if (!tool_program(*find_external_tool(name))) GTEST_SKIP() << name << " is not installed: apt-get install " << name;
  const auto files = tool_image_files({"fio", "gemm"});
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path.filename(), "fio");
  EXPECT_FALSE(files[0].optional);
  const auto hpcc = tool_image_files({"hpcc"});
  ASSERT_GT(hpcc.size(), 10u);
  int components = 0;
  for (const auto& f : hpcc)
    if (f.optional && f.path.filename().string().rfind("mca_", 0) == 0) ++components;
  EXPECT_GT(components, 10);
}

MicroParams tool_params(const TempDir& dir, const std::string& variant, std::int64_t size, std::int64_t block,
                        bool direct) {
  MicroParams p;
  p.variant = variant;
  p.size = size;
  p.block = block;
  p.direct = direct;
  p.path = dir.path().string();
  return p;
}

#define REQUIRE_TOOL(name)                                                                          \
  if (!tool_program(*find_external_tool(name))) GTEST_SKIP() << name " is not installed: apt-get install " \
                                                             << find_external_tool(name)->package

TEST(ToolBenchmarks, DdWritesAndReadsTheWholeFileAndLeavesNothing) {
  REQUIRE_TOOL("dd");
  TempDir dir;
  for (const char* variant : {"write", "read"})
    for (bool direct : {true, false}) {
      auto dd = make_dd_tool(tool_params(dir, variant, 4 << 20, 1 << 20, direct));
      EXPECT_EQ(dd->describe()["tool"], "dd");
      EXPECT_FALSE(dd->describe()["fs_type"].get<std::string>().empty());
      const MicroResult r = dd->run();
      EXPECT_EQ(r.work, 4 << 20) << variant;
      EXPECT_GT(r.seconds, 0) << variant;
      EXPECT_LT(r.seconds, r.detail["tool_wall_seconds"].get<double>() + 1e-3) << variant;
    }
  EXPECT_TRUE(scratch_files_in(dir.path()).empty());
}

TEST(ToolBenchmarks, IopingReportsAMeanLatency) {
  REQUIRE_TOOL("ioping");
  TempDir dir;
  auto ioping = make_ioping_tool(tool_params(dir, "", 1 << 20, 4096, true));
  const MicroResult r = ioping->run();
  EXPECT_EQ(r.detail["requests"], kIopingRequests);
  EXPECT_GT(r.seconds, 0);
  EXPECT_LE(r.detail["min_ms"].get<double>(), r.seconds * 1e3);
  EXPECT_GE(r.detail["max_ms"].get<double>(), r.seconds * 1e3);
}

TEST(ToolBenchmarks, FioMovesTheWholeFileInEachVariant) {
  REQUIRE_TOOL("fio");
  TempDir dir;
  for (const char* variant : {"write", "read", "randread"}) {
    auto fio = make_fio_tool(tool_params(dir, variant, 2 << 20, 64 << 10, true));
    const MicroResult r = fio->run();
    EXPECT_EQ(r.work, 2 << 20) << variant;
    EXPECT_GT(r.seconds, 0) << variant;
  }
  auto buffered = make_fio_tool(tool_params(dir, "write", 2 << 20, 64 << 10, false));
  EXPECT_EQ(buffered->run().work, 2 << 20);
  EXPECT_TRUE(scratch_files_in(dir.path()).empty());
}

TEST(ToolBenchmarks, HpccGivesEachFigureWithItsWork) {
  REQUIRE_TOOL("hpcc");
  MicroParams p;
  p.size = 256;
  p.variant = "hpl";
  const MicroResult hpl = make_hpcc_tool(p)->run();
  EXPECT_DOUBLE_EQ(hpl.work, hpl_flops(256));
  // The figure is hpcc's own: work over time gives its HPL_Tflops back.
  EXPECT_NEAR(hpl.work / hpl.seconds / 1e9, hpl.detail["hpcc_gflops"].get<double>(),
              1e-3 * hpl.detail["hpcc_gflops"].get<double>());
  p.variant = "stream";
  const MicroResult stream = make_hpcc_tool(p)->run();
  EXPECT_DOUBLE_EQ(stream.work, 24 * stream.detail["vector_size"].get<double>());
  p.variant = "triad";
  EXPECT_NE(error_of<UsageError>([&] { make_hpcc_tool(p); }).find("choose hpl, dgemm or stream"), std::string::npos);
}

}  // namespace
}  // namespace dlcbench
