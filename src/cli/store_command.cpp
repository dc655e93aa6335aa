// `dlcbench store add DIR...` and `dlcbench store list`: the results store
// (issue 40), where every completed run is kept for `history` and `gate`.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/loaded_run.h"
#include "cli/option_checks.h"
#include "cli/store_recording.h"
#include "core/errors.h"
#include "store/results_store.h"

namespace dlcbench::cli {
namespace {

namespace fs = std::filesystem;

struct StoreOptions {
  std::string store;
  std::string machine;
  std::string format = "console";
  std::vector<std::string> folders;
};

StoreLocation location_of(const StoreOptions& o) {
  const auto where = store_location(o.store, false);
  if (!where)
    throw UsageError("--store off (or DLCBENCH_STORE=off) leaves no store to use: give a SQLite path or a "
                     "postgresql:// URL");
  return *where;
}

int add(const StoreOptions& o) {
  // A StoreError reaches exit_code_of: "error: ..." and exit 1.
  const auto store = open_store(location_of(o));
  int added = 0, replaced = 0;
  for (const auto& given : o.folders) {
    const auto folders = run_folders(given);
    if (folders.empty())
      throw UsageError(fmt::format("{} is a cluster run whose nodes wrote no run folder yet: add it once its jobs "
                                   "have ended",
                                   given));
    for (const auto& dir : folders) {
      const LoadedRun run = load_run(dir);
      if (!storable(run.manifest.status))
        throw UsageError(fmt::format("{}: the run is {}, not completed: `dlcbench run --resume {}` finishes it, "
                                     "and its end adds it to the store",
                                     dir.string(), run_status_text(run.manifest.status), dir.string()));
      const bool is_new = store->add(run_to_store(run.manifest, run.content.records, run.analysis, dir));
      (is_new ? added : replaced) += 1;
      std::size_t comparisons = 0;
      for (const auto& c : run.analysis.cases) comparisons += c.overheads.size();
      std::cout << fmt::format("{} {} ({} comparisons) from {}\n", is_new ? "added" : "updated",
                               run.manifest.run_id, comparisons, dir.string());
    }
  }
  std::cout << fmt::format("{} added, {} updated in {}\n", added, replaced, store->description());
  return kExitOk;
}

int list(const StoreOptions& o) {
  const auto store = open_store(location_of(o));
  const auto runs = store->runs({o.machine});
  if (o.format == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : runs)
      out.push_back({{"run_id", r.run_id},
                     {"machine", r.machine},
                     {"started_at", r.started_at},
                     {"ended_at", r.ended_at},
                     {"status", r.status},
                     {"baseline", r.baseline},
                     {"calibration", r.calibration},
                     {"comparisons", r.comparisons.size()},
                     {"folder", r.folder}});
    std::cout << nlohmann::json{{"store", store->description()}, {"schema_version", store->schema_version()}, {"runs", out}}.dump(2)
              << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("{}: {} run{}{}\n", store->description(), runs.size(), runs.size() == 1 ? "" : "s",
                           o.machine.empty() ? "" : fmt::format(" on {}", o.machine));
  if (runs.empty()) return kExitOk;
  std::size_t id_width = 6, machine_width = 7;
  for (const auto& r : runs) {
    id_width = std::max(id_width, r.run_id.size());
    machine_width = std::max(machine_width, r.machine.size());
  }
  std::cout << fmt::format("  {:<{}}  {:<{}}  {:<20}  {:>11}  {}\n", "run id", id_width, "machine", machine_width,
                           "ended (UTC)", "comparisons", "folder");
  for (const auto& r : runs)
    std::cout << fmt::format("  {:<{}}  {:<{}}  {:<20}  {:>11}  {}{}\n", r.run_id, id_width, r.machine, machine_width,
                             r.ended_at, r.comparisons.size(), r.folder, r.calibration ? "  (A/A)" : "");
  return kExitOk;
}

}  // namespace

void add_store_command(CLI::App& app, int& exit_code) {
  auto* store = app.add_subcommand("store", "The results store: every completed run, for history and gate");
  store->require_subcommand(1);
  auto o = std::make_shared<StoreOptions>();
  const std::string store_help =
      "A SQLite file or a postgresql:// URL (default: DLCBENCH_STORE, else ~/.local/share/dlcbench/store.sqlite)";

  auto* add_cmd = store->add_subcommand("add", "Add run folders made before (Slurm runs too) to the store");
  add_cmd->add_option("folders", o->folders, "results/<run-id> folders")->required()->check(not_empty("a run folder"));
  add_cmd->add_option("--store", o->store, store_help)->check(not_empty("a SQLite file path or a postgresql:// URL"));
  add_cmd->callback([o, &exit_code] { exit_code = exit_code_of([&] { return add(*o); }); });

  auto* list_cmd = store->add_subcommand("list", "Show the runs the store holds, oldest first");
  list_cmd->add_option("--store", o->store, store_help)->check(not_empty("a SQLite file path or a postgresql:// URL"));
  list_cmd->add_option("--machine", o->machine, "Only this machine's runs (its host name)")
      ->check(not_empty("a host name"));
  list_cmd->add_option("--format", o->format, "console or json")->check(CLI::IsMember({"console", "json"}))->capture_default_str();
  list_cmd->callback([o, &exit_code] { exit_code = exit_code_of([&] { return list(*o); }); });
}

}  // namespace dlcbench::cli
