// `dlcbench compare A B`: two runs side by side, case by case, B relative
// to A (analysis/compare.h), in the format asked for.
#include <memory>

#include <fmt/format.h>

#include "analysis/compare.h"
#include "cli/commands.h"
#include "cli/loaded_run.h"
#include "cli/option_checks.h"
#include "report/comparison_report.h"

namespace dlcbench::cli {

void add_compare_command(CLI::App& app, int& exit_code) {
  auto* compare = app.add_subcommand("compare", "Compare two runs case by case: B relative to A");
  auto a = std::make_shared<std::string>();
  auto b = std::make_shared<std::string>();
  compare->add_option("a", *a, "The reference results/<run-id> folder")
      ->required()
      ->check(not_empty("a results/<run-id> folder"));
  compare->add_option("b", *b, "The results/<run-id> folder compared with it")
      ->required()
      ->check(not_empty("a results/<run-id> folder"));
  auto compare_format = std::make_shared<std::string>("console");
  auto compare_output = std::make_shared<std::string>();
  compare->add_option("--format", *compare_format, "console, md (a Markdown table) or json (every statistic)")
      ->check(CLI::IsMember({"console", "md", "json"}))
      ->capture_default_str();
  compare->add_option("-o,--output", *compare_output, "Write to this file instead of standard output (- for standard output)")
      ->check(not_empty("a file to write, or - for standard output"));
  compare->callback([=, &exit_code] {
    exit_code = exit_code_of([&] {
      const LoadedRun ra = load_run(*a), rb = load_run(*b);
      Comparison c = compare_runs(ra.analysis, rb.analysis, *a, *b);
      for (const auto& n : ra.analysis.notes) c.notes.push_back(fmt::format("{}: {}", *a, n));
      for (const auto& n : rb.analysis.notes) c.notes.push_back(fmt::format("{}: {}", *b, n));
      const std::string text = *compare_format == "json" ? comparison_json(c).dump(2) + "\n"
                               : *compare_format == "md" ? render_comparison_markdown(c)
                                                         : render_comparison(c);
      write_output(text, *compare_output);
      return c.rows.empty() ? kExitFailure : kExitOk;
    });
  });
}

}  // namespace dlcbench::cli
