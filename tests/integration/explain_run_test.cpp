// `dlcbench explain` for real: each variant is launched like any
// environment, and the worker's own fingerprint inside it shows that the
// variant changed what it claims (seccomp off or on, the host's network,
// IPC and PID namespaces shared); the report shares out the overhead.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <set>

#include "../unit/test_files.h"
#include "test_support.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

// One fingerprint's isolation field, per environment label.
std::map<std::string, json> isolation_field(const std::vector<json>& records, const std::string& field) {
  std::map<std::string, json> by_env;
  for (const auto& r : records)
    if (r.value("type", "") == "fingerprint" && r.contains("isolation"))
      by_env[r.value("env", "")] = r["isolation"].value(field, json());
  return by_env;
}

// Explains `env` with a tiny micro-benchmark (fingerprints are what is
// checked), two rounds so the report has intervals; returns the records and
// the JSON report.
std::pair<std::vector<json>, json> explain(const std::string& env, const std::string& features) {
  testing::TempDir out;
  auto r = testing::run_dlcbench({"explain", env, "--features", features, "--workloads", "gemm/sgemm:n=64", "--runs",
                                  "2", "--warmup", "0", "--iters", "2", "--data", "synthetic", "--seed", "3", "--out",
                                  out.path().string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto dir = testing::only_run_dir(out.path());
  auto report = testing::run_dlcbench({"report", dir.string(), "--format", "json"});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  return {testing::read_records(dir), json::parse(report.out)};
}

void expect_every_variant_changed(const json& report) {
  ASSERT_TRUE(report["cases"][0].contains("ablation")) << report.dump();
  for (const auto& f : report["cases"][0]["ablation"]["features"]) {
    EXPECT_TRUE(f["measured"].get<bool>()) << f;
    if (!f["fingerprint_fields"].empty()) {
      EXPECT_EQ(f["fingerprint_changed"], true) << f;
    }
  }
}

TEST(Explain, RuncVariantsChangeWhatTheyClaim) {
  REQUIRE_RUNTIME("runc");
  const auto [records, report] = explain("runc", "seccomp,network,ipc,pid");
  const auto seccomp = isolation_field(records, "seccomp");
  EXPECT_EQ(seccomp.at("runc"), "disabled");              // a bundle has no filter by default
  EXPECT_EQ(seccomp.at("runc:seccomp=default"), "filter");  // the engines' profile, converted
  // Shared namespaces are the host's own; the others are the container's.
  for (const auto& [field, label] : std::map<std::string, std::string>{
           {"net_namespace", "runc:network=host"}, {"ipc_namespace", "runc:ipc=host"}, {"pid_namespace", "runc:pid=host"}}) {
    const auto ns = isolation_field(records, field);
    EXPECT_EQ(ns.at(label), ns.at("host")) << field;
    EXPECT_NE(ns.at("runc"), ns.at("host")) << field;
  }
  expect_every_variant_changed(report);
  EXPECT_EQ(report["cases"][0]["ablation"]["of"], "runc");
}

TEST(Explain, DockerVariantsChangeWhatTheyClaimAndTheReportSharesOutTheOverhead) {
  REQUIRE_RUNTIME("docker");
  const auto [records, report] = explain("docker", "seccomp,network,pid");
  const auto seccomp = isolation_field(records, "seccomp");
  EXPECT_EQ(seccomp.at("docker"), "filter");
  EXPECT_EQ(seccomp.at("docker:seccomp=unconfined"), "disabled");
  const auto net = isolation_field(records, "net_namespace");
  EXPECT_EQ(net.at("docker:network=host"), net.at("host"));
  EXPECT_NE(net.at("docker"), net.at("host"));
  const auto pid = isolation_field(records, "pid_namespace");
  EXPECT_EQ(pid.at("docker:pid=host"), pid.at("host"));
  expect_every_variant_changed(report);
  const json& ablation = report["cases"][0]["ablation"];
  EXPECT_EQ(ablation["features"].size(), 3u);
  EXPECT_FALSE(ablation["outcome_text"].get<std::string>().empty());
}

TEST(Explain, GvisorVariantsRunWithItsOwnOptions) {
  REQUIRE_RUNTIME("runsc");
  // Two features: a full factorial of three would run 8 sandboxes a round.
  const auto [records, report] = explain("runsc", "seccomp,overlay");
  // --oci-seccomp: the profile is applied inside the sandbox.
  const auto seccomp = isolation_field(records, "seccomp");
  EXPECT_EQ(seccomp.at("runsc"), "disabled");
  EXPECT_EQ(seccomp.at("runsc:seccomp=default"), "filter");
  expect_every_variant_changed(report);
  std::set<std::string> measured;
  for (const auto& f : report["cases"][0]["ablation"]["features"]) measured.insert(f["env"].get<std::string>());
  EXPECT_EQ(measured, (std::set<std::string>{"runsc:seccomp=default", "runsc:overlay=root"}));
  // And the factorial's cell with both changed, against the host: the residual.
  EXPECT_EQ(report["cases"][0]["ablation"]["factorial"], true);
  EXPECT_EQ(isolation_field(records, "seccomp").at("runsc:overlay=root,seccomp=default"), "filter");
}

TEST(Explain, BadRequestsAreClearErrorsBeforeAnythingRuns) {
  testing::TempDir out;
  auto unknown = testing::run_dlcbench({"explain", "docker", "--features", "seccomp,cgroups", "--out", out.path().string()});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("unknown feature 'cgroups': valid features are seccomp, network, ipc, pid, limits"));
  auto gvisor_pid = testing::run_dlcbench({"explain", "runsc", "--features", "pid", "--out", out.path().string()});
  EXPECT_EQ(gvisor_pid.exit_code, 2);
  EXPECT_THAT(gvisor_pid.err, HasSubstr("runsc has no such variant: gVisor's kernel keeps its own PID namespace"));
  auto with_envs = testing::run_dlcbench({"explain", "docker", "--envs", "host,podman", "--out", out.path().string()});
  EXPECT_EQ(with_envs.exit_code, 2);
  EXPECT_THAT(with_envs.err, HasSubstr("leave --envs out"));
  auto host = testing::run_dlcbench({"explain", "host", "--out", out.path().string()});
  EXPECT_EQ(host.exit_code, 2);
  EXPECT_THAT(host.err, HasSubstr("the host has no isolation to take away"));
  // Resumed like any run: the manifest holds the variants.
  auto resume = testing::run_dlcbench({"explain", "docker", "--resume", out.path().string()});
  EXPECT_EQ(resume.exit_code, 2);
  EXPECT_THAT(resume.err, HasSubstr("`dlcbench run --resume"));
  // A runtime that is not installed: the command that installs it.
  auto missing = testing::run_dlcbench({"explain", "crun", "--out", out.path().string()}, {{"PATH", "/nonexistent"}});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("crun is not installed: run `apt-get install crun`"));
  EXPECT_TRUE(std::filesystem::is_empty(out.path()));
}

}  // namespace
}  // namespace dlcbench
