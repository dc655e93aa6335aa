// The results store (issue 40) in a real SQLite file: a run added and read
// back typed, replaced by its id, two writers at once, and the stores it
// must refuse with the fix (damaged, truncated, of a newer schema).
#include "store/results_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <thread>

#include "store/postgres_connection.h"
#include "store/sqlite_connection.h"
#include "store/store_schema.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

StoreLocation sqlite_at(const std::filesystem::path& p) {
  StoreLocation l;
  l.path = p;
  l.source = "test";
  return l;
}

// A run with two comparisons and `records` lines of results.
RunToStore a_run(const std::string& id, const std::string& ended, double docker_ratio = 1.01, int records = 3) {
  RunToStore r;
  r.run.run_id = id;
  r.run.machine = "vm";
  r.run.started_at = ended;
  r.run.ended_at = ended;
  r.run.status = "completed";
  r.run.folder = "/results/" + id;
  r.run.baseline = "host";
  r.run.dlcbench_version = "0.1.0";
  StoredComparison docker;
  docker.case_id = "fcn5/torch/cpu/b64";
  docker.env = "docker";
  docker.baseline = "host";
  docker.verdict = Verdict::equivalent;
  docker.headline.form = Headline::Form::change;
  docker.headline.basis = Headline::Basis::robust;
  docker.headline.time_ratio = docker_ratio;
  docker.headline.time_low = docker_ratio - 0.01;
  docker.headline.time_high = docker_ratio + 0.01;
  docker.headline.terms.unit = "s/batch";
  docker.headline.terms.per = "batch";
  docker.margin = 0.02;
  docker.runs_compared = 10;
  docker.facts = {{"runtime version", "20.10.24"}, {"kernel", "6.18"}};
  StoredComparison runsc = docker;
  runsc.env = "runsc";
  runsc.verdict = Verdict::too_few_runs;
  runsc.headline.basis = Headline::Basis::none;
  runsc.headline.time_low = std::numeric_limits<double>::quiet_NaN();  // no interval
  runsc.headline.time_high = std::numeric_limits<double>::quiet_NaN();
  r.run.comparisons = {docker, runsc};
  r.manifest = {{"run_id", id}};
  for (int i = 0; i < records; ++i)
    r.records.push_back(nlohmann::json{{"type", "sample"}, {"seconds", 0.1 + i}, {"pad", std::string(200, 'x')}}.dump());
  return r;
}

TEST(ResultsStore, ARunIsReadBackTypedAndAnIdAddedAgainReplacesIt) {
  TempDir dir;
  const auto store = open_store(sqlite_at(dir / "sub" / "store.sqlite"));
  EXPECT_EQ(store->schema_version(), store_schema_version());
  EXPECT_THAT(store->description(), HasSubstr("(WAL)"));
  EXPECT_TRUE(store->add(a_run("r1", "2026-12-01T10:00:00Z")));
  EXPECT_TRUE(store->add(a_run("r2", "2026-12-02T10:00:00Z", 1.2)));
  const auto runs = store->runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].run_id, "r1");  // oldest first
  ASSERT_EQ(runs[1].comparisons.size(), 2u);
  const StoredComparison& docker = runs[1].comparisons[0];
  EXPECT_EQ(docker.env, "docker");
  EXPECT_EQ(docker.verdict, Verdict::equivalent);
  EXPECT_EQ(docker.headline.basis, Headline::Basis::robust);
  EXPECT_DOUBLE_EQ(docker.headline.time_ratio, 1.2);
  EXPECT_DOUBLE_EQ(docker.headline.time_low, 1.19);
  EXPECT_EQ(docker.headline.terms.per, "batch");
  EXPECT_EQ(docker.runs_compared, 10u);
  EXPECT_EQ(docker.facts.at("runtime version"), "20.10.24");
  // An interval that is not there stays not there (NULL, read as NaN).
  const StoredComparison& runsc = runs[1].comparisons[1];
  EXPECT_EQ(runsc.verdict, Verdict::too_few_runs);
  EXPECT_TRUE(std::isnan(runsc.headline.time_low));
  EXPECT_FALSE(runsc.headline.bounded());
  // The same run again (a --resume finished it): replaced, not doubled.
  EXPECT_FALSE(store->add(a_run("r1", "2026-12-03T10:00:00Z", 1.5)));
  const auto again = store->runs();
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[1].run_id, "r1");
  EXPECT_DOUBLE_EQ(again[1].comparisons[0].headline.time_ratio, 1.5);
  // A second connection sees the same, and one machine's runs are asked by name.
  EXPECT_EQ(open_store(sqlite_at(dir / "sub" / "store.sqlite"))->runs({"vm"}).size(), 2u);
  EXPECT_TRUE(open_store(sqlite_at(dir / "sub" / "store.sqlite"))->runs({"other"}).empty());
}

TEST(ResultsStore, TwoRunsEndingAtOnceBothLand) {
  TempDir dir;
  const auto where = sqlite_at(dir / "store.sqlite");
  open_store(where);  // made once; each writer opens its own connection, as two processes do
  constexpr int kEach = 25;
  auto writer = [&](const std::string& prefix) {
    const auto store = open_store(where);
    for (int i = 0; i < kEach; ++i) store->add(a_run(prefix + std::to_string(i), "2026-12-01T10:00:00Z", 1.0, 40));
  };
  std::thread a(writer, "a"), b(writer, "b");
  a.join();
  b.join();
  EXPECT_EQ(open_store(where)->runs().size(), 2u * kEach);
}

