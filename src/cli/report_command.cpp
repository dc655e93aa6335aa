// `dlcbench report DIR`: the comparison recomputed from a run's files.
#include <iostream>

#include <fmt/format.h>

#include "analysis/analysis.h"
#include "cli/commands.h"
#include "core/results_file.h"
#include "report/console.h"

namespace fs = std::filesystem;

namespace dlcbench::cli {

void add_report_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("report", "Print the comparison of a finished or interrupted run");
  auto dir = std::make_shared<std::string>();
  cmd->add_option("dir", *dir, "A results/<run-id> folder")->required()->check(CLI::ExistingDirectory);
  cmd->callback([dir, &exit_code] {
    try {
      const auto manifest = read_json_file(fs::path(*dir) / "manifest.json");
      const auto content = read_results(fs::path(*dir) / "results.jsonl");
      Analysis analysis = analyze(manifest, content.records);
      for (auto line : content.bad_lines)
        analysis.notes.push_back(fmt::format("results.jsonl line {} is not valid JSON and was skipped", line));
      std::cout << fmt::format("run {} ({})\n", manifest.value("run_id", "?"), manifest.value("status", "?"));
      std::cout << render_console(analysis);
      exit_code = analysis.comparable ? kExitOk : kExitNotComparable;
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << "\n";
      exit_code = kExitFailure;
    }
  });
}

}  // namespace dlcbench::cli
