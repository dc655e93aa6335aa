// The results store as runs use it: on a real PostgreSQL server, which
// scripts/with-postgres.sh starts for these tests (tests/CMakeLists.txt wraps
// this binary in it), the same runs and history read back as from SQLite,
// two runs added at once and a newer schema refused; in SQLite, two
// processes adding at once, and a run whose store was truncated.
#include <sys/wait.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "store/postgres_connection.h"
#include "store/results_store.h"
#include "store/sql_connection.h"
#include "store/store_schema.h"
#include "../unit/test_files.h"
#include "test_support.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;

std::string server() {
  const char* url = std::getenv("DLCBENCH_TEST_POSTGRES");
  return url ? url : "";
}

#define REQUIRE_SERVER()                                                                                   \
  if (server().empty()) FAIL() << "no server: run this binary under scripts/with-postgres.sh (ctest does)"

StoreLocation at_server() {
  StoreLocation l;
  l.kind = StoreLocation::Kind::postgresql;
  l.url = server();
  return l;
}

const std::filesystem::path kFixtures = std::filesystem::path(DLCBENCH_SOURCE_DIR) / "tests" / "data";

// A copy of a fixture run folder under `dir`, named as its run id.
std::filesystem::path fixture_copy(const std::string& fixture, const std::filesystem::path& dir) {
  const auto from = kFixtures / fixture / "run";
  const auto to = dir / fixture;
  std::filesystem::create_directories(to);
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
  return to;
}

TEST(PostgresStore, TheSameRunsAndHistoryAreReadBackAsFromSqlite) {
  REQUIRE_SERVER();
  testing::TempDir dir;
  const auto report = fixture_copy("report-fixture", dir.path());
  const auto explain = fixture_copy("explain-fixture", dir.path());
  const std::string sqlite = (dir.path() / "store.sqlite").string();
  for (const std::string& store : {sqlite, server()}) {
    const auto added = testing::run_dlcbench({"store", "add", report.string(), explain.string(), "--store", store});
    ASSERT_EQ(added.exit_code, 0) << added.err;
    EXPECT_THAT(added.out, HasSubstr("2 added, 0 updated"));
  }
  const auto from_sqlite = testing::run_dlcbench({"history", "--format", "json", "--store", sqlite});
  const auto from_server = testing::run_dlcbench({"history", "--format", "json", "--store", server()});
  ASSERT_EQ(from_sqlite.exit_code, 0) << from_sqlite.err;
  ASSERT_EQ(from_server.exit_code, 0) << from_server.err;
  auto a = nlohmann::json::parse(from_sqlite.out), b = nlohmann::json::parse(from_server.out);
  EXPECT_THAT(b["store"].get<std::string>(), HasSubstr("PostgreSQL postgresql://postgres@/dlcbench"));
  a.erase("store");
  b.erase("store");
  EXPECT_EQ(a, b);
  EXPECT_FALSE(a["series"].empty());

  // Typed, field by field, through the API too.
  StoreLocation l;
  l.path = sqlite;
  const auto lite = open_store(l)->runs();
  const auto pg = open_store(at_server())->runs();
  ASSERT_EQ(lite.size(), pg.size());
  for (std::size_t i = 0; i < lite.size(); ++i) {
    EXPECT_EQ(lite[i].run_id, pg[i].run_id);
    EXPECT_EQ(lite[i].ended_at, pg[i].ended_at);
    ASSERT_EQ(lite[i].comparisons.size(), pg[i].comparisons.size());
    for (std::size_t j = 0; j < lite[i].comparisons.size(); ++j) {
      const auto& x = lite[i].comparisons[j];
      const auto& y = pg[i].comparisons[j];
      EXPECT_EQ(x.env, y.env);
      EXPECT_EQ(x.verdict, y.verdict);
      EXPECT_EQ(x.facts, y.facts);
      if (std::isfinite(x.headline.time_low)) EXPECT_DOUBLE_EQ(x.headline.time_low, y.headline.time_low);
      else EXPECT_FALSE(std::isfinite(y.headline.time_low));
      EXPECT_DOUBLE_EQ(x.headline.time_ratio, y.headline.time_ratio);
    }
  }
  // The same folder again updates it, on the server too.
  const auto again = testing::run_dlcbench({"store", "add", report.string(), "--store", server()});
  EXPECT_THAT(again.out, HasSubstr("0 added, 1 updated"));
}

