// `dlcbench explain`: the variants planned for each runtime (one feature
// changed at a time, or a clear error for one that cannot be), their shares
// of an overhead with intervals, and what bundles and reports make of them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include <fmt/format.h>

#include "analysis/analysis.h"
#include "core/errors.h"
#include "orchestrator/ablation.h"
#include "report/report_model.h"
#include "model/container_options.h"
#include "runtimes/oci_bundle.h"

namespace dlcbench {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using json = nlohmann::json;

std::vector<std::string> labels_of(const AblationPlan& plan) {
  std::vector<std::string> labels;
  for (const auto& v : plan.variants) labels.push_back(v.label);
  return labels;
}

std::string usage_error_of(const std::string& env, const std::vector<std::string>& features,
                           const AblationContext& context = {}) {
  try {
    plan_ablation(parse_environment_request(env), features, context);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(AblationPlan, DockerGetsOneFeatureChangedPerVariant) {
  const auto plan = plan_ablation(parse_environment_request("docker"), {}, {});
  EXPECT_EQ(plan.of, "docker");
  EXPECT_THAT(labels_of(plan), ElementsAre("docker:seccomp=unconfined", "docker:network=host", "docker:ipc=host",
                                           "docker:pid=host"));
  EXPECT_THAT(plan.variants[0].change, HasSubstr("seccomp unconfined"));
  // Features that do not apply are left out, each with its reason.
  ASSERT_FALSE(plan.left_out.empty());
  EXPECT_THAT(plan.left_out[0], HasSubstr("limits: docker sets no cgroup limit"));
}

TEST(AblationPlan, LimitsGoAllTogetherAndOtherOptionsStay) {
  const auto plan = plan_ablation(parse_environment_request("docker:cpus=1,memory=4g"), {"limits", "network"}, {});
  EXPECT_THAT(labels_of(plan), ElementsAre("docker", "docker:cpus=1,memory=4g,network=host"));
  EXPECT_THAT(plan.variants[0].change, HasSubstr("cpus=1, memory=4g taken away"));
}

TEST(AblationPlan, BundlesWithoutAFilterGetTheEnginesDefaultProfile) {
  const auto plan = plan_ablation(parse_environment_request("runc"), {"seccomp"}, {});
  EXPECT_THAT(labels_of(plan), ElementsAre("runc:seccomp=default"));
  // And a filter asked for is taken away again.
  EXPECT_THAT(labels_of(plan_ablation(parse_environment_request("crun:seccomp=default"), {"seccomp"}, {})),
              ElementsAre("crun"));
  // A network shared already goes back to a namespace of its own.
  EXPECT_THAT(labels_of(plan_ablation(parse_environment_request("runc:network=host"), {"network"}, {})),
              ElementsAre("runc"));
}

TEST(AblationPlan, GvisorGetsItsOwnOptionsAndNoNamespaceItIgnores) {
  AblationContext context;
  context.writes_rootfs = true;
  const auto plan = plan_ablation(parse_environment_request("runsc"), {}, context);
  EXPECT_THAT(labels_of(plan), ElementsAre("runsc:seccomp=default", "runsc:network=host", "runsc:scratch=tmpfs",
                                           "runsc:file-access=shared", "runsc:overlay=root"));
  // KVM where it can start; left out with why where it hangs.
  EXPECT_THAT(fmt::format("{}", fmt::join(plan.left_out, "\n")), HasSubstr("platform: gVisor's KVM platform"));
  context.kvm_usable = true;
  EXPECT_THAT(labels_of(plan_ablation(parse_environment_request("runsc"), {"platform"}, context)),
              ElementsAre("runsc:platform=kvm"));
}

TEST(AblationPlan, ScratchMovesOnlyWhenAWorkloadWritesThere) {
  AblationContext writes;
  writes.writes_rootfs = true;
  EXPECT_THAT(labels_of(plan_ablation(parse_environment_request("docker"), {"scratch"}, writes)),
              ElementsAre("docker:scratch=volume"));
  EXPECT_THAT(labels_of(plan_ablation(parse_environment_request("runc"), {"scratch"}, writes)),
              ElementsAre("runc:scratch=tmpfs"));
  EXPECT_THAT(usage_error_of("docker", {"scratch"}), HasSubstr("no workload of this run writes"));
}

TEST(AblationPlan, BadRequestsNameTheVariantOrListTheValidFeatures) {
  EXPECT_THAT(usage_error_of("docker", {"seccomp", "cgroups"}),
              HasSubstr("unknown feature 'cgroups': valid features are seccomp, network, ipc, pid, limits, scratch, "
                        "platform, file-access, overlay"));
  EXPECT_THAT(usage_error_of("runsc", {"pid"}),
              HasSubstr("--features pid: runsc has no such variant: gVisor's kernel keeps its own PID namespace"));
  EXPECT_THAT(usage_error_of("runc", {"overlay"}), HasSubstr("only gVisor (runsc) has an overlay"));
  EXPECT_THAT(usage_error_of("docker", {"limits"}), HasSubstr("docker sets no cgroup limit"));
  EXPECT_THAT(usage_error_of("host", {}), HasSubstr("the host has no isolation to take away"));
}

TEST(AblationPlan, TheManifestRecordsItAndReadsItBack) {
  const auto plan = plan_ablation(parse_environment_request("podman:cpus=1"), {}, {});
  const json j = plan;
  EXPECT_EQ(j["variants"][0]["feature"], "seccomp");
  const auto back = j.get<AblationPlan>();
  EXPECT_EQ(labels_of(back), labels_of(plan));
  EXPECT_EQ(back.variants.back().feature, AblationFeature::limits);
  EXPECT_EQ(back.left_out, plan.left_out);
  json bad = j;
  bad["variants"][0]["feature"] = "magic";
  EXPECT_THROW(bad.get<AblationPlan>(), DataError);
}

TEST(AblationPlan, UpToThreeFeaturesRunEveryCombination) {
  const auto plan = plan_ablation(parse_environment_request("docker:cpus=1"), {"seccomp", "limits", "ipc"}, {});
  EXPECT_TRUE(plan.factorial);
  EXPECT_THAT(labels_of(plan), ElementsAre("docker:cpus=1,seccomp=unconfined", "docker", "docker:cpus=1,ipc=host"));
  // Every combination of two or more, the features' own changes composed.
  std::vector<std::string> cells;
  for (const auto& c : plan.combinations) cells.push_back(ablation_features_name(c.features) + " " + c.label);
  EXPECT_THAT(cells, ElementsAre("seccomp+limits docker:seccomp=unconfined", "seccomp+ipc docker:cpus=1,ipc=host,seccomp=unconfined",
                                 "limits+ipc docker:ipc=host", "seccomp+limits+ipc docker:ipc=host,seccomp=unconfined"));
  // A cell's change of one feature can take an option away or set it back.
  const auto back = plan_ablation(parse_environment_request("docker:ipc=host,network=host"), {"ipc", "network"}, {});
  ASSERT_EQ(back.combinations.size(), 1u);
  EXPECT_EQ(back.combinations[0].label, "docker");
  // One variant is its own factorial: the residual is the variant against the baseline.
  const auto one = plan_ablation(parse_environment_request("docker"), {"seccomp"}, {});
  EXPECT_TRUE(one.factorial);
  EXPECT_TRUE(one.combinations.empty());
  // More than three features: one at a time.
  const auto four = plan_ablation(parse_environment_request("docker"), {}, {});
  EXPECT_EQ(four.variants.size(), 4u);
  EXPECT_FALSE(four.factorial);
  EXPECT_TRUE(four.combinations.empty());
}

TEST(AblationPlan, TheFactorialCellsAreRecordedAndOldManifestsReadWithout) {
  const auto plan = plan_ablation(parse_environment_request("docker:cpus=1"), {"seccomp", "limits"}, {});
  const json j = plan;
  const auto back = j.get<AblationPlan>();
  EXPECT_TRUE(back.factorial);
  ASSERT_EQ(back.combinations.size(), 1u);
  EXPECT_EQ(back.combinations[0].label, "docker:seccomp=unconfined");
  EXPECT_EQ(back.combinations[0].features,
            (std::vector<AblationFeature>{AblationFeature::seccomp, AblationFeature::limits}));
  json old = j;
  old.erase("factorial");
  old.erase("combinations");
  EXPECT_FALSE(old.get<AblationPlan>().factorial);
  json bad = j;
  bad["combinations"][0]["features"][0] = "magic";
  EXPECT_THROW(bad.get<AblationPlan>(), DataError);
}

TEST(AblationBundle, VariantsChangeTheBundleTheyClaimTo) {
  OciBundleRequest r;
  r.rootfs = "/tmp/rootfs";
  r.io_target = "rootfs";
  r.io_path = "/var/tmp";
  r.options = parse_container_options("runc", {{"pid", "host"}, {"scratch", "tmpfs"}});
  r.seccomp = {{"defaultAction", "SCMP_ACT_ERRNO"}, {"syscalls", json::array()}};
  const json c = oci_config(r);
  for (const auto& n : c["linux"]["namespaces"]) EXPECT_NE(n["type"], "pid");
  bool scratch_tmpfs = false;
  for (const auto& m : c["mounts"])
    if (m["destination"] == "/var/tmp") scratch_tmpfs = m["type"] == "tmpfs";
  EXPECT_TRUE(scratch_tmpfs);
  EXPECT_EQ(c["linux"]["seccomp"]["defaultAction"], "SCMP_ACT_ERRNO");
  // Without them: a PID namespace of its own, and no filter at all.
  r.options = parse_container_options("runc", {});
  r.seccomp = nullptr;
  const json plain = oci_config(r);
  EXPECT_FALSE(plain["linux"].contains("seccomp"));
  bool has_pid = false;
  for (const auto& n : plain["linux"]["namespaces"]) has_pid = has_pid || n["type"] == "pid";
  EXPECT_TRUE(has_pid);
}

// Runs drawn around `mean` with a 2% spread.
std::vector<double> runs_around(double mean, std::mt19937_64& rng, int n = 15) {
  std::normal_distribution<double> noise(0, 0.02 * mean);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(mean + noise(rng));
  return v;
}

EnvironmentStats env_with(const std::string& label, std::vector<double> runs, json fingerprint) {
  EnvironmentStats e;
  e.env = label;
  e.run_values = std::move(runs);
  e.fingerprint = std::move(fingerprint);
  return e;
}

json fingerprint_with_seccomp(const std::string& mode) { return {{"isolation", {{"seccomp", mode}}}}; }

// host 1.0 s, docker 1.5 s; without seccomp 1.1 s (80% of the overhead),
// with the host's network 1.5 s (nothing).
struct AblationCase {
  CaseAnalysis ca;
  AblationPlan plan;
  RequestedFields requested = {{"docker:seccomp=unconfined", {"/isolation/seccomp"}}};
  explicit AblationCase(double variant_seconds = 1.1, const std::string& variant_seccomp = "disabled") {
    std::mt19937_64 rng(3);
    ca.case_id = "fcn5/torch/cpu/b64";
    ca.envs.push_back(env_with("host", runs_around(1.0, rng), fingerprint_with_seccomp("disabled")));
    ca.envs.push_back(env_with("docker", runs_around(1.5, rng), fingerprint_with_seccomp("filter")));
    ca.envs.push_back(env_with("docker:seccomp=unconfined", runs_around(variant_seconds, rng),
                               fingerprint_with_seccomp(variant_seccomp)));
    ca.envs.push_back(env_with("docker:network=host", runs_around(1.5, rng), fingerprint_with_seccomp("filter")));
    plan.of = "docker";
    plan.variants = {{AblationFeature::seccomp, "docker:seccomp=unconfined", "seccomp unconfined"},
                     {AblationFeature::network, "docker:network=host", "the host's network namespace"}};
  }
};

TEST(AblationShares, EachFeaturesShareHasABootstrapIntervalAndTheRestIsNamed) {
  AblationCase t;
  const CaseAblation a = analyze_ablation(t.ca, t.plan, "host", t.requested);
  ASSERT_TRUE(a.measured);
  EXPECT_TRUE(a.overhead_significant);
  EXPECT_NEAR(a.overhead.difference, 0.5, 0.03);
  ASSERT_EQ(a.effects.size(), 2u);
  const FeatureEffect& seccomp = a.effects[0];
  EXPECT_TRUE(seccomp.significant);
  EXPECT_NEAR(seccomp.share.share, 0.8, 0.06);
  EXPECT_LT(seccomp.share.ci95_low, seccomp.share.share);
  EXPECT_GT(seccomp.share.ci95_high, seccomp.share.share);
  EXPECT_GT(seccomp.share.ci95_low, 0.6);
  EXPECT_LT(seccomp.share.ci95_high, 1.0);
  EXPECT_TRUE(seccomp.fields_changed);
  const FeatureEffect& network = a.effects[1];
  EXPECT_FALSE(network.significant);
  EXPECT_TRUE(network.fields.empty());
  // Together 80%: the interval stays below 100%, so the rest is named.
  EXPECT_EQ(a.outcome, AblationOutcome::partly_accounted);
  EXPECT_THAT(ablation_outcome_words(a),
              HasSubstr(fmt::format("account for only {:.0f}% of the overhead of docker", 100 * a.together.share)));
  EXPECT_THAT(feature_effect_words(seccomp, "batch"),
              HasSubstr(fmt::format("seccomp unconfined takes away {:.0f}% of the overhead (95% CI",
                                    100 * seccomp.share.share)));
  EXPECT_THAT(feature_effect_words(network, "batch"), HasSubstr("no measurable difference"));
  // The same resamples every time: a report reads the same twice.
  EXPECT_EQ(analyze_ablation(t.ca, t.plan, "host", t.requested).effects[0].share.ci95_low, seccomp.share.ci95_low);
}

TEST(AblationShares, AFeatureThatIsTheWholeOverheadAccountsForIt) {
  AblationCase t(1.0);
  const CaseAblation a = analyze_ablation(t.ca, t.plan, "host", t.requested);
  EXPECT_EQ(a.outcome, AblationOutcome::accounted);
  EXPECT_NEAR(a.effects[0].share.share, 1.0, 0.06);
}

TEST(AblationShares, AVariantWhoseFingerprintDidNotChangeIsCalledOut) {
  AblationCase t(1.1, "filter");
  const CaseAblation a = analyze_ablation(t.ca, t.plan, "host", t.requested);
  EXPECT_FALSE(a.effects[0].fields_changed);
  EXPECT_THAT(feature_effect_words(a.effects[0], "batch"),
              HasSubstr("its fingerprint shows no change in /isolation/seccomp: the variant did not do what it claims"));
}

TEST(AblationShares, NoOverheadMeansNothingToShareOut) {
  AblationCase t;
  std::mt19937_64 rng(9);
  t.ca.envs[1].run_values = runs_around(1.0, rng);
  const CaseAblation a = analyze_ablation(t.ca, t.plan, "host", t.requested);
  EXPECT_EQ(a.outcome, AblationOutcome::no_overhead);
  EXPECT_THAT(ablation_outcome_words(a), HasSubstr("there is no overhead to share out"));
}

TEST(AblationShares, AVariantWithoutRunsIsNotMeasuredAndSaysSo) {
  AblationCase t;
  t.ca.envs.pop_back();  // docker:network=host could not start
  const CaseAblation a = analyze_ablation(t.ca, t.plan, "host", t.requested);
  EXPECT_FALSE(a.effects[1].measured);
  EXPECT_THAT(feature_effect_words(a.effects[1], "batch"), HasSubstr("not measured"));
  // The rest still shares out the overhead.
  EXPECT_TRUE(a.effects[0].measured);
}

// A full factorial over three features with known effects: the
// environment explained is 1.0 s (the host) + 0.05 s that no feature
// explains + 0.2 s that changing feature 0 takes away + 0.1 s for feature 1
// + 0.1 s that only changing 0 or 1 takes away (an interaction) + nothing
// for feature 2. Every cell of a round shares that round's drift (here up to
// 10%, larger than every effect) and has 0.3% noise of its own.
struct FactorialCase {
  CaseAnalysis ca;
  AblationPlan plan;
  static constexpr double kResidual = 0.05;
  explicit FactorialCase(double residual = kResidual, int rounds = 12) {
    ca.case_id = "fcn5/torch/cpu/b64";
    plan.of = "docker:cpus=1";
    plan.factorial = true;
    plan.variants = {{AblationFeature::seccomp, "cell-1", "seccomp"},
                     {AblationFeature::limits, "cell-2", "limits"},
                     {AblationFeature::ipc, "cell-4", "ipc"}};
    plan.combinations = {{{AblationFeature::seccomp, AblationFeature::limits}, "cell-3"},
                         {{AblationFeature::seccomp, AblationFeature::ipc}, "cell-5"},
                         {{AblationFeature::limits, AblationFeature::ipc}, "cell-6"},
                         {{AblationFeature::seccomp, AblationFeature::limits, AblationFeature::ipc}, "cell-7"}};
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> drift(0.9, 1.1);
    std::normal_distribution<double> noise(0, 0.003);
    std::vector<std::string> labels = {"host", plan.of, "cell-1", "cell-2", "cell-3", "cell-4", "cell-5", "cell-6",
                                       "cell-7"};
    for (const auto& label : labels) ca.envs.push_back(env_with(label, {}, nullptr));
    for (int round = 0; round < rounds; ++round) {
      const double d = drift(rng);
      for (std::size_t e = 0; e < labels.size(); ++e) {
        double seconds = 1.0;
        if (e > 0) {
          const unsigned reverted = static_cast<unsigned>(e - 1);  // the cell's mask
          seconds += residual;
          if (!(reverted & 1u)) seconds += 0.2;
          if (!(reverted & 2u)) seconds += 0.1;
          if (!(reverted & 1u) && !(reverted & 2u)) seconds += 0.1;
        }
        ca.envs[e].run_values.push_back(seconds * d * (1 + noise(rng)));
        ca.envs[e].run_rounds.push_back(round);
      }
    }
  }
};

TEST(AblationShares, AFullFactorialGivesShapleySharesAndTheResidualThatAddUp) {
  FactorialCase t;
  const CaseAblation a = analyze_ablation(t.ca, t.plan, "host", {});
  ASSERT_TRUE(a.factorial);
  ASSERT_TRUE(a.residual.has_value()) << a.factorial_gap;
  EXPECT_EQ(a.residual->env, "cell-7");
  // The interaction is split evenly between the two features in it.
  ASSERT_TRUE(a.effects[0].shapley_seconds && a.effects[1].shapley_seconds && a.effects[2].shapley_seconds);
  EXPECT_NEAR(a.effects[0].shapley.share, 0.25 / 0.45, 0.02);
  EXPECT_NEAR(a.effects[1].shapley.share, 0.15 / 0.45, 0.02);
  EXPECT_NEAR(a.effects[2].shapley.share, 0.0, 0.02);
  EXPECT_NEAR(a.residual->share.share, 0.05 / 0.45, 0.02);
  // Exactly, not nearly: the shares and the residual are the whole.
  EXPECT_NEAR(a.effects[0].shapley.share + a.effects[1].shapley.share + a.effects[2].shapley.share +
                  a.residual->share.share, 1.0, 1e-9);
  EXPECT_NEAR(a.together.share + a.residual->share.share, 1.0, 1e-9);
  // Rounds are resampled together: the drift, larger than every effect,
  // cancels, and each interval holds its true value.
  for (const auto& [i, truth] : std::vector<std::pair<int, double>>{{0, 0.25}, {1, 0.15}, {2, 0.0}}) {
    const auto& s = *a.effects[static_cast<std::size_t>(i)].shapley_seconds;
    EXPECT_LT(s.ci95_low, truth * 1.02 + 0.004) << i;
    EXPECT_GT(s.ci95_high, truth * 0.98 - 0.004) << i;
    EXPECT_LT(s.ci95_high - s.ci95_low, 0.03) << i;
  }
  EXPECT_TRUE(a.residual->significant);
  EXPECT_EQ(a.outcome, AblationOutcome::partly_accounted);
  EXPECT_THAT(ablation_outcome_words(a), HasSubstr("the residual, cell-7 against host with every feature changed, is 11%"));
  EXPECT_THAT(feature_effect_words(a.effects[0], "batch"), HasSubstr("its Shapley share, over every order of changing "
                                                                     "the features, is 56%"));
  const Table table = ablation_table([&] {
    CaseAnalysis c = t.ca;
    c.ablation = a;
    return c;
  }());
  ASSERT_EQ(table.rows.size(), 4u);  // three features and the residual
  EXPECT_EQ(table.rows[3][0], "residual");
  EXPECT_EQ(table.rows[3][6], "11%");
  EXPECT_EQ(table.header.size(), table.rows[0].size());
  EXPECT_EQ(table.header[6], "Shapley share");
}

TEST(AblationShares, AFactorialWithNoResidualAccountsForTheOverhead) {
  FactorialCase t(0.0);
  const CaseAblation a = analyze_ablation(t.ca, t.plan, "host", {});
  ASSERT_TRUE(a.residual.has_value());
  EXPECT_FALSE(a.residual->significant);
  EXPECT_EQ(a.outcome, AblationOutcome::accounted);
  EXPECT_THAT(ablation_outcome_words(a), HasSubstr("within its interval of 0"));
}

TEST(AblationShares, AFactorialCellWithoutRunsLeavesNoShapleySharesAndSaysWhy) {
  FactorialCase t;
  t.ca.envs.pop_back();  // cell-7 could not start
  const CaseAblation a = analyze_ablation(t.ca, t.plan, "host", {});
  EXPECT_FALSE(a.residual.has_value());
  EXPECT_FALSE(a.effects[0].shapley_seconds.has_value());
  EXPECT_THAT(ablation_outcome_words(a), HasSubstr("no Shapley shares or residual: cell-7 has no runs"));
  FactorialCase few(FactorialCase::kResidual, 2);
  EXPECT_THAT(ablation_outcome_words(analyze_ablation(few.ca, few.plan, "host", {})),
              HasSubstr("only 2 rounds ran every one of the 8 cells and the baseline; 3 are needed"));
}

TEST(AblationReport, EveryFormatGetsTheSameTable) {
  AblationCase t;
  t.ca.ablation = analyze_ablation(t.ca, t.plan, "host", t.requested);
  const Table table = ablation_table(t.ca);
  ASSERT_EQ(table.rows.size(), 3u);  // two features and their sum
  EXPECT_EQ(table.rows[0][0], "seccomp");
  EXPECT_EQ(table.rows[0][1], "docker:seccomp=unconfined");
  EXPECT_EQ(table.rows[0][7], "changed");
  EXPECT_EQ(table.rows[1][7], "no field shows it");
  EXPECT_EQ(table.rows[2][0], "together");
  EXPECT_EQ(table.header.size(), table.rows[0].size());
}

}  // namespace
}  // namespace dlcbench
