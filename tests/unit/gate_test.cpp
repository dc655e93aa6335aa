// `dlcbench gate` (analysis/gate.h, report/gate_report.h): each comparison's
// headline slowdown against the margin, a stored reference, and what never
// passes (a comparison not like for like, a missing environment, none at
// all); the JUnit file CI systems read.
#include "analysis/gate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "core/case_spec.h"
#include "report/gate_report.h"

namespace dlcbench {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

// 12 paired rounds of fcn5: the host at 0.1 s per batch with 1% round
// noise both share, each environment at its ratio with `noise` of its own.
Analysis run_of(const std::map<std::string, double>& ratios, double noise = 0.01) {
  std::vector<std::string> envs = {"host"};
  for (const auto& [env, r] : ratios) envs.push_back(env);
  CaseSpec spec;
  spec.workload = "fcn5";
  spec.batch = 64;
  json m = {{"plan", {{"baseline", "host"}, {"environments", envs}, {"cases", {json(spec)}}}}};
  std::vector<json> r;
  const std::string id = spec.id();
  for (int round = 1; round <= 12; ++round) {
    const double shared = 1 + 0.01 * std::sin(round * 2.1);
    for (const auto& env : envs) {
      const double ratio = env == "host" ? 1.0 : ratios.at(env);
      const double own = 1 + noise * std::sin(round * 1.7 + static_cast<double>(env.size()));
      r.push_back({{"type", "sample"}, {"env", env}, {"round", round}, {"case", id}, {"phase", "measured"},
                   {"seconds", 0.1 * ratio * shared * own}});
      r.push_back({{"type", "launch"}, {"env", env}, {"round", round}, {"case", id}, {"ok", true}});
    }
  }
  return analyze(m, r);
}

const GateCheck& check_of(const GateResult& g, const std::string& env) {
  for (const auto& c : g.checks)
    if (c.env == env) return c;
  throw std::runtime_error("no check for " + env);
}

TEST(Gate, WithinTheMarginPassesBeyondItFailsAndOnItCannotTell) {
  const Analysis a = run_of({{"docker", 1.001}, {"docker:cpus=1", 2.0}, {"podman", 1.049}});
  const GateResult g = gate_run(a, Manifest{}, 0.05);
  EXPECT_EQ(check_of(g, "docker").outcome, GateOutcome::pass);
  EXPECT_EQ(check_of(g, "docker:cpus=1").outcome, GateOutcome::fail);
  const GateCheck& edge = check_of(g, "podman");
  EXPECT_EQ(edge.outcome, GateOutcome::cannot_tell);
  EXPECT_GT(edge.rounds_needed, 0u) << edge.why;
  EXPECT_THAT(edge.why, HasSubstr("straddles the margin"));
  EXPECT_FALSE(g.no_comparison);
  EXPECT_TRUE(g.missing.empty());
  const auto lines = gate_lines(g);
  EXPECT_THAT(lines.back(), HasSubstr("1 passed, 1 failed, 1 cannot tell, 0 not compared"));
  bool said = false;
  for (const auto& l : lines) said = said || l.rfind("FAIL         fcn5/torch/cpu/b64  docker:cpus=1 vs host: overhead +100", 0) == 0;
  EXPECT_TRUE(said);
  // The interval that straddles 5% lies within 10%: a wider margin passes it.
  EXPECT_EQ(check_of(gate_run(a, Manifest{}, 0.10), "podman").outcome, GateOutcome::pass);
}

TEST(Gate, NothingPassesWithoutALikeForLikeComparisonOfEveryEnvironment) {
  Analysis a = run_of({{"docker", 1.0}});
  a.cases[0].overheads[0].compared = false;
  EXPECT_EQ(gate_run(a, Manifest{}, 0.05).checks[0].outcome, GateOutcome::not_compared);
  Manifest m;
  m.environments["podman"] = {{"unavailable", "podman is not installed"}};
  const GateResult missing = gate_run(run_of({{"docker", 1.0}}), m, 0.05);
  ASSERT_EQ(missing.missing.size(), 1u);
  EXPECT_THAT(missing.missing[0], HasSubstr("podman was not measured: podman is not installed"));
  Analysis none = run_of({{"docker", 1.0}});
  none.cases[0].overheads.clear();
  EXPECT_TRUE(gate_run(none, Manifest{}, 0.05).no_comparison);
}

TEST(Gate, AgainstAStoredReferenceTheGrowthOfTheOverheadIsJudged) {
  const Analysis a = run_of({{"docker", 1.30}});
  Headline same = a.cases[0].overheads[0].headline;  // a reference of the same overhead
  Headline lower = same;
  lower.time_ratio /= 1.3;
  lower.time_low /= 1.3;
  lower.time_high /= 1.3;
  const std::string key = gate_key("fcn5/torch/cpu/b64", "docker");
  // The same overhead: within 5%; against 0.1% the two runs' intervals
  // together cannot tell.
  EXPECT_EQ(gate_run(a, Manifest{}, 0.05, {{key, {"ref", same}}}).checks[0].outcome, GateOutcome::pass);
  EXPECT_EQ(gate_run(a, Manifest{}, 0.001, {{key, {"ref", same}}}).checks[0].outcome, GateOutcome::cannot_tell);
  const GateResult grew = gate_run(a, Manifest{}, 0.05, {{key, {"ref", lower}}});
  EXPECT_EQ(grew.checks[0].outcome, GateOutcome::fail);
  EXPECT_NEAR(grew.checks[0].ratio, 1.3, 1e-9);
  EXPECT_THAT(gate_lines(grew)[0], HasSubstr("of run ref's"));
}

TEST(Gate, TheJUnitFileHasACaseForEachCheckAndEscapesItsText) {
  Manifest m;
  m.environments["crun<1>"] = {{"unavailable", "cgroup \"v2\" & more"}};
  const GateResult g = gate_run(run_of({{"docker", 1.0}, {"docker:cpus=1", 2.0}}), m, 0.05);
  const std::string xml = gate_junit(g, "run-1");
  EXPECT_THAT(xml, HasSubstr("<testsuites name=\"dlcbench gate\" tests=\"3\" failures=\"1\" errors=\"1\">"));
  EXPECT_THAT(xml, HasSubstr("<testcase classname=\"fcn5/torch/cpu/b64\" name=\"docker vs host\"></testcase>"));
  EXPECT_THAT(xml, HasSubstr("<failure type=\"slower\""));
  EXPECT_THAT(xml, HasSubstr("crun&lt;1&gt; was not measured: cgroup &quot;v2&quot; &amp; more"));
}

}  // namespace
}  // namespace dlcbench
