// The worker's options, shared by dlcbench-worker (which parses them) and the
// orchestrator's tests (which check every argument vector a plan makes).
#include "cli/worker_options.h"

#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/option_checks.h"
#include "core/errors.h"
#include "workloads/registry.h"

namespace dlcbench::cli {

CLI::App* add_worker_options(CLI::App& app, WorkerOptions& options) {
  auto* cmd = app.add_subcommand("worker", "Run one case here and print JSON lines (used by `run`)");
  CaseSpec& s = options.spec;
  cmd->add_option("--case", "The case as `dlcbench run` hands it over: one JSON object, as the manifest's plan "
                            "records each case (instead of --workload, --backend and the rest)")
      // Read once, as it is checked: the case it holds is the worker's.
      ->check(checked_by([&s](const std::string& text) { s = worker_case_from_json(text); }));
  cmd->add_option("--workload", s.workload, "Workload name (see `dlcbench list`)")
      ->check(not_empty("a workload (see `dlcbench list`)") & checked_by(validate_workload_name))
      ->capture_default_str();
  cmd->add_option("--backend", s.backend, "Back end name")
      ->check(not_empty("a back end") & checked_by(validate_backend_name))
      ->capture_default_str();
  cmd->add_option("--device", s.device, "cpu or gpu")->check(CLI::IsMember({"cpu", "gpu"}))->capture_default_str();
  cmd->add_option("--batch", s.batch, "Mini-batch size")->check(whole_number_in(1, kMaxBatch))->capture_default_str();
  cmd->add_option("--warmup", s.warmup, "Warm-up steps, reported apart")
      ->check(whole_number_in(0, kMaxIters))
      ->capture_default_str();
  cmd->add_option("--iters", s.iters, "Measured steps")->check(whole_number_in(1, kMaxIters))->capture_default_str();
  cmd->add_option("--threads", s.threads, "Compute threads")
      ->check(whole_number_in(1, kMaxThreads))
      ->capture_default_str();
  cmd->add_option("--seed", s.seed, "Seed for weights, shuffling and synthetic data")
      ->check(whole_number_in(0, std::numeric_limits<long>::max()))
      ->capture_default_str();
  cmd->add_option("--input", s.input, "memory, or disk: each step reads its batch from the data files (timed)")
      ->check(CLI::IsMember({"memory", "disk"}))
      ->capture_default_str();
  cmd->add_option("--data", options.data,
                  "Data folder (or its parent), or `synthetic` for random data of the same shape")
      ->check(not_empty("a data folder or synthetic"))
      ->capture_default_str();
  cmd->add_option("--variant", s.variant, "Micro-benchmarks: the variant, e.g. sgemm, triad, write")
      ->check(not_empty("a variant (see `dlcbench list`)"));
  cmd->add_option("--size", s.size, "Micro-benchmarks: matrix order, grid edge, elements per array or file bytes")
      ->check(whole_number_in(1, kMaxMicroSize));
  cmd->add_option("--block", s.block, "io-seq, io-lat: bytes per request")
      ->check(whole_number_in(1, std::numeric_limits<int>::max()));
  cmd->add_option("--mode", s.io_mode, "io-seq: direct or buffered")->check(CLI::IsMember({"direct", "buffered"}));
  cmd->add_option("--path", options.path, "io-seq, io-lat: the folder to write the scratch file in")
      ->check(not_empty("a folder"));
  cmd->add_option("--listen", options.listen, "serve: the IPv4 address the server listens on")
      ->check(CLI::ValidIPV4)
      ->capture_default_str();
  cmd->add_flag("--fingerprint-only", options.fingerprint_only,
               "Print the environment's fingerprint (no data, no model) and exit");
  cmd->add_flag("--hold-samples", options.hold_samples,
                "Print the measured batches' sample lines when the measured phase ends, not as each is timed");
  cmd->add_option("--count-pause", options.count_pause,
                  "Seconds to wait after the measured phase's first line and after its phase_end line, for a "
                  "counting launch's counters to open and close around the phase (0: no waits)")
      ->check(CLI::Range(0.0, 10.0));
  cmd->add_flag("!--no-accounting", options.accounting,
                "Leave out the accounting of the measured phase (for measuring what it costs)");
  // Accepted for symmetry with the design's command line; output is always JSON lines.
  cmd->add_flag("--json", options.json, "Print JSON lines (the only format)");
  return cmd;
}

CaseSpec worker_case_from_json(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) throw UsageError("give the case as one JSON object, as `dlcbench run` does");
  CaseSpec spec;
  try {
    spec = j.get<CaseSpec>();
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("the case cannot be read: {}", e.what()));
  }
  check_worker_case(spec);
  return spec;
}

void check_worker_case(const CaseSpec& spec) {
  if (spec.workload == kStartupWorkload)
    throw UsageError("the startup workload is timed by `dlcbench run` around each start, not inside a worker");
  validate_case_names(spec.workload, spec.backend, spec.device);
  check_worker_case_counts(spec);
}

}  // namespace dlcbench::cli
