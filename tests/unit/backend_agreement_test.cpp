// Numerical agreement between back ends: from LibTorch's initial weights
// (moved through the shared parameter layout) and the same batches, every
// other back end must give LibTorch's loss after 1 step and after 10 steps,
// and LibTorch's weights after one step, for each network at a small size.
//
// Tolerances, stated once for every back end and network, in float32:
//   loss after step 1:   relative 1e-5 (the same forward pass; only the
//                        order of the sums differs)
//   weights after step 1: |difference| <= 1e-5 + 1e-3 |value| (one gradient,
//                        one update)
//   loss after step 10:  relative 1e-3 (nine updates compound the rounding)
// A back end outside these is wrong, not the tolerance.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "agreement_support.h"
#include "backends/backend.h"
#include "backends/parameters.h"
#include "core/errors.h"
#include "workloads/registry.h"

namespace dlcbench {
namespace {

using agreement::data_for;
using agreement::kBatch;
using agreement::small_networks;

constexpr agreement::Tolerances kTolerances{
    .first_loss = 1e-5, .tenth_loss = 1e-3, .weight_absolute = 1e-5, .weight_relative = 1e-3};

// The back ends to compare with LibTorch; one not compiled in is skipped
// with the message that says how to build it.
class Agreement : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(Agreement, LossAndWeightsMatchLibTorch) {
  const auto& [backend_name, network] = GetParam();
  std::unique_ptr<Backend> other;
  try {
    other = make_backend(backend_name, 1);
  } catch (const UsageError& e) {
    GTEST_SKIP() << e.what();
  }
  agreement::expect_agreement_with_reference(*other, backend_name, small_networks()[static_cast<std::size_t>(network)],
                                            kTolerances);
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<std::string, int>>& param) {
  return std::get<0>(param.param) + "_" + small_networks()[static_cast<std::size_t>(std::get<1>(param.param))].name;
}

INSTANTIATE_TEST_SUITE_P(BackEnds, Agreement,
                         ::testing::Combine(::testing::Values("reference", "onednn"), ::testing::Range(0, 4)),
                         case_name);

TEST(Parameters, LayoutMatchesLibTorchAndTheInitialisersKeepTheirShapes) {
  for (const auto& w : workloads()) {
    auto session = make_backend("torch", 1)->prepare(w, data_for(w), [&] {
      CaseSpec c;
      c.batch = kBatch;
      c.workload = w.name;
      return c;
    }());
    const ParameterSet from_torch = session->parameters();
    EXPECT_NO_THROW(check_parameters(from_torch, w.model)) << w.name;
    EXPECT_EQ(parameter_count(from_torch), w.model.parameter_count()) << w.name;
    const ParameterSet ours = initial_parameters(w.model, 42);
    EXPECT_NO_THROW(check_parameters(ours, w.model)) << w.name;
    EXPECT_EQ(initial_parameters(w.model, 42)[0].values, ours[0].values) << w.name << ": a seed gives one set";
  }
}

}  // namespace
}  // namespace dlcbench
