// `dlcbench worker`: runs one case in the current environment and prints JSON
// lines on stdout: a fingerprint, then one sample per mini-batch, then a
// summary. The orchestrator starts it on the host or inside a container; it
// never knows which.
#include <unistd.h>

#include <cblas.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <vector>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "backends/inference.h"
#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/worker_options.h"
#include "core/accounting.h"
#include "core/allocator.h"
#include "core/errors.h"
#include "core/fingerprint.h"
#include "core/timer.h"
#include "core/syscall_counter.h"
#include "data/example_reader.h"
#include "data/token_reader.h"
#include "data/training_data.h"
#include "gpu/gpu_loader.h"
#include "workloads/micro/micro_workloads.h"
#include "workloads/registry.h"
#include "workloads/serve/server.h"

namespace dlcbench::cli {
namespace {

// --hold-samples: the measured phase's sample lines, held until it ends, so
// the orchestrator reads and writes nothing while the batches are timed. A
// process-wide setting, as stdout is.
bool g_hold_samples = false;
std::vector<std::string> g_held_samples;
// --count-pause: the waits around the measured phase of a counting launch.
double g_count_pause = 0;

void count_pause() {
  if (g_count_pause > 0) std::this_thread::sleep_for(std::chrono::duration<double>(g_count_pause));
}

// Where a counting launch's window opens and closes, in a trace of every
// call (runsc --strace): an access(2) of a path that names it, which fails.
void count_marker(const char* path) {
  if (g_count_pause > 0) [[maybe_unused]] const int ignored = ::access(path, F_OK);
}

void write_line(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

void emit(const nlohmann::json& line) {
  const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (g_hold_samples && line.value("type", "") == "sample" && line.value("phase", "") == "measured") {
    g_held_samples.push_back(text);
    return;
  }
  write_line(text);
}

// The end of the measured phase: its accounting first (the orchestrator
// reads the machine from outside when that line arrives), then the samples
// held back.
void end_measured_phase(std::optional<PhaseAccounting>& accounting, int batches) {
  if (g_count_pause > 0) {
    count_marker(kCountWindowClose);
    emit({{"type", "phase_end"}, {"batches", batches}});
    count_pause();
  }
  if (accounting) emit(accounting->finish(batches));
  for (const auto& text : g_held_samples) write_line(text);
  g_held_samples.clear();
}

// The line tells the orchestrator the measured phase begins, so it reads
// the environment's helper processes from outside over the same phase.
void start_measured_phase(PhaseAccounting& accounting) {
  emit({{"type", "phase"}, {"phase", "measured"}});
  count_pause();
  count_marker(kCountWindowOpen);
  accounting.start();
}

// --input disk: each step's batch read from the data set's files. Examples
// (MNIST, CIFAR-10) in a seeded shuffled order, one read per example; text
// (PTB format) one read per batch column, laid out as batchify() lays out the
// stream in memory, so both modes train on the same windows.
struct DiskBatches {
  DiskBatches() = default;
  DiskBatches(const WorkloadInfo& workload, const std::string& data, const CaseSpec& spec)
      : batch(static_cast<std::size_t>(spec.batch)) {
    if (data == kSyntheticData)
      throw UsageError("--input disk reads batches from the data set's files; synthetic data has none: pass --data");
    if (const auto* lstm = std::get_if<models::LstmSpec>(&workload.model.architecture)) {
      text = std::make_unique<TokenReader>(data);
      sequence = static_cast<std::size_t>(lstm->sequence);
      // The same layout and checks as the in-memory path.
      TokenBatches layout = batchify(text->corpus().train, batch);
      steps = layout.steps;
      windows = windows_per_epoch(layout, sequence);
      column.resize(sequence + 1);
      input.resize(sequence * batch);
      target.resize(sequence * batch);
      return;
    }
    examples = open_example_reader(workload.dataset(), data);
    order.resize(examples->count());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::mt19937_64 rng(spec.seed);
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
    features.resize(batch * examples->example_size());
    labels.resize(batch);
  }

  bool active() const { return examples || text; }

  // Reads step `index`'s batch and hands it to the session.
  void load(std::size_t index, TrainingSession& session) {
    if (examples) {
      for (std::size_t k = 0; k < batch; ++k)
        labels[k] = examples->read(order[(index * batch + k) % order.size()], &features[k * examples->example_size()]);
      session.load_examples(features.data(), labels.data());
      return;
    }
    const std::size_t start = (index % windows) * sequence;
    for (std::size_t b = 0; b < batch; ++b) {
      text->read(b * steps + start, sequence + 1, column.data());
      for (std::size_t t = 0; t < sequence; ++t) {
        input[t * batch + b] = column[t];
        target[t * batch + b] = column[t + 1];
      }
    }
    session.load_tokens(index, input.data(), target.data());
  }

  std::size_t batch = 0;
  std::unique_ptr<ExampleReader> examples;
  std::vector<std::size_t> order;
  std::vector<float> features;
  std::vector<std::int64_t> labels;
  std::unique_ptr<TokenReader> text;
  std::size_t sequence = 0, steps = 0, windows = 0;
  std::vector<std::int64_t> column, input, target;
};

// The folders whose file systems the fingerprint records: the data folder
// (none for synthetic data) and where the worker writes, --path or else the
// temp folder.
FingerprintPaths fingerprint_paths(const WorkerOptions& o) {
  FingerprintPaths paths;
  if (o.data != kSyntheticData) paths.data = o.data;
  std::error_code ec;
  paths.scratch = o.path.empty() ? std::filesystem::temp_directory_path(ec) : std::filesystem::path(o.path);
  if (ec) paths.scratch.clear();
  return paths;
}

// The environment's fingerprint, after the allocator's settings are pinned
// (before anything is allocated for the work), with them.
nlohmann::json pinned_fingerprint(const WorkerOptions& o) {
  const nlohmann::json allocator = pin_allocator_settings();
  auto fingerprint = environment_fingerprint(fingerprint_paths(o));
  fingerprint["type"] = "fingerprint";
  fingerprint["allocator"] = allocator;
  return fingerprint;
}

// A micro-benchmark: set up (untimed, checks first), then one sample line per
// timed operation, with the work it did so reports can give GFLOP/s or GB/s.
int run_micro_worker(const WorkerOptions& o, const MicroWorkloadInfo& info, std::optional<PhaseAccounting>& accounting) {
  CaseSpec spec = o.spec;
  spec.backend = "none";  // as planned: a micro-benchmark has no back end or mini-batch (but the loader's)
  const bool loader = spec.workers > 0;
  if (!loader) spec.batch = 0;
  if (spec.size < 1) throw UsageError(fmt::format("{} needs --size (a matrix order, elements or bytes)", info.name));
  auto fingerprint = pinned_fingerprint(o);
  if (o.fingerprint_only) {
    emit(fingerprint);
    return kExitOk;
  }
  if (info.io && o.path.empty()) throw UsageError(fmt::format("{} needs --path: the folder to write in", info.name));
  Stopwatch setup_clock;
  MicroParams params = micro_params(spec, o.path);
  if (loader) {
    if (o.data == kSyntheticData)
      throw UsageError("loader reads a data set's files: give --data (see `dlcbench data fetch`)");
    params.examples = open_example_reader(spec.variant, o.data);
  }
  auto benchmark = info.make(params);
  fingerprint["case_spec"] = spec;
  // Again, now that the benchmark has loaded what it uses (cuBLAS and the
  // CUDA runtime for the GPU ones), so those are compared too.
  fingerprint["libraries"] = loaded_libraries();
  fingerprint["micro"] = benchmark->describe();
  fingerprint["micro"]["setup_seconds"] = setup_clock.seconds();
  emit(fingerprint);

  double measured_sum = 0;
  for (int i = 0; i < spec.warmup + spec.iters; ++i) {
    const bool warmup = i < spec.warmup;
    if (i == spec.warmup && accounting) start_measured_phase(*accounting);
    MicroResult result;
    const double cpu_before = process_cpu_seconds();
    try {
      result = benchmark->run();
    } catch (const ValidationError& e) {
      // The operation's result is wrong: no sample counts, the launch fails.
      emit({{"type", "error"}, {"kind", "validation"}, {"iter", i}, {"message", e.what()}});
      std::cerr << "dlcbench worker: " << info.name << " failed its check: " << e.what() << "\n";
      return kExitFailure;
    }
    if (!warmup) measured_sum += result.seconds;
    emit(micro_sample_record(result, i, spec.warmup, process_cpu_seconds() - cpu_before));
  }
  end_measured_phase(accounting, spec.iters);
  emit({{"type", "done"},
        {"measured", spec.iters},
        {"mean_seconds", measured_sum / spec.iters},
        {"unit", info.unit(spec.variant)}});
  return kExitOk;
}

// serve: the server, answering the load generator that `run` starts on the
// host. The worker times nothing here: the requests are timed where they
// are sent. Its lines are the fingerprint, where it listens, and the
// measured phase's accounting (between the generator's start_measuring and
// shutdown messages).
int run_serve_worker(const WorkerOptions& o, std::optional<PhaseAccounting>& accounting) {
  const CaseSpec& spec = o.spec;
  const WorkloadInfo* network = find_workload(spec.variant);
  if (!network) throw UsageError(fmt::format("serve/{}: valid networks are fcn5, alexnet, resnet56 and lstm", spec.variant));
  auto fingerprint = pinned_fingerprint(o);
  if (o.fingerprint_only) {
    emit(fingerprint);
    return kExitOk;
  }
  Stopwatch setup_clock;
  // One request per inference thread, each single-threaded: a BLAS pool of
  // several threads per call would have the threads of concurrent requests
  // compete for the same cores (and OpenBLAS serialises its callers).
  openblas_set_num_threads(1);
  const InferenceModel model = make_inference_model(spec.backend, network->model);
  fingerprint["case_spec"] = spec;
  fingerprint["libraries"] = loaded_libraries();
  fingerprint["micro"] = {{"benchmark", kServeWorkload},
                          {"network", network->model.name},
                          {"parameters", network->model.parameter_count()},
                          {"library", model.library},
                          {"inference_threads", spec.workers},
                          {"intra_op_threads", 1},
                          {"batch", 1},
                          {"input_floats", model.input_floats},
                          {"listen", o.listen},
                          {"setup_seconds", setup_clock.seconds()}};
  emit(fingerprint);
  serve::ServerEvents events;
  events.listening = [](std::uint16_t port, const std::vector<std::string>& addresses) {
    emit({{"type", "listening"}, {"port", port}, {"addresses", addresses}});
  };
  events.start_measuring = [&accounting] {
    if (accounting) start_measured_phase(*accounting);
  };
  events.shutdown = [&accounting, &spec](std::uint64_t served) {
    end_measured_phase(accounting, spec.iters);
    emit({{"type", "done"}, {"measured", spec.iters}, {"served", served}, {"unit", "ms"}});
  };
  serve::run_server({spec.workers, o.listen, 0, model.input_floats}, model.infer, events);
  return kExitOk;
}

// The timed steps of a training case: warm-up, then measured, each a
// sample line (its batch read inside the step with --input disk), the
// accounting of the measured phase, and the "done" line.
void train_and_emit(const CaseSpec& spec, TrainingSession& session, DiskBatches& disk,
                    std::optional<PhaseAccounting>& accounting, const std::string& unit) {
  const int total = spec.warmup + spec.iters;
  double measured_sum = 0;
  for (int i = 0; i < total; ++i) {
    const auto index = static_cast<std::size_t>(i);
    if (i == spec.warmup && accounting) start_measured_phase(*accounting);
    double read_seconds = 0;
    const double cpu_before = process_cpu_seconds();
    Stopwatch step_clock;
    if (disk.active()) {
      // Reading the batch is part of the step: that is what --input disk measures.
      disk.load(index, session);
      read_seconds = step_clock.seconds();
    } else {
      session.load_batch(index);
      step_clock.restart();
    }
    const double loss = session.train_step();
    const double seconds = step_clock.seconds();
    const double cpu_seconds = process_cpu_seconds() - cpu_before;
    const bool warmup = i < spec.warmup;
    if (!warmup) measured_sum += seconds;
    nlohmann::json sample = {{"type", "sample"},
                             {"phase", warmup ? "warmup" : "measured"},
                             {"iter", warmup ? i : i - spec.warmup},
                             {"seconds", seconds},
                             {"cpu_seconds", cpu_seconds},
                             {"loss", std::isfinite(loss) ? nlohmann::json(loss) : nlohmann::json()}};
    if (disk.active()) sample["read_seconds"] = read_seconds;
    if (auto detail = session.step_detail(); !detail.empty()) sample["detail"] = std::move(detail);
    emit(sample);
  }
  end_measured_phase(accounting, spec.iters);
  emit({{"type", "done"},
        {"measured", spec.iters},
        {"mean_seconds", measured_sum / spec.iters},
        {"unit", unit}});
}

int run_worker(const WorkerOptions& o) {
  const CaseSpec& spec = o.spec;
  check_worker_case(spec);
  // Before anything starts a thread (the back end's pools, BLAS): the
  // counters it opens are inherited only by threads started after.
  std::optional<PhaseAccounting> accounting;
  if (o.accounting && !o.fingerprint_only) accounting.emplace();
  g_hold_samples = o.hold_samples;
  g_count_pause = o.count_pause;
  if (spec.serves()) return run_serve_worker(o, accounting);
  if (const MicroWorkloadInfo* micro = find_micro_workload(spec.workload))
    return run_micro_worker(o, *micro, accounting);
  const WorkloadInfo& workload = *find_workload(spec.workload);
  const nlohmann::json allocator = pin_allocator_settings();  // before anything is allocated for training

  // The cuda back end lives in the CUDA plugin, which the GPU loader opens.
  auto backend = spec.backend == "cuda" ? gpu_plugin().make_backend(spec.threads) : make_backend(spec.backend, spec.threads);
  if (o.fingerprint_only) {
    // The environment's part, for the like-for-like check before a run.
    auto fingerprint = environment_fingerprint(fingerprint_paths(o));
    fingerprint["type"] = "fingerprint";
    fingerprint["backend"] = backend->describe();
    fingerprint["allocator"] = allocator;
    emit(fingerprint);
    return kExitOk;
  }
  Stopwatch load_clock;
  const TrainingData data = load_training_data(workload.model.data_need(), o.data, spec.batch, spec.seed);
  const double load_seconds = load_clock.seconds();

  auto session = backend->prepare(workload, data, spec);

  auto fingerprint = environment_fingerprint(fingerprint_paths(o));
  fingerprint["type"] = "fingerprint";
  // "case" itself is the orchestrator's key (the case id on every line).
  fingerprint["case_spec"] = spec;
  fingerprint["backend"] = backend->describe();
  fingerprint["allocator"] = allocator;
  fingerprint["model"] = {{"name", workload.model.name}, {"parameters", session->parameter_count()}};
  fingerprint["dataset"] = describe(data);
  // The bits trained on, compared across environments like the rest: a
  // container given other files (or files changed between launches) differs.
  if (o.data != kSyntheticData)
    fingerprint["dataset"]["sha256"] =
        data_files_digest(workload.model.dataset, training_data_folder(workload.model.data_need(), o.data));
  fingerprint["dataset"]["load_seconds"] = load_seconds;
  emit(fingerprint);

  DiskBatches disk;
  if (spec.input == "disk") disk = DiskBatches(workload, o.data, spec);

  train_and_emit(spec, *session, disk, accounting, workload.unit);
  return kExitOk;
}

}  // namespace

void add_worker_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<WorkerOptions>();
  CLI::App* cmd = add_worker_options(app, *options);
  cmd->callback([options, &exit_code] {
    try {
      exit_code = run_worker(*options);
    } catch (const UsageError& e) {
      emit({{"type", "error"}, {"kind", "usage"}, {"message", e.what()}});
      std::cerr << "dlcbench worker: " << e.what() << "\n";
      exit_code = kExitUsage;
    } catch (const ValidationError& e) {
      emit({{"type", "error"}, {"kind", "validation"}, {"message", e.what()}});
      std::cerr << "dlcbench worker: " << e.what() << "\n";
      exit_code = kExitFailure;
    } catch (const IoError& e) {
      emit({{"type", "error"}, {"kind", "io"}, {"message", e.what()}});
      std::cerr << "dlcbench worker: " << e.what() << "\n";
      exit_code = kExitFailure;
    } catch (const GpuError& e) {
      // No GPU, no driver, busy, out of memory: the case fails with the cause.
      emit({{"type", "error"}, {"kind", "gpu"}, {"message", e.what()}});
      std::cerr << "dlcbench worker: " << e.what() << "\n";
      exit_code = kExitFailure;
    } catch (const DataError& e) {
      emit({{"type", "error"}, {"kind", "data"}, {"message", e.what()}});
      std::cerr << "dlcbench worker: " << e.what() << "\n";
      exit_code = kExitUsage;
    } catch (const std::bad_alloc&) {
      // Far too large a batch or size: an allocation the environment cannot
      // give, named as such rather than as an internal error.
      const CaseSpec& spec = options->spec;
      const std::string message =
          spec.micro() ? fmt::format("out of memory: {} with size {} needs more memory than this environment can "
                                     "give; give a smaller size",
                                     spec.workload, spec.size)
                       : fmt::format("out of memory: {} with --batch {} needs more memory than this environment can "
                                     "give; give a smaller --batch",
                                     spec.workload, spec.batch);
      emit({{"type", "error"}, {"kind", "memory"}, {"message", message}});
      std::cerr << "dlcbench worker: " << message << "\n";
      exit_code = kExitFailure;
    } catch (const std::exception& e) {
      emit({{"type", "error"}, {"kind", "internal"}, {"message", e.what()}});
      std::cerr << "dlcbench worker: " << e.what() << "\n";
      exit_code = kExitFailure;
    }
  });
}

}  // namespace dlcbench::cli
