#include "cli/loaded_run.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "core/errors.h"
#include "model/plan.h"

namespace fs = std::filesystem;

namespace dlcbench::cli {

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
    run.analysis = analyze(run.manifest, run.content.records, run.content.line_numbers);
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

}  // namespace dlcbench::cli
