// `dlcbench history`: per machine, case and environment, the stored runs'
// overheads over time, with each change point's size, interval and the
// facts that changed with it (analysis/history.h), in the format asked for.
#include <iostream>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/loaded_run.h"
#include "cli/option_checks.h"
#include "core/errors.h"
#include "core/units.h"
#include "report/history_report.h"
#include "store/history_series.h"
#include "store/results_store.h"

namespace dlcbench::cli {
namespace {

struct HistoryOptions {
  std::string store, machine, case_id, env, alpha = "5%", format = "console", output;
};

// Refuses a filter that matches nothing, naming what there is.
void check_filter(const std::vector<StoredRun>& runs, const std::string& option, const std::string& given,
                  bool by_case) {
  if (given.empty()) return;
  std::set<std::string> known;
  for (const auto& r : runs)
    for (const auto& c : r.comparisons) known.insert(by_case ? c.case_id : c.env);
  if (known.contains(given)) return;
  throw UsageError(fmt::format("{} {}: no stored run compares it; the store has {}", option, given,
                               known.empty() ? std::string("no comparison") : fmt::format("{}", fmt::join(known, ", "))));
}

int history(const HistoryOptions& o) {
  const double alpha = parse_share("--alpha", o.alpha, "a false-alarm rate");
  const auto where = store_location(o.store, false);
  if (!where) throw UsageError("--store off leaves no history to read: give a SQLite path or a postgresql:// URL");
  const auto store = open_store(*where);
  const auto runs = store->runs({o.machine});
  if (runs.empty())
    throw UsageError(fmt::format("{} holds no runs{}: every completed `dlcbench run` adds itself, and `dlcbench store "
                                 "add DIR...` adds folders made before",
                                 store->description(), o.machine.empty() ? "" : " of --machine " + o.machine));
  check_filter(runs, "--case", o.case_id, true);
  check_filter(runs, "--env", o.env, false);
  const History h = analyze_history(history_series(runs, {o.case_id, o.env}), alpha);
  const std::string name = store->description();
  const std::string text = o.format == "json"   ? history_json(h, name).dump(2) + "\n"
                           : o.format == "md"   ? render_history_markdown(h, name)
                           : o.format == "html" ? render_history_html(h, name)
                                                : render_history(h, name);
  write_output(text, o.output);
  return kExitOk;
}

}  // namespace

void add_history_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("history", "The stored runs' overheads over time, with the changes between them");
  auto o = std::make_shared<HistoryOptions>();
  cmd->add_option("--store", o->store,
                  "A SQLite file or a postgresql:// URL (default: DLCBENCH_STORE, else "
                  "~/.local/share/dlcbench/store.sqlite)")
      ->check(not_empty("a SQLite file path or a postgresql:// URL"));
  cmd->add_option("--machine", o->machine, "Only this machine's runs (its host name; default: every machine)")
      ->check(not_empty("a host name"));
  cmd->add_option("--case", o->case_id, "Only this case, e.g. fcn5/torch/cpu/b64")->check(not_empty("a case id"));
  cmd->add_option("--env", o->env, "Only this environment's label, e.g. docker")->check(not_empty("an environment label"));
  cmd->add_option("--alpha", o->alpha,
                  "The false-alarm rate over every change tested, all series together (Holm's method)")
      ->capture_default_str();
  cmd->add_option("--format", o->format, "console, md, json or html (with a trend chart per series)")
      ->check(CLI::IsMember({"console", "md", "json", "html"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o->output, "Write to this file instead of standard output (- for standard output)")
      ->check(not_empty("a file to write, or - for standard output"));
  cmd->callback([o, &exit_code] { exit_code = exit_code_of([&] { return history(*o); }); });
}

}  // namespace dlcbench::cli
