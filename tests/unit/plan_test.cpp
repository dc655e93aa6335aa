#include "orchestrator/plan.h"
#include "orchestrator/scheduler.h"

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "runtimes/environment.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;

using testing::error_of;

TEST(Plan, SplitsLists) {
  EXPECT_EQ(split_list("a,b,,c"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split_list("").empty());
}

TEST(Plan, ExpandsBatchSweepsAndUsesTheWorkloadDefault) {
  PlanRequest r;
  r.workloads = {"fcn5"};
  r.backends = {"torch"};
  auto cases = expand_cases(r);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].batch, 64);
  EXPECT_EQ(cases[0].id(), "fcn5/torch/cpu/b64");
  r.batches = {64, 128, 256};
  EXPECT_EQ(expand_cases(r).size(), 3u);
}

TEST(Plan, UnknownNamesListTheValidOnes) {
  PlanRequest r;
  r.workloads = {"vgg"};
  r.backends = {"torch"};
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("unknown workload 'vgg': valid workloads are fcn5"));
  r.workloads = {"fcn5"};
  r.backends = {"caffe"};
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("valid back ends are torch"));
  r.backends = {"torch"};
  r.device = "tpu";
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("does not support device 'tpu'"));
}

TEST(Plan, RejectsNonsenseCounts) {
  PlanRequest r;
  r.workloads = {"fcn5"};
  r.backends = {"torch"};
  r.batches = {0};
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("batch size 0"));
  r.batches = {};
  r.iters = 0;
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("--iters"));
}

TEST(Plan, RoundOrdersArePermutationsReproducibleFromTheSeed) {
  auto a = round_orders(3, 50, 123), b = round_orders(3, 50, 123), c = round_orders(3, 50, 124);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  bool some_differ = false;
  for (const auto& order : a) {
    auto sorted = order;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, (std::vector<std::size_t>{0, 1, 2}));
    some_differ |= order != a.front();
  }
  EXPECT_TRUE(some_differ);
}

TEST(Plan, StartupIsOneCaseWithItsOwnCountsWhateverTheBackEndsAndBatches) {
  PlanRequest r;
  r.workloads = {"startup", "fcn5"};
  r.backends = {"torch"};
  r.batches = {8, 16};
  r.starts = 7;
  auto cases = expand_cases(r);
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].id(), "startup");
  EXPECT_EQ(cases[0].iters, 7);
  EXPECT_EQ(cases[0].warmup, 1);
  EXPECT_EQ(cases[1].id(), "fcn5/torch/cpu/b8");
  r.starts = 0;
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("--starts must be at least 1"));
}

TEST(UntilCv, MetOnlyWhenEveryCaseAndEnvironmentIsAtOrBelowTheTarget) {
  double worst = 0;
  // CV of {1, 1.02}: stddev 0.01414 / mean 1.01 = 1.40%.
  EXPECT_TRUE(cv_target_met({{1.0, 1.02}, {2.0, 2.0}}, 0.02, &worst));
  EXPECT_NEAR(worst, 0.014142 / 1.01, 1e-5);
  // CV of {1, 1.2}: 0.1414 / 1.1 = 12.9%.
  EXPECT_FALSE(cv_target_met({{1.0, 1.02}, {1.0, 1.2}}, 0.02, &worst));
  EXPECT_NEAR(worst, 0.141421 / 1.1, 1e-5);
  // One value has no CV yet: not met.
  EXPECT_FALSE(cv_target_met({{1.0}}, 0.5, nullptr));
}

TEST(Plan, ACaseListedTwiceIsAnError) {
  PlanRequest r;
  r.workloads = {"fcn5"};
  r.backends = {"torch"};
  r.batches = {8, 8};
  EXPECT_THAT(error_of<UsageError>([&] { expand_cases(r); }), HasSubstr("case fcn5/torch/cpu/b8 is listed twice"));
}

}  // namespace
}  // namespace dlcbench