TEST(ResultsStore, ADamagedOrTruncatedStoreIsRefusedWithTheFix) {
  TempDir dir;
  const auto where = sqlite_at(dir / "store.sqlite");
  {
    const auto store = open_store(where);
    for (int i = 0; i < 20; ++i) store->add(a_run("r" + std::to_string(i), "2026-12-01T10:00:00Z", 1.0, 50));
  }
  // Checkpointed into the main file, as a store is between runs.
  std::filesystem::remove(dir / "store.sqlite-wal");
  std::filesystem::remove(dir / "store.sqlite-shm");
  const auto size = std::filesystem::file_size(dir / "store.sqlite");
  ASSERT_GT(size, 20000u);
  std::filesystem::resize_file(dir / "store.sqlite", size / 2);
  const std::string truncated = testing::error_of<StoreError>([&] { open_store(where); });
  EXPECT_THAT(truncated, HasSubstr("truncated"));
  EXPECT_THAT(truncated, HasSubstr("mv " + (dir / "store.sqlite").string()));
  // Not a database at all.
  testing::write_text(dir / "notes.sqlite", std::string(4096, 'n'));
  const std::string garbage = testing::error_of<StoreError>([&] { open_store(sqlite_at(dir / "notes.sqlite")); });
  EXPECT_THAT(garbage, HasSubstr("is damaged or is not a dlcbench store"));
  EXPECT_THAT(garbage, HasSubstr("store add"));
}

TEST(ResultsStore, ANewerSchemaIsRefusedAndAnOlderOneIsMigrated) {
  TempDir dir;
  // A store of version 1, as an older dlcbench made it, with a run in it.
  {
    const auto db = open_sqlite(dir / "old.sqlite");
    const auto steps = store_migrations(SqlDialect::sqlite);
    for (const auto& sql : steps.at(0)) db->query(sql, {});
    db->query("INSERT INTO store_meta (key, value) VALUES ('schema_version', '1')", {});
    db->query("INSERT INTO runs (run_id, machine, started_at, ended_at, status, folder, baseline, dlcbench_version, "
              "calibration, manifest, added_at) VALUES ('old', 'vm', 't', 't', 'completed', '/r', 'host', '0.1.0', 0, "
              "'{}', 't')",
              {});
  }
  const auto migrated = open_store(sqlite_at(dir / "old.sqlite"));
  EXPECT_EQ(migrated->schema_version(), store_schema_version());
  ASSERT_EQ(migrated->runs().size(), 1u);
  EXPECT_EQ(migrated->runs()[0].run_id, "old");
  const auto indexes = open_sqlite(dir / "old.sqlite")->query("SELECT name FROM sqlite_master WHERE type = 'index' "
                                                               "AND name = 'comparisons_by_case'", {});
  EXPECT_EQ(indexes.size(), 1u);
  // A newer dlcbench's store: refused, and left as it is.
  open_sqlite(dir / "old.sqlite")->query("UPDATE store_meta SET value = '99' WHERE key = 'schema_version'", {});
  const std::string newer = testing::error_of<StoreError>([&] { open_store(sqlite_at(dir / "old.sqlite")); });
  EXPECT_THAT(newer, HasSubstr("has schema version 99, newer than this dlcbench's"));
  EXPECT_EQ(text_of(open_sqlite(dir / "old.sqlite")->query("SELECT value FROM store_meta", {}).at(0).at(0)), "99");
}

// Sets variables for one test and puts the old values back.
class Variables {
 public:
  explicit Variables(std::initializer_list<const char*> names) {
    for (const char* n : names) {
      const char* v = std::getenv(n);
      saved_.emplace_back(n, v ? std::optional<std::string>(v) : std::nullopt);
    }
  }
  ~Variables() {
    for (const auto& [n, v] : saved_) v ? ::setenv(n.c_str(), v->c_str(), 1) : ::unsetenv(n.c_str());
  }
  Variables(const Variables&) = delete;
  Variables& operator=(const Variables&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST(StoreLocation, TheOptionThenTheVariableThenTheDefault) {
  const Variables restore{"HOME", "XDG_DATA_HOME", "DLCBENCH_STORE"};
  ::setenv("HOME", "/home/u", 1);
  ::unsetenv("XDG_DATA_HOME");
  ::unsetenv("DLCBENCH_STORE");
  EXPECT_EQ(default_store_path(), "/home/u/.local/share/dlcbench/store.sqlite");
  auto l = store_location("", false);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->kind, StoreLocation::Kind::sqlite);
  EXPECT_EQ(l->path, "/home/u/.local/share/dlcbench/store.sqlite");
  EXPECT_FALSE(store_location("", true));     // --no-store
  EXPECT_FALSE(store_location("off", false));  // --store off
  ::setenv("DLCBENCH_STORE", "postgresql://dlc:pw@db:5432/dlcbench", 1);
  l = store_location("", false);
  ASSERT_TRUE(l);
  EXPECT_EQ(l->kind, StoreLocation::Kind::postgresql);
  EXPECT_EQ(l->source, "DLCBENCH_STORE");
  l = store_location("/tmp/x.sqlite", false);  // the option wins
  ASSERT_TRUE(l);
  EXPECT_EQ(l->path, "/tmp/x.sqlite");
  ::setenv("DLCBENCH_STORE", "off", 1);
  EXPECT_FALSE(store_location("", false));
  ::unsetenv("DLCBENCH_STORE");
  EXPECT_THAT(testing::error_of<UsageError>([] { store_location("mysql://db/x", false); }),
              HasSubstr("a SQLite file path or a postgresql:// URL"));
  // A password never reaches a message.
  EXPECT_EQ(redacted_url("postgresql://dlc:secret@db:5432/dlcbench"), "postgresql://dlc:***@db:5432/dlcbench");
  EXPECT_EQ(redacted_url("postgresql://dlc@db/dlcbench"), "postgresql://dlc@db/dlcbench");
}

}  // namespace
}  // namespace dlcbench
