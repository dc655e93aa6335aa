// No shell command line is ever built: every program dlcbench starts goes
// through run_process (src/core/process.cpp) as an argument vector, exec'd
// directly. This reads the sources for the calls that would hand a string to
// a shell, so a later change that adds one fails here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

namespace dlcbench {
namespace {

namespace fs = std::filesystem;

std::string fmt_line(const fs::path& file, int line, const std::string& text) {
  return file.string() + ":" + std::to_string(line) + ": " + text;
}

TEST(NoShell, NoSourceFileHandsAStringToAShell) {
  const fs::path src = fs::path(DLCBENCH_SOURCE_DIR) / "src";
  ASSERT_TRUE(fs::is_directory(src)) << src;
  // system(), popen(), the exec variants that search a shell-like string,
  // and an explicit "sh -c".
  const std::regex shell(R"((^|[^_a-zA-Z])(std::)?(system|popen|execl|execlp|execle|wordexp)\s*\(|"(/bin/)?(ba)?sh"\s*,\s*"-c")");
  int files = 0, exec_calls = 0;
  std::vector<std::string> offenders;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    const auto ext = entry.path().extension();
    if (ext != ".cpp" && ext != ".h" && ext != ".cu") continue;
    ++files;
    std::ifstream in(entry.path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      if (std::regex_search(line, shell)) offenders.push_back(fmt_line(entry.path(), n, line));
      if (line.find("execvpe(") != std::string::npos) ++exec_calls;
    }
  }
  EXPECT_GT(files, 50);  // the tree was really read
  EXPECT_THAT(offenders, ::testing::IsEmpty());
  // The one place programs are started.
  EXPECT_EQ(exec_calls, 1);
}

}  // namespace
}  // namespace dlcbench
