// `dlcbench report DIR`: the comparison recomputed from a run's two files,
// in the format asked for; `dlcbench compare A B`: two runs side by side.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "analysis/analysis.h"
#include "analysis/compare.h"
#include "analysis/cluster_analysis.h"
#include "cli/commands.h"
#include "model/cluster_manifest.h"
#include "report/cluster_report.h"
#include "report/comparison_report.h"
#include "cli/option_checks.h"
#include "core/errors.h"
#include "core/results_file.h"
#include "core/words.h"
#include "orchestrator/plan.h"
#include "report/console.h"
#include "report/csv.h"
#include "report/html.h"
#include "report/json_report.h"
#include "report/markdown.h"

namespace fs = std::filesystem;

namespace dlcbench::cli {
namespace {

struct LoadedRun {
  Manifest manifest;
  ResultsContent content;
  Analysis analysis;
};

// Reads what can be read; problems a reader should know of become notes, and
// a folder that is not a run at all is an error naming what is missing.
LoadedRun load_run(const fs::path& dir) {
  if (!fs::is_directory(dir))
    throw UsageError(fmt::format("{} is not a folder: give a results/<run-id> folder written by dlcbench run",
                                         dir.string()));
  const fs::path manifest_file = dir / "manifest.json";
  const fs::path results_file = dir / "results.jsonl";
  if (!fs::exists(manifest_file))
    throw UsageError(fmt::format("{} is missing: {} is not a dlcbench results folder (it should hold "
                                         "manifest.json and results.jsonl)",
                                         manifest_file.string(), dir.string()));
  LoadedRun run;
  nlohmann::json manifest;
  try {
    manifest = read_json_file(manifest_file);
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{} is not valid JSON ({}): the run's plan cannot be read",
                                         manifest_file.string(), e.what()));
  }
  if (fs::exists(results_file)) run.content = read_results(results_file);
  try {
    run.manifest = manifest.get<Manifest>();
    run.analysis = analyze(read_plan_of_run(run.manifest), run.content.records, run.content.line_numbers);
  } catch (const std::runtime_error& e) {
    // A manifest without a plan, of a newer format or with a field of the
    // wrong type: not a run this dlcbench can report.
    throw UsageError(fmt::format("{}: {}", manifest_file.string(), e.what()));
  }
  if (!fs::exists(results_file))
    run.analysis.notes.push_back(fmt::format("{} is missing: nothing was measured", results_file.string()));
  for (auto line : run.content.bad_lines)
    run.analysis.notes.push_back(fmt::format("{} line {} is not a complete JSON record (a line cut short when the "
                                             "run was stopped?) and was skipped",
                                             results_file.string(), line));
  return run;
}

void write_output(const std::string& text, const std::string& output) {
  if (output.empty() || output == "-") {
    std::cout << text;
    return;
  }
  // The reason, not only the failure: errno as the stream left it.
  auto cannot_write = [&] {
    return UsageError(fmt::format("-o {}: cannot write the report there: {}; give a file in a folder you can write to",
                                  output, std::strerror(errno)));
  };
  errno = 0;
  std::ofstream out(output, std::ios::binary);
  if (!out) throw cannot_write();
  out << text;
  if (!out.flush()) throw cannot_write();
  std::cerr << fmt::format("wrote {}\n", output);
}

std::string render(const LoadedRun& run, const std::string& format) {
  if (format == "console")
    return fmt::format("run {} ({})\n", run.manifest.run_id.empty() ? "?" : run.manifest.run_id,
                       run_status_text(run.analysis.status)) +
           render_console(run.analysis);
  if (format == "md") return render_markdown(run.analysis, run.manifest);
  if (format == "json") return analysis_json(run.analysis, run.manifest).dump(2) + "\n";
  if (format == "html") return render_html(run.analysis, run.manifest);
  std::ostringstream csv;
  write_samples_csv(csv, run.manifest, run.content.records);
  return csv.str();
}

// A cluster run (cluster.json): every node's run, merged.
int report_cluster(const fs::path& dir, const std::string& format, const std::string& output) {
  const ClusterAnalysis analysis = analyze_cluster(dir);
  std::string text;
  if (format == "console") text = render_cluster_console(analysis);
  else if (format == "md") text = render_cluster_markdown(analysis);
  else if (format == "html") text = render_cluster_html(analysis);
  else if (format == "json") text = cluster_json(analysis).dump(2) + "\n";
  else
    throw UsageError(fmt::format("--format {}: a cluster run's samples are in each node's folder: `dlcbench report "
                                 "{}/nodes/NODE --format csv`",
                                 format, dir.string()));
  write_output(text, output);
  return analysis.complete() ? kExitOk : kExitFailure;
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("report", "Report a finished or interrupted run from its files");
  auto dir = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("console");
  auto output = std::make_shared<std::string>();
  cmd->add_option("dir", *dir, "A results/<run-id> folder")->required()->check(not_empty("a results/<run-id> folder"));
  cmd->add_option("--format", *format,
                  "console, md (Markdown tables), csv (one row per sample), json (all statistics) or html (one "
                  "self-contained file with charts)")
      ->check(CLI::IsMember({"console", "md", "csv", "json", "html"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", *output, "Write to this file instead of standard output (- for standard output)")
      ->check(not_empty("a file to write, or - for standard output"));
  cmd->callback([=, &exit_code] {
    exit_code = exit_code_of([&] {
      if (is_cluster_run(*dir)) return report_cluster(*dir, *format, *output);
      const LoadedRun run = load_run(*dir);
      for (const auto& note : run.analysis.notes)
        if (*format != "console") std::cerr << "note: " << note << "\n";
      write_output(render(run, *format), *output);
      int code = run.analysis.comparable ? kExitOk : kExitNotComparable;
      if (run.analysis.results_lost())
        std::cerr << fmt::format("warning: the manifest records {}, results.jsonl holds {}: the report covers "
                                 "only what is left\n",
                                 counted(static_cast<std::size_t>(*run.analysis.launches_recorded), "launch",
                                         "launches"),
                                 run.analysis.launches_found);
      if (run.analysis.nothing_left()) {
        std::cerr << fmt::format("error: nothing measured is left in {}: every cell is n/a\n", *dir);
        code = kExitFailure;
      }
      return code;
    });
  });

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
