// A user's command as a workload: its metric, its argument vector per
// environment, and what the probe reads of its processes.
#include <regex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/case_spec.h"
#include "core/errors.h"
#include "probe/process_tree.h"
#include "workloads/command_metric.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;

TEST(CommandMetric, ARegexReadsItsOneGroupAndSkipsOtherLines) {
  const MetricReader reader(parse_metric("step [0-9]+ ([0-9.]+) s", "s/step", false));
  EXPECT_EQ(reader.read("step 3 0.125 s"), 0.125);
  EXPECT_EQ(reader.read("epoch 1 step 12 1.5 s, loss 2.3"), 1.5);
  EXPECT_FALSE(reader.read("loss 2.3"));
  EXPECT_FALSE(reader.read("step 3 nan s"));
}

TEST(CommandMetric, AJsonFieldIsReadFromJsonLinesOnlyAndMayBeNested) {
  const MetricReader flat(parse_metric("json:step_time", "s/step", false));
  EXPECT_EQ(flat.read(R"({"step": 1, "step_time": 0.25})"), 0.25);
  EXPECT_EQ(flat.read(R"({"step_time": "0.5"})"), 0.5);
  EXPECT_FALSE(flat.read("step_time 0.25"));
  EXPECT_FALSE(flat.read(R"({"other": 1})"));
  EXPECT_FALSE(flat.read("{not json"));
  const MetricReader nested(parse_metric("json:timing.step", "s/step", false));
  EXPECT_EQ(nested.read(R"({"timing": {"step": 2}})"), 2.0);
}

TEST(CommandMetric, OnlyLinesHoldingThePatternsRequiredTextAreSearched) {
  // Issue 35 item 7: the required text lets a reader pass over the lines of
  // a command that prints millions without running the regular expression.
  EXPECT_EQ(required_literal("events per second: *([0-9.]+)"), "events per second:");
  EXPECT_EQ(required_literal("step [0-9]+ ([0-9.]+) s"), "step ");
  EXPECT_EQ(required_literal("took ([0-9.]+)\\.?s total"), "s total");  // the optional '.' splits it
  EXPECT_EQ(required_literal("loss\\.value=([0-9.]+)"), "loss.value=");
  EXPECT_EQ(required_literal("a|b ([0-9]+)"), "");       // either side may match
  EXPECT_EQ(required_literal("(?:x|y)z+ ([0-9]+)"), " ");  // the group and the repeated z are not required
  EXPECT_EQ(required_literal("[(]abc ([0-9]+)"), "abc ");
  EXPECT_EQ(required_literal("colou?r ([0-9]+)"), "colo");
  // Whatever it skips, it matches as the pattern does.
  for (const std::string pattern : {"events per second: *([0-9.]+)", "colou?r ([0-9]+)", "(?:x|y)z+ ([0-9]+)",
                                    "^([0-9]+)$", "[(]abc ([0-9]+)"}) {
    const MetricReader reader(parse_metric(pattern, "s", false));
    const std::regex plain(pattern);
    for (const std::string line : {"events per second: 3869.8", "events per second:12", "color 5", "colour 6",
                                   "xz 7", "yzzz 8", "123", "(abc 9", "nothing here"}) {
      std::smatch match;
      EXPECT_EQ(reader.reading(line).matched, std::regex_search(line, match, plain)) << pattern << " on " << line;
    }
  }
  const MetricReader json(parse_metric("json:timing.step", "s/step", false));
  EXPECT_TRUE(json.reading(R"({"timing": {"step": 0.5}})").matched);
  EXPECT_FALSE(json.reading(R"({"timing": {"other": 0.5}})").matched);
}

TEST(CommandMetric, APatternWithoutExactlyOneGroupOrThatDoesNotCompileIsRefused) {
  EXPECT_THROW(parse_metric("step [0-9.]+", "s", false), UsageError);
  EXPECT_THROW(parse_metric("(a)(b)", "s", false), UsageError);
  EXPECT_THROW(parse_metric("step ([0-9", "s", false), UsageError);
  EXPECT_THROW(parse_metric("json:", "s", false), UsageError);
  EXPECT_NO_THROW(parse_metric("(?:epoch|step) ([0-9.]+)", "s", false));
}

