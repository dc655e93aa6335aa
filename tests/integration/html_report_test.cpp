// The HTML report in a real browser: Debian's Chromium, headless, opens the
// file offline, renders it with its charts, and logs no script error.
#include <cstdlib>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../unit/test_files.h"
#include "core/process.h"
#include "test_support.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempDir;

std::string browser() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"})
    if (auto p = find_program(name)) return *p;
  return "";
}

TEST(HtmlReport, RendersInHeadlessChromiumWithChartsAndNoScriptErrors) {
  const std::string chromium = browser();
  if (chromium.empty()) {
    const char* required = std::getenv("DLCBENCH_REQUIRE_BROWSER");
    if (required && std::string(required) == "1") FAIL() << "chromium is not installed: run scripts/install-deps.sh";
    GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it)";
  }
  TempDir dir;
  auto run = testing::run_dlcbench({"run", "--workloads", "startup", "--envs", "host,host", "--runs", "3",
                                    "--starts", "3", "--out", (dir / "res").string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto html = dir / "report.html";
  auto report = testing::run_dlcbench(
      {"report", testing::only_run_dir(dir / "res").string(), "--format", "html", "--output", html.string()});
  ASSERT_EQ(report.exit_code, 0) << report.err;

  // A profile folder of its own, so the browser touches nothing of the user's.
  const std::vector<std::string> common = {chromium, "--headless", "--no-sandbox", "--disable-gpu",
                                           "--no-first-run", "--user-data-dir=" + (dir / "profile").string(),
                                           "--enable-logging=stderr", "--v=0"};
  auto dom_args = common;
  dom_args.insert(dom_args.end(), {"--dump-dom", "file://" + html.string()});
  auto dom = capture_output(dom_args, 120);
  ASSERT_TRUE(dom.result.ok()) << dom.result.describe() << dom.result.stderr_tail;
  for (const char* chart : {"chart bars", "chart box", "chart overhead"}) EXPECT_THAT(dom.out, HasSubstr(chart));
  EXPECT_THAT(dom.out, HasSubstr("<svg"));
  EXPECT_THAT(dom.result.stderr_tail, Not(HasSubstr("Uncaught")));
  EXPECT_THAT(dom.result.stderr_tail, Not(HasSubstr(":ERROR:CONSOLE")));

  auto shot_args = common;
  const auto png = dir / "report.png";
  shot_args.insert(shot_args.end(), {"--window-size=1280,2000", "--screenshot=" + png.string(), "file://" + html.string()});
  auto shot = capture_output(shot_args, 120);
  ASSERT_TRUE(shot.result.ok()) << shot.result.describe() << shot.result.stderr_tail;
  ASSERT_TRUE(std::filesystem::exists(png));
  EXPECT_GT(std::filesystem::file_size(png), 10000u);  // a rendered page, not a blank one
}

}  // namespace
}  // namespace dlcbench
