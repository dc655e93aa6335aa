// `dlcbench gate RUN --max-overhead 3%`: a CI pipeline's verdict on a run
// (analysis/gate.h): exit 0 when every comparison is within the margin, 4
// when one is slower beyond it, 5 when the run cannot tell; never a pass
// for a run with no comparison or a missing environment (1), or one not
// like for like (3). One line per comparison, and JUnit XML with --junit.
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "analysis/gate.h"
#include "cli/commands.h"
#include "cli/loaded_run.h"
#include "cli/option_checks.h"
#include "core/errors.h"
#include "core/results_file.h"
#include "core/units.h"
#include "report/gate_report.h"
#include "store/results_store.h"

namespace dlcbench::cli {
namespace {

struct GateOptions {
  std::string run, max_overhead, reference, store, junit, case_id;
};

// The stored run `reference` names ("latest": the newest of this machine's
// other runs), as overheads per case and environment.
std::map<std::string, GateReference> references_of(const GateOptions& o, const LoadedRun& run) {
  std::map<std::string, GateReference> out;
  if (o.reference.empty()) return out;
  const auto where = store_location(o.store, false);
  if (!where) throw UsageError("--reference needs a store: give --store PATH (it is off)");
  const auto store = open_store(*where);
  const auto runs = store->runs();
  const StoredRun* chosen = nullptr;
  const std::string machine = run.manifest.orchestrator.value("hostname", "");
  for (const auto& r : runs) {
    if (o.reference == "latest" ? (r.machine == machine && r.run_id != run.manifest.run_id) : r.run_id == o.reference)
      chosen = &r;  // runs are oldest first: the last match is the newest
  }
  if (!chosen)
    throw UsageError(o.reference == "latest"
                         ? fmt::format("--reference latest: {} holds no other run of this machine ({})",
                                       store->description(), machine)
                         : fmt::format("--reference {}: no such run in {} (`dlcbench store list` shows them)",
                                       o.reference, store->description()));
  for (const auto& c : chosen->comparisons) out[gate_key(c.case_id, c.env)] = {chosen->run_id, c.headline};
  return out;
}

int gate(const GateOptions& o) {
  const double margin = parse_share("--max-overhead", o.max_overhead, "an overhead");
  const LoadedRun run = load_run(o.run);
  if (!o.case_id.empty()) {
    bool known = false;
    std::vector<std::string> cases;
    for (const auto& c : run.analysis.cases) {
      known = known || c.case_id == o.case_id;
      cases.push_back(c.case_id);
    }
    if (!known)
      throw UsageError(fmt::format("--case {}: the run has no such case; it has {}", o.case_id, fmt::join(cases, ", ")));
  }
  GateResult g = gate_run(run.analysis, run.manifest, margin, references_of(o, run));
  if (!o.case_id.empty()) {
    std::erase_if(g.checks, [&](const GateCheck& c) { return c.case_id != o.case_id; });
    g.no_comparison = g.checks.empty();
  }
  for (const auto& line : gate_lines(g)) std::cout << line << "\n";
  if (!o.junit.empty()) {
    std::ofstream out(o.junit);
    out << gate_junit(g, run.manifest.run_id);
    if (!out) throw UsageError(fmt::format("--junit {}: cannot write it", o.junit));
  }
  bool not_compared = g.not_comparable, fail = false, unsure = false;
  for (const auto& c : g.checks) {
    not_compared = not_compared || c.outcome == GateOutcome::not_compared;
    fail = fail || c.outcome == GateOutcome::fail;
    unsure = unsure || c.outcome == GateOutcome::cannot_tell;
  }
  if (not_compared) return kExitNotComparable;
  if (g.no_comparison || !g.missing.empty()) return kExitFailure;
  if (fail) return kExitGateFailed;
  if (unsure) return kExitGateCannotTell;
  return kExitOk;
}

}  // namespace

void add_gate_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("gate", "Pass or fail a run for a CI pipeline: every overhead within a margin");
  auto o = std::make_shared<GateOptions>();
  cmd->add_option("run", o->run, "The results/<run-id> folder")->required()->check(not_empty("a run folder"));
  cmd->add_option("--max-overhead", o->max_overhead,
                  "The margin: a comparison passes when its 95% interval lies below +this, e.g. 3%")
      ->required();
  cmd->add_option("--reference", o->reference,
                  "Judge the growth of each overhead against this stored run (a run id, or latest: the newest "
                  "other run of this machine)")
      ->check(not_empty("a stored run's id, or latest"));
  cmd->add_option("--store", o->store, "The store --reference reads (default: DLCBENCH_STORE, else the default store)")
      ->check(not_empty("a SQLite file path or a postgresql:// URL"));
  cmd->add_option("--junit", o->junit, "Also write the checks as JUnit XML to this file")
      ->check(not_empty("a file to write"));
  cmd->add_option("--case", o->case_id, "Only this case's comparisons")->check(not_empty("a case id"));
  cmd->callback([o, &exit_code] { exit_code = exit_code_of([&] { return gate(*o); }); });
}

}  // namespace dlcbench::cli