TEST(CommandSpec, PlaceholdersBecomeEachEnvironmentsPathsWithoutSplittingArguments) {
  CommandSpec c;
  c.name = "train";
  c.argv = {"python3", "train.py", "--data={data}/mnist", "{workdir}", "a b {data}"};
  EXPECT_EQ(command_argv_for(c, "/data", "/work"),
            (std::vector<std::string>{"python3", "train.py", "--data=/data/mnist", "/work", "a b /data"}));
}

TEST(CommandSpec, ACommandCaseSurvivesTheManifestAndIsNamedCmd) {
  CaseSpec spec;
  spec.workload = kCommandWorkload;
  spec.backend = "none";
  spec.batch = 0;
  spec.command.name = "train";
  spec.command.argv = {"python3", "train.py"};
  spec.command.env = {{"OMP_NUM_THREADS", "4"}};
  spec.command.metric = parse_metric("json:img_per_s", "images/s", true);
  EXPECT_EQ(spec.id(), "cmd:train");
  const nlohmann::json j = spec;
  const CaseSpec back = j.get<CaseSpec>();
  EXPECT_EQ(back.id(), "cmd:train");
  EXPECT_EQ(back.command.argv, spec.command.argv);
  // The variable's name survives, never its value (a resumed run reads it again).
  EXPECT_EQ(back.command.env, (std::vector<std::pair<std::string, std::string>>{{"OMP_NUM_THREADS", ""}}));
  EXPECT_EQ(j.dump().find("\"4\""), std::string::npos) << j.dump();
  EXPECT_EQ(back.command.metric.source, MetricSpec::Source::json_field);
  EXPECT_TRUE(back.command.metric.higher_is_better);
  EXPECT_EQ(back.command.metric.unit, "images/s");
}

TEST(ProbeProcessTree, TheParentIsReadPastACommandNameWithParentheses) {
  EXPECT_EQ(parent_of("1234 (python3) S 99 1234 1234 0"), 99);
  EXPECT_EQ(parent_of("77 (a (weird) name) R 5 77 77"), 5);
  EXPECT_FALSE(parent_of("garbage"));
  // minflt cminflt majflt cmajflt utime stime cutime cstime are fields 10 to 17.
  const auto usage = parse_stat_usage("42 (py thon) S 1 42 42 0 -1 4194560 100 20 3 1 250 50 30 10 20 0 3", 0.01);
  ASSERT_TRUE(usage);
  EXPECT_NEAR(usage->user_seconds, 2.8, 1e-12);
  EXPECT_NEAR(usage->system_seconds, 0.6, 1e-12);
  EXPECT_DOUBLE_EQ(usage->minor_faults, 120);
  EXPECT_DOUBLE_EQ(usage->major_faults, 4);
  EXPECT_FALSE(parse_stat_usage("42 (short) S 1 2 3", 0.01));
}

TEST(ProbeProcessTree, MappedSharedLibrariesAreListedOnceAndCachesAreNot) {
  const std::string maps =
      "7f00-7f01 r-xp 00000000 08:01 12 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
      "7f01-7f02 r--p 00001000 08:01 12 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
      "7f02-7f03 r--p 00000000 08:01 13 /etc/ld.so.cache\n"
      "7f03-7f04 r-xp 00000000 08:01 14 /opt/lib/libopenblasp-r0.3.21.so (deleted)\n"
      "7f04-7f05 rw-p 00000000 00:00 0 [heap]\n"
      "7f05-7f06 r-xp 00000000 08:01 15 /usr/bin/python3.11\n";
  EXPECT_EQ(mapped_libraries(maps), (std::set<std::string>{"/opt/lib/libopenblasp-r0.3.21.so",
                                                           "/usr/lib/x86_64-linux-gnu/libc.so.6"}));
}

TEST(ProbeProcessTree, TheBuildIdOfAnElfFileIsReadAndOtherFilesHaveNone) {
  // This test binary is linked with a build id by GCC's default.
  const auto own = elf_build_id("/proc/self/exe");
  ASSERT_TRUE(own);
  EXPECT_GE(own->size(), 16u);
  EXPECT_FALSE(elf_build_id("/proc/self/status"));
  EXPECT_FALSE(elf_build_id("/no/such/file"));
}

}  // namespace
}  // namespace dlcbench
