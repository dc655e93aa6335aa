// `dlcbench report DIR`: the comparison recomputed from a run's two files,
// in the format asked for.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "analysis/analysis.h"
#include "analysis/cluster_analysis.h"
#include "cli/commands.h"
#include "model/cluster_manifest.h"
#include "report/cluster_report.h"
#include "cli/option_checks.h"
#include "core/errors.h"
#include "core/results_file.h"
#include "core/words.h"
#include "cli/loaded_run.h"
#include "model/plan.h"
#include "report/console.h"
#include "report/csv.h"
#include "report/html.h"
#include "report/json_report.h"
#include "report/markdown.h"

namespace fs = std::filesystem;

namespace dlcbench::cli {
namespace {

std::string render(const LoadedRun& run, const std::string& format, bool details, const std::string& dir) {
  if (format == "console")
    return fmt::format("run {} ({})\n", run.manifest.run_id.empty() ? "?" : run.manifest.run_id,
                       run_status_text(run.analysis.status)) +
           (details ? render_console(run.analysis)
                    : render_answer(run.analysis, fmt::format("dlcbench report {} --details", dir)));
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
  auto details = std::make_shared<bool>(false);
  cmd->add_option("dir", *dir, "A results/<run-id> folder")->required()->check(not_empty("a results/<run-id> folder"));
  cmd->add_option("--format", *format,
                  "console, md (Markdown tables), csv (one row per sample), json (all statistics) or html (one "
                  "self-contained file with charts)")
      ->check(CLI::IsMember({"console", "md", "csv", "json", "html"}))
      ->capture_default_str();
  cmd->add_flag("--details", *details,
                "On the console, everything: each case's statistics, every comparison in full, the counters, "
                "isolation differences, disturbed runs, summaries and notes (the default is the answer alone; "
                "md, json and html always hold everything)");
  cmd->add_option("-o,--output", *output, "Write to this file instead of standard output (- for standard output)")
      ->check(not_empty("a file to write, or - for standard output"));
  cmd->callback([=, &exit_code] {
    exit_code = exit_code_of([&] {
      if (is_cluster_run(*dir)) return report_cluster(*dir, *format, *output);
      const LoadedRun run = load_run(*dir);
      for (const auto& note : run.analysis.notes)
        if (*format != "console") std::cerr << "note: " << note << "\n";
      write_output(render(run, *format, *details, *dir), *output);
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
}

}  // namespace dlcbench::cli