TEST(PostgresStore, TwoRunsAddedAtOnceBothLandAndANewerSchemaIsRefused) {
  REQUIRE_SERVER();
  testing::TempDir dir;
  const auto resumed = fixture_copy("resumed-fixture", dir.path());
  const auto command = fixture_copy("command-fixture", dir.path());
  const pid_t a = testing::spawn_dlcbench({"store", "add", resumed.string(), "--store", server()}, dir.path() / "a.log");
  const pid_t b = testing::spawn_dlcbench({"store", "add", command.string(), "--store", server()}, dir.path() / "b.log");
  EXPECT_EQ(testing::exit_status_within(a, 120), 0);
  EXPECT_EQ(testing::exit_status_within(b, 120), 0);
  const auto listed = testing::run_dlcbench({"store", "list", "--format", "json", "--store", server()});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  std::set<std::string> ids;
  const auto list = nlohmann::json::parse(listed.out);
  for (const auto& r : list["runs"]) ids.insert(r["folder"].get<std::string>());
  EXPECT_TRUE(ids.contains(std::filesystem::absolute(resumed).lexically_normal().string()));
  EXPECT_TRUE(ids.contains(std::filesystem::absolute(command).lexically_normal().string()));

  // A newer dlcbench's schema: refused with the message, and left as it is.
  const auto db = open_postgres(server());
  db->query("UPDATE store_meta SET value = '99' WHERE key = 'schema_version'", {});
  const auto refused = testing::run_dlcbench({"store", "list", "--store", server()});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("has schema version 99, newer than this dlcbench's"));
  EXPECT_EQ(text_of(db->query("SELECT value FROM store_meta WHERE key = 'schema_version'", {}).at(0).at(0)), "99");
  db->query("UPDATE store_meta SET value = $1 WHERE key = 'schema_version'", {std::to_string(store_schema_version())});
  EXPECT_EQ(testing::run_dlcbench({"store", "list", "--store", server()}).exit_code, 0);
}

// The SQLite store as runs use it: two processes adding at once, and a run
// whose store was cut short (these need no server, and run beside it).
TEST(SqliteStore, TwoProcessesAddingAtOnceBothLand) {
  testing::TempDir dir;
  const std::string store = (dir.path() / "store.sqlite").string();
  const auto report = fixture_copy("report-fixture", dir.path());
  const auto explain = fixture_copy("explain-fixture", dir.path());
  const pid_t a = testing::spawn_dlcbench({"store", "add", report.string(), "--store", store}, dir.path() / "a.log");
  const pid_t b = testing::spawn_dlcbench({"store", "add", explain.string(), "--store", store}, dir.path() / "b.log");
  EXPECT_EQ(testing::exit_status_within(a, 120), 0);
  EXPECT_EQ(testing::exit_status_within(b, 120), 0);
  const auto listed = testing::run_dlcbench({"store", "list", "--format", "json", "--store", store});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(nlohmann::json::parse(listed.out)["runs"].size(), 2u);
}

