// manifest.json through its one reader and writer (model/manifest.h): a
// manifest this version wrote in a real run reads back whole, a version 1
// manifest still reads, and bad ones are refused naming the field.
#include "model/manifest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>

#include "core/errors.h"
#include "core/results_file.h"

namespace dlcbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

const fs::path kData = fs::path(DLCBENCH_SOURCE_DIR) / "tests" / "data";

// Written by `dlcbench run --envs host,runc:cpus=1 --workloads fcn5,startup
// --runs 2 --iters 3 --warmup 1 --starts 3 --data synthetic --seed 7`: a
// requested mismatch in its preflight.
const fs::path kCurrent = kData / "manifest" / "v2-run-manifest.json";
// Written by the version before it (schema 1): the report fixture's run.
const fs::path kVersion1 = kData / "report-fixture" / "run" / "manifest.json";

TEST(Manifest, OneWrittenByThisVersionReadsBackWhole) {
  const json file = read_json_file(kCurrent);
  const Manifest m = read_manifest(kCurrent);
  EXPECT_EQ(m.schema_version, kManifestSchemaVersion);
  EXPECT_EQ(m.status, RunStatus::completed);
  EXPECT_EQ(m.run_id, file["run_id"]);
  EXPECT_EQ(m.round_orders.size(), 2u);
  EXPECT_EQ(m.rounds, 2);
  EXPECT_EQ(m.worker_env.at("OMP_NUM_THREADS"), file["worker_env"]["OMP_NUM_THREADS"]);
  EXPECT_EQ(m.environments.size(), 2u);
  ASSERT_TRUE(m.preflight);
  const Mismatch& quota = m.preflight->at("runc:cpus=1").at(0);
  EXPECT_EQ(quota.field, "cgroup/cpu_quota");
  EXPECT_EQ(quota.baseline_value, "none");
  EXPECT_EQ(quota.other_value, "1.0");
  EXPECT_TRUE(quota.requested);
  EXPECT_FALSE(quota.fix.empty());
  EXPECT_EQ(m.binary_sha256(), file["orchestrator"]["binary_sha256"]);
  // Nothing is lost or added on the way through the struct, but for the
  // plan's fields this file predates: the reader gives them their defaults
  // and the requested fields it derives from the labels.
  json written = m;
  ASSERT_TRUE(m.plan);
  for (const auto& [key, value] : file["plan"].items()) {
    if (key == "requested_fields") continue;
    EXPECT_EQ(written["plan"][key], value) << key;
  }
  for (const auto& [env, fields] : file["plan"]["requested_fields"].items()) {
    EXPECT_EQ(written["plan"]["requested_fields"][env], fields) << env;
  }
  EXPECT_EQ(written["plan"]["requested_fields"]["host"], json::array());
  EXPECT_EQ(json(read_recorded_plan(written["plan"])), written["plan"]);  // written again, read back whole
  json file_outside_plan = file;
  file_outside_plan.erase("plan");
  written.erase("plan");
  EXPECT_EQ(written, file_outside_plan);
}

TEST(Manifest, Version1StillReadsWithItsMismatchKeys) {
  const json file = read_json_file(kVersion1);
  ASSERT_EQ(file["schema_version"], 1);
  const Manifest m = read_manifest(kVersion1);
  EXPECT_EQ(m.schema_version, 1);
  EXPECT_EQ(m.status, RunStatus::completed);
  ASSERT_TRUE(m.preflight);
  ASSERT_FALSE(m.preflight->empty());
  const auto& [env, list] = *m.preflight->begin();
  const json& recorded = file["preflight"][env][0];
  ASSERT_TRUE(recorded.contains("baseline") && recorded.contains("value"));  // version 1's keys
  EXPECT_EQ(list.at(0).baseline_value, recorded["baseline"]);
  EXPECT_EQ(list.at(0).other_value, recorded["value"]);
  // Written again, it has this version's keys.
  const json again = json(m)["preflight"][env][0];
  EXPECT_EQ(again["baseline_value"], recorded["baseline"]);
  EXPECT_FALSE(again.contains("value"));
}

