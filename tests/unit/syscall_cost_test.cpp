// The system-call cost family (issue 39): every variant makes its calls and
// stops cleanly (the futex and pipe partners included), the table runs them
// all in one operation, and a name it does not know is refused with the list.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "workloads/micro/micro_workloads.h"
#include "workloads/micro/syscall_cost.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;

TEST(SyscallCost, EveryVariantMakesItsCallsAndReportsThem) {
  for (const auto& variant : syscall_variants()) {
    MicroParams p;
    p.variant = variant;
    auto benchmark = make_syscall_cost(p);
    EXPECT_EQ(benchmark->describe()["variant"], variant);
    for (int i = 0; i < 2; ++i) {
      const MicroResult r = benchmark->run();
      EXPECT_GT(r.seconds, 0.0) << variant;
      EXPECT_EQ(r.work, kSyscallCallsPerOperation) << variant;
      if (variant == kSyscallTable) {
        // Each kind's cost per call, and together they are the operation.
        const auto& ns = r.detail.at("ns_per_call");
        ASSERT_EQ(ns.size(), syscall_kinds().size());
        double sum = 0;
        for (const auto& kind : syscall_kinds()) {
          EXPECT_GT(ns.at(kind).get<double>(), 0.0) << kind;
          sum += ns.at(kind).get<double>() * kSyscallCallsPerOperation / static_cast<double>(syscall_kinds().size());
        }
        EXPECT_NEAR(sum * 1e-9, r.seconds, 0.01 * r.seconds);
      }
    }
  }
}

TEST(SyscallCost, TheFamilyIsOneCaseAndEachKindOneOfItsOwnWithNanosecondsPerCall) {
  const auto cases = expand_micro_cases(parse_micro_request("syscall"), MicroPlanSettings{});
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].id(), "syscall/table/n11000");
  EXPECT_EQ(expand_micro_cases(parse_micro_request("syscall/null"), MicroPlanSettings{})[0].id(),
            "syscall/null/n11000");
  const MicroWorkloadInfo& info = *find_micro_workload("syscall");
  // An operation of 11,000 calls that took 1.1 ms: 100 ns per call.
  EXPECT_DOUBLE_EQ(micro_figure(info, kSyscallCallsPerOperation, 1.1e-3), 100.0);
  EXPECT_EQ(expand_micro_cases(parse_micro_request("syscall/futex"), MicroPlanSettings{}).size(), 1u);
  MicroParams bad;
  bad.variant = "fork";
  try {
    make_syscall_cost(bad);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("valid variants are table, null, clock"));
  }
}

}  // namespace
}  // namespace dlcbench
