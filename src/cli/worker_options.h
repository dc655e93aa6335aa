// The worker's options, declared once: `dlcbench worker` parses them, and a
// test checks that every argument vector `run` plans for a worker passes
// their checks.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "core/case_spec.h"
#include "data/dataset.h"

namespace dlcbench::cli {

struct WorkerOptions {
  CaseSpec spec;
  std::string data = default_data_root().string();
  std::string path;  // io micro-benchmarks: the folder as this environment sees it
  bool json = true;
  bool fingerprint_only = false;
  // Off only to measure what the accounting costs (bench/accounting_overhead).
  bool accounting = true;
  // Sample lines of the measured phase printed when it ends (`run --hold-samples`).
  bool hold_samples = false;
  // A counting launch (`run` with the syscall table): the seconds the worker
  // waits after saying its measured phase begins, and after a "phase_end"
  // line when it ends, so that the orchestrator's counters open and close
  // around exactly the phase. 0: no waits (every timed launch).
  double count_pause = 0;
  // serve: the address the server listens on (0.0.0.0 in a network
  // namespace of its own, so the host reaches it through its interface).
  std::string listen = "127.0.0.1";
};

// Adds the `worker` subcommand with its options bound to `options` (which
// must outlive `app`), and no callback. The case comes either as one typed
// JSON object, --case, the way `dlcbench run` hands it over, or option by
// option (--workload, --backend, ...), the way a person gives it.
CLI::App* add_worker_options(CLI::App& app, WorkerOptions& options);

// The case of `--case JSON` (CaseSpec's JSON), every field checked as the
// worker's options check theirs. Throws UsageError naming the field.
CaseSpec worker_case_from_json(const std::string& text);

// What every case must satisfy before a worker runs it, whichever way it
// came: counts in range, names that exist. Throws UsageError.
void check_worker_case(const CaseSpec& spec);

}  // namespace dlcbench::cli
