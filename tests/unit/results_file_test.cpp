#include "core/results_file.h"

#include <fstream>

#include <gtest/gtest.h>

#include "test_files.h"

namespace dlcbench {
namespace {

TEST(ResultsFile, AppendsOneLinePerRecordAndReadsThemBack) {
  testing::TempDir dir;
  {
    ResultsWriter w(dir / "results.jsonl");
    w.append({{"type", "sample"}, {"seconds", 0.5}});
    w.append({{"type", "sample"}, {"seconds", 0.25}, {"text", "line\nbreak"}});
  }
  std::ifstream in(dir / "results.jsonl");
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 2);  // the embedded newline is escaped
  auto content = read_results(dir / "results.jsonl");
  ASSERT_EQ(content.records.size(), 2u);
  EXPECT_DOUBLE_EQ(content.records[1]["seconds"].get<double>(), 0.25);
  EXPECT_EQ(content.records[1]["text"], "line\nbreak");
  EXPECT_TRUE(content.bad_lines.empty());
}

TEST(ResultsFile, AppendingToAnExistingFileKeepsWhatWasThere) {
  testing::TempDir dir;
  { ResultsWriter(dir / "r.jsonl").append({{"n", 1}}); }
  { ResultsWriter(dir / "r.jsonl").append({{"n", 2}}); }
  auto content = read_results(dir / "r.jsonl");
  ASSERT_EQ(content.records.size(), 2u);
  EXPECT_EQ(content.records[0]["n"], 1);
}

TEST(ResultsFile, ATornLastLineIsReportedNotFatal) {
  testing::TempDir dir;
  {
    ResultsWriter w(dir / "r.jsonl");
    w.append({{"n", 1}});
  }
  std::ofstream(dir / "r.jsonl", std::ios::app) << "{\"n\": 2, \"sec";
  auto content = read_results(dir / "r.jsonl");
  EXPECT_EQ(content.records.size(), 1u);
  EXPECT_EQ(content.bad_lines, (std::vector<std::size_t>{2}));
}

TEST(ResultsFile, InvalidUtf8IsReplacedNotThrown) {
  testing::TempDir dir;
  ResultsWriter w(dir / "r.jsonl");
  EXPECT_NO_THROW(w.append({{"text", std::string("bad \xff byte")}}));
}

TEST(ResultsFile, ManifestIsWrittenAtomically) {
  testing::TempDir dir;
  write_json_atomically(dir / "manifest.json", {{"status", "running"}});
  write_json_atomically(dir / "manifest.json", {{"status", "completed"}});
  EXPECT_EQ(read_json_file(dir / "manifest.json")["status"], "completed");
  EXPECT_FALSE(std::filesystem::exists(dir / "manifest.json.tmp"));
}

TEST(ResultsFile, UnreadableFilesGiveClearErrors) {
  testing::TempDir dir;
  EXPECT_THROW(read_results(dir / "missing.jsonl"), std::runtime_error);
  std::ofstream(dir / "bad.json") << "{not json";
  try {
    read_json_file(dir / "bad.json");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json is not valid JSON"), std::string::npos);
  }
}

}  // namespace
}  // namespace dlcbench