TEST(Manifest, EveryFieldRoundTrips) {
  Manifest m;
  m.run_id = "20261201-000000-abcd";
  m.command_line = {"dlcbench", "run", "--envs", "host,docker"};
  m.dlcbench_version = "0.1.0";
  m.plan = read_recorded_plan({{"baseline", "host"}, {"environments", {"host", "docker"}}, {"cases", json::array()}});
  m.round_orders = {{0, 1}, {1, 0}};
  m.worker_env = {{"OMP_NUM_THREADS", "2"}};
  m.orchestrator = {{"binary_sha256", "abc"}};
  m.started_at = "2026-12-01T00:00:00Z";
  m.ended_at = "2026-12-01T00:01:00Z";
  m.status = RunStatus::completed_with_failures;
  m.environments = {{"host", {{"name", "host"}}}, {"docker", {{"unavailable", "no daemon"}}}};
  m.preflight = PreflightFindings{{"docker", {Mismatch{"blas/core", "Zen", "Haswell", false, true, "same image"}}}};
  m.rounds = 3;
  m.launches = 5;
  m.failed_launches = 1;
  m.until_cv = UntilCvOutcome{0.02, 0.031, false};
  ResumedSession s;
  s.at = "2026-12-01T00:02:00Z";
  s.command_line = {"dlcbench", "run", "--resume", "r"};
  s.missing_launches = 4;
  s.cut_off_launches = 1;
  s.failed_launches = 2;
  s.rounds = 3;
  s.leftovers_removed = {{"docker", {"r-leftover"}}};
  s.preflight = PreflightFindings{};
  s.outcome = RunStatus::not_comparable;
  s.launches = 4;
  s.ended_at = "2026-12-01T00:03:00Z";
  m.resumed = {s, ResumedSession{}};

  const json j = m;
  EXPECT_EQ(j["status"], "completed with failures");
  EXPECT_EQ(j["resumed"][0]["outcome"], "not comparable");
  EXPECT_EQ(j["preflight"]["docker"][0]["other_value"], "Haswell");
  const Manifest back = j.get<Manifest>();
  EXPECT_EQ(json(back), j);
  EXPECT_EQ(back.resumed.at(0).leftovers_removed.at("docker").at(0), "r-leftover");
  EXPECT_EQ(back.until_cv->highest_cv, 0.031);
  EXPECT_EQ(back.binary_sha256(), "abc");
}

TEST(Manifest, WhatIsNotKnownYetIsLeftOut) {
  const json j = Manifest{};
  for (const char* key : {"ended_at", "preflight", "rounds", "launches", "failed_launches", "until_cv", "resumed"})
    EXPECT_FALSE(j.contains(key)) << key;
  EXPECT_EQ(j["environments"], json::object());
  EXPECT_EQ(j["status"], "unknown");
}

TEST(Manifest, EveryStatusReadsBackAsItself) {
  for (RunStatus s : {RunStatus::running, RunStatus::completed, RunStatus::completed_with_failures,
                      RunStatus::interrupted, RunStatus::not_comparable}) {
    Manifest m;
    m.status = s;
    EXPECT_EQ(json(m).get<Manifest>().status, s) << run_status_text(s);
  }
  EXPECT_EQ(json({{"status", "paused"}}).get<Manifest>().status, RunStatus::unknown);
  EXPECT_EQ(json::object().get<Manifest>().status, RunStatus::unknown);
}

TEST(Manifest, ANewerFormatIsRefusedInOnePlace) {
  json j = read_json_file(kCurrent);
  j["schema_version"] = kManifestSchemaVersion + 1;
  EXPECT_THAT([&] { (void)j.get<Manifest>(); },
              ::testing::ThrowsMessage<DataError>(HasSubstr(
                  fmt::format("format version {}, newer than this dlcbench reads ({})", kManifestSchemaVersion + 1,
                              kManifestSchemaVersion))));
}

TEST(Manifest, AFieldOfTheWrongTypeIsNamed) {
  const json base = read_json_file(kCurrent);
  struct Case {
    json::json_pointer at;
    json value;
    const char* named;
  };
  for (const Case& c : {Case{json::json_pointer("/status"), 5, "manifest.json: status"},
                        Case{json::json_pointer("/command_line"), "run", "manifest.json: command_line"},
                        Case{json::json_pointer("/round_orders/0/0"), -1, "manifest.json: round_orders"},
                        Case{json::json_pointer("/launches"), -3, "manifest.json: launches"},
                        Case{json::json_pointer("/worker_env/OMP_NUM_THREADS"), 2, "worker_env.OMP_NUM_THREADS"},
                        Case{json::json_pointer("/preflight/runc:cpus=1/0/requested"), "yes", "requested"},
                        Case{json::json_pointer("/resumed"), json::array({{{"launches", "x"}}}),
                             "manifest.json: resumed[0].launches"}}) {
    json j = base;
    j[c.at] = c.value;
    EXPECT_THAT([&] { (void)j.get<Manifest>(); }, ::testing::ThrowsMessage<DataError>(HasSubstr(c.named)))
        << c.at.to_string();
  }
  EXPECT_THAT([] { (void)json::array().get<Manifest>(); },
              ::testing::ThrowsMessage<DataError>(HasSubstr("not a JSON object")));
}

}  // namespace
}  // namespace dlcbench