TEST(SqliteStore, ARunWhoseStoreIsTruncatedSaysSoAndKeepsItsFolder) {
  testing::TempDir dir;
  const auto store = dir.path() / "store.sqlite";
  const auto report = fixture_copy("report-fixture", dir.path());
  const auto explain = fixture_copy("explain-fixture", dir.path());
  ASSERT_EQ(testing::run_dlcbench({"store", "add", report.string(), explain.string(), "--store", store.string()}).exit_code, 0);
  // The store as a full disk or a copy cut short leaves it.
  std::filesystem::resize_file(store, std::filesystem::file_size(store) / 2);
  const auto out = dir.path() / "results";
  const auto r = testing::run_dlcbench({"run", "--workloads", "fcn5", "--batch", "8", "--warmup", "1", "--iters", "2",
                                        "--runs", "2", "--envs", "host,host", "--data", "synthetic", "--threads", "1",
                                        "--out", out.string(), "--store", store.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.err, HasSubstr("was truncated"));
  EXPECT_THAT(r.err, HasSubstr("mv " + store.string()));
  EXPECT_THAT(r.err, HasSubstr("is complete: `dlcbench store add"));
  // The run itself is whole: its report reads it as completed.
  const auto dir_of_run = testing::only_run_dir(out);
  const auto manifest = nlohmann::json::parse(std::ifstream(dir_of_run / "manifest.json"));
  EXPECT_EQ(manifest["status"], "completed");
  EXPECT_EQ(testing::run_dlcbench({"report", dir_of_run.string()}).exit_code, 0);
  // And --no-store runs as ever.
  const auto skipped = testing::run_dlcbench({"run", "--workloads", "fcn5", "--batch", "8", "--warmup", "1", "--iters",
                                              "2", "--runs", "2", "--envs", "host,host", "--data", "synthetic",
                                              "--threads", "1", "--out", (dir.path() / "r2").string(), "--no-store",
                                              "--store", store.string()});
  EXPECT_EQ(skipped.exit_code, 0) << skipped.err;
}

TEST(SqliteStore, ASlurmRunIsAddedNodeByNodeAndASecretNeverReachesTheStore) {
  testing::TempDir dir;
  const std::string store = (dir.path() / "store.sqlite").string();
  const auto cluster = fixture_copy("cluster-fixture", dir.path());
  const auto added = testing::run_dlcbench({"store", "add", cluster.string(), "--store", store});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_THAT(added.out, HasSubstr("2 added, 0 updated"));  // one run per node
  // A variable passed to a command: the store keeps its name, never its value.
  const auto out = dir.path() / "results";
  const auto r = testing::run_dlcbench({"run", "--envs", "host,host", "--runs", "2", "--pass-env", "DLCBENCH_TEST_SECRET",
                                        "--out", out.string(), "--store", store, "--", "/bin/true"},
                                       {{"DLCBENCH_TEST_SECRET", "hunter2-do-not-store"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("stored in SQLite " + store));
  for (const auto& file : std::filesystem::directory_iterator(dir.path())) {
    if (file.path().string().rfind(store, 0) != 0) continue;  // the store and its -wal
    std::ifstream in(file.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(bytes.find("hunter2-do-not-store"), std::string::npos) << file.path();
  }
  EXPECT_EQ(nlohmann::json::parse(testing::run_dlcbench({"store", "list", "--format", "json", "--store", store}).out)
                .at("runs")
                .size(),
            3u);
}

TEST(StoreCli, BadInputToHistoryAndGateExits2NamingTheOption) {
  testing::TempDir dir;
  const std::string store = (dir.path() / "store.sqlite").string();
  const auto empty = testing::run_dlcbench({"history", "--store", store});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_THAT(empty.err, HasSubstr("holds no runs"));
  const auto report = fixture_copy("report-fixture", dir.path());
  ASSERT_EQ(testing::run_dlcbench({"store", "add", report.string(), "--store", store}).exit_code, 0);
  const auto unknown = testing::run_dlcbench({"history", "--store", store, "--case", "nope/none"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("--case nope/none: no stored run compares it; the store has fcn5/torch/cpu/b8"));
  const auto alpha = testing::run_dlcbench({"history", "--store", store, "--alpha", "0"});
  EXPECT_EQ(alpha.exit_code, 2);
  EXPECT_THAT(alpha.err, HasSubstr("--alpha 0"));
  const auto margin = testing::run_dlcbench({"gate", report.string(), "--max-overhead", "0%"});
  EXPECT_EQ(margin.exit_code, 2);
  EXPECT_THAT(margin.err, HasSubstr("--max-overhead 0%"));
  const auto no_margin = testing::run_dlcbench({"gate", report.string()});
  EXPECT_EQ(no_margin.exit_code, 2);
  EXPECT_THAT(no_margin.err, HasSubstr("--max-overhead"));
  const auto no_case = testing::run_dlcbench({"gate", report.string(), "--max-overhead", "5%", "--case", "x"});
  EXPECT_EQ(no_case.exit_code, 2);
  EXPECT_THAT(no_case.err, HasSubstr("--case x: the run has no such case"));
  const auto no_run = testing::run_dlcbench({"gate", (dir.path() / "nothing").string(), "--max-overhead", "5%"});
  EXPECT_EQ(no_run.exit_code, 2);
  const auto reference = testing::run_dlcbench({"gate", report.string(), "--max-overhead", "5%", "--reference",
                                                "no-such-run", "--store", store});
  EXPECT_EQ(reference.exit_code, 2);
  EXPECT_THAT(reference.err, HasSubstr("--reference no-such-run: no such run in SQLite"));
  // The fixture compares its environments with too few rounds to tell at 5%:
  // never a pass.
  const auto gate = testing::run_dlcbench({"gate", report.string(), "--max-overhead", "5%"});
  EXPECT_NE(gate.exit_code, 0);
}

}  // namespace
}  // namespace dlcbench
