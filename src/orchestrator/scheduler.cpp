#include "orchestrator/scheduler.h"

#include <algorithm>
#include <cstdint>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "analysis/disturbance.h"
#include "analysis/overhead.h"
#include "model/run_records.h"
#include "core/errors.h"
#include "core/machine_turn.h"
#include "core/process.h"
#include "core/statistics.h"
#include "core/timer.h"
#include "core/words.h"
#include "orchestrator/call_counting.h"
#include "orchestrator/outside_accounting.h"
#include "orchestrator/serve_launch.h"
#include "orchestrator/stopping_rule.h"
#include "workloads/loader/loader.h"
#include "workloads/loader/worker_pool.h"
#include "workloads/command_metric.h"
#include "workloads/micro/micro_workloads.h"
#include "workloads/registry.h"

namespace dlcbench {
namespace {

constexpr std::size_t kStderrInResults = 4096;

// Container names allow [a-zA-Z0-9_.-]; labels such as "docker:image=x" do not.
std::string instance_name(const std::string& run_id, const std::string& label, int round, int launch) {
  std::string safe;
  for (char c : label) safe += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  // A long label (a root file system's path in it) is cut and told apart by
  // a hash of the whole: runsc puts the name in a Unix socket's path, which
  // holds 107 bytes, and fails with "invalid argument" beyond.
  constexpr std::size_t kLongestLabel = 32;
  if (safe.size() > kLongestLabel) {
    std::uint32_t hash = 2166136261u;  // FNV-1a: the same label gets the same name in every run
    for (unsigned char c : label) hash = (hash ^ c) * 16777619u;
    safe = fmt::format("{}-{:08x}", safe.substr(0, kLongestLabel - 9), hash);
  }
  return fmt::format("dlcbench-{}-{}-r{}-{}", run_id, safe, round, launch);
}

std::string format_eta(double seconds) {
  if (!(seconds >= 0)) return "?";
  const auto s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60) : fmt::format("{}m{:02}s", s / 60, s % 60);
}

struct LaunchOutcome {
  ProcessResult result;  // of the worker, or of the first start that failed
  std::vector<double> measured;  // seconds of each measured batch, operation or start
  double work = 0;               // of one micro-benchmark operation (flops, bytes)
  std::string what = "worker";
  std::string instance;  // what cleanup() must remove after a failure
  std::string error;     // the worker's own "error" line: its kind and message
  double timeout_seconds = 0;  // the limit the launch ran under (--case-timeout, or less for a start)
  std::optional<nlohmann::json> accounting;  // the worker's accounting record, with the outside reading
};

// A failed launch in words: the worker's own error line where it printed
// one, and what a bare exit status means where it did not.
// The last line a failed program wrote to stderr, which names its error (a
// Python traceback ends with the exception: "RuntimeError: DataLoader worker
// (pid 27) is killed by signal: Bus error."); "" when it wrote none. The
// engines' closing advice ("Run 'docker run --help' for more information")
// names nothing: the line before it does.
std::string last_stderr_line(const std::string& stderr_tail) {
  std::string text = stderr_tail, line;
  while (!text.empty()) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    const auto newline = text.find_last_of('\n');
    line = newline == std::string::npos ? text : text.substr(newline + 1);
    text = newline == std::string::npos ? "" : text.substr(0, newline);
    const auto start = line.find_first_not_of(" \t");
    line = start == std::string::npos ? "" : line.substr(start);
    if (!line.starts_with("Run '") && !line.starts_with("See '")) break;
  }
  constexpr std::size_t kMost = 400;
  if (line.size() > kMost) line = line.substr(0, kMost) + "...";
  return line;
}

std::string failure_cause(const LaunchOutcome& launched, ScheduledEnvironment& env, int measured, int expected,
                          double case_timeout_seconds) {
  const ProcessResult& result = launched.result;
  if (result.ok() && !launched.error.empty()) return launched.error;
  if (result.ok()) return fmt::format("worker exited normally but printed {} of {} samples", measured, expected);
  if (!launched.error.empty()) return fmt::format("{} ({} {})", launched.error, launched.what, result.describe());
  std::string cause = launched.what + " " + result.describe();
  if (result.timed_out)
    cause += fmt::format(" after {:g} s (--case-timeout {:g}{}): give a longer --case-timeout if the case is this "
                         "slow, or fewer --iters",
                         launched.timeout_seconds, case_timeout_seconds,
                         launched.timeout_seconds < case_timeout_seconds ? ", at most 300 s a start" : "");
  // A container engine's client passes on 128 + signal of what ran inside.
  // The program's own last word, unless the cause has one (a timeout, a
  // signal from outside).
  if (!result.timed_out && result.exit_code != 137)
    if (const std::string said = last_stderr_line(result.stderr_tail); !said.empty()) cause += ": " + said;
  if (result.exit_code == 137 && env.environment->name() != "host") {
    const auto options = env.environment->describe().value("options", nlohmann::json::object());
    // Only a limit that was set can be named as the cause.
    if (options.contains("memory_bytes") && options["memory_bytes"].is_number())
      cause += fmt::format(": SIGKILL inside the container, from the kernel's OOM killer under the container's "
                           "memory limit of {:.0f} MiB or from outside (e.g. `{} kill`)",
                           options["memory_bytes"].get<double>() / (1 << 20), env.environment->name());
    else
      cause += fmt::format(": SIGKILL inside the container, from outside (e.g. `{} kill`) or from the kernel's OOM "
                           "killer when the machine ran out of memory (no memory limit was set for the container)",
                           env.environment->name());
  }
  return cause;
}

// Adds the orchestrator's keys to a worker line; a worker never prints them.
nlohmann::json tag(nlohmann::json record, const std::string& env, int round, const CaseSpec& spec) {
  record["env"] = env;
  record["round"] = round;
  record["case"] = spec.id();
  return record;
}

}  // namespace

WorkerLaunch worker_launch(const Plan& plan, const CaseSpec& spec, std::vector<std::string> args,
                           const ScheduleOptions& options, const std::string& instance) {
  auto env_vars = options.worker_env;
  if (spec.workload == kLoaderWorkload) env_vars.emplace_back(kLoaderTokenVariable, instance);
  return {WorkerLaunch::Program::worker, std::move(args), launch_data(plan, spec), std::move(env_vars),
          spec.io_target, spec.device == "gpu"};
}

namespace {

LaunchOutcome run_worker(const Plan& plan, const CaseSpec& spec, ScheduledEnvironment& env,
                         const std::string& instance, int round, ResultsWriter& results,
                         const ScheduleOptions& options) {
  LaunchOutcome out;
  out.instance = instance;
  std::vector<std::string> args = spec.worker_args();
  if (plan.hold_samples) args.push_back("--hold-samples");
  const bool loader = spec.workload == kLoaderWorkload;
  // The system-call table runs in the static probe (CaseSpec::runs_in_probe).
  const WorkerLaunch launch =
      spec.runs_in_probe() ? probe_work_launch(spec, options.worker_env)
                           : worker_launch(plan, spec, std::move(args), options, instance);
  const LaunchCommand command = env.environment->command(launch, instance);
  const ProcessSpec process = command.process(plan.case_timeout_seconds, options.cancel);
  out.timeout_seconds = plan.case_timeout_seconds;
  OutsideAccounting outside(env.environment->name());
  out.result = run_process(process, [&](std::string_view line) {
    auto record = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (record.is_discarded() || !record.is_object()) record = {{"type", "worker_output"}, {"text", std::string(line)}};
    const std::string type = record.value("type", "");
    if (type == "phase") outside.start();
    // The helpers' CPU over the same phase, read from outside.
    if (type == "accounting") record["outside"] = outside.finish();
    record = tag(std::move(record), env.label, round, spec);
    if (type == "accounting") out.accounting = record;
    if (record.value("type", "") == "sample" && record.value("phase", "") == "measured") {
      out.measured.push_back(record.value("seconds", 0.0));
      out.work = record.value("work", 0.0);
    }
    if (record.value("type", "") == "error")
      out.error = fmt::format("{} error: {}", record.value("kind", "worker"), record.value("message", ""));
    results.append(record);
  });
  // A loader killed (a timeout, Ctrl-C) leaves its batches in flight in the
  // host's /dev/shm (on the host, or with ipc=host): up to workers x prefetch
  // batches of memory. A container's own /dev/shm goes with it.
  if (loader) {
    const auto removed = loader::remove_segments(instance);
    if (!removed.empty())
      results.append(tag({{"type", "cleanup"}, {"what", "loader segments left in /dev/shm"}, {"removed", removed}},
                         env.label, round, spec));
  }
  return out;
}

// A serve case: the server in the environment, the load generator on the
// host (serve_launch.h); the requests' latencies are the samples.
LaunchOutcome run_serve(const Plan& plan, const CaseSpec& spec, ScheduledEnvironment& env,
                        const std::string& instance, int round, ResultsWriter& results,
                        const ScheduleOptions& options) {
  LaunchOutcome out;
  out.instance = instance;
  out.what = "server";
  out.timeout_seconds = plan.case_timeout_seconds;
  ServeRoute route;
  try {
    route = env.environment->prepare_serving();
  } catch (const EnvironmentUnavailable& e) {
    route.why_not = e.what();
  }
  if (route.reach == ServeRoute::Reach::none || options.load_generator.empty()) {
    out.result.exec_error = route.reach == ServeRoute::Reach::none
                                ? route.why_not
                                : std::string("no load generator: dlcbench-worker is not beside dlcbench (rebuild)");
    return out;
  }
  std::vector<std::string> args = spec.worker_args();
  args.insert(args.end(), {"--listen", route.listen});
  WorkerLaunch launch;
  launch.worker_args = std::move(args);
  launch.data = launch_data(plan, spec);
  launch.env = options.worker_env;
  launch.serves = true;
  ServeLaunchSpec serve;
  serve.server = env.environment->command(launch, instance).process(plan.case_timeout_seconds, nullptr);
  serve.load_generator = {options.load_generator.string(), "loadgen", "--case", nlohmann::json(spec).dump(),
                          "--timeout", fmt::format("{:.0f}", plan.case_timeout_seconds)};
  serve.route = route;
  serve.listen_timeout_seconds = std::min(plan.case_timeout_seconds, 300.0);
  OutsideAccounting outside(env.environment->name());
  ServeLaunchResult served = run_serve_launch(serve, options.cancel, outside, [&](nlohmann::json record) {
    results.append(tag(std::move(record), env.label, round, spec));
  });
  out.result = std::move(served.result);
  out.measured = std::move(served.measured);
  out.error = std::move(served.error);
  if (served.accounting) out.accounting = tag(std::move(*served.accounting), env.label, round, spec);
  return out;
}

// The startup workload: the orchestrator times each start of the noop
// program in the environment, from fork to the runtime's exit, so the figure
// is what a user waits for (client, daemon, runtime, namespaces, cgroups).
LaunchOutcome time_starts(const Plan& plan, const CaseSpec& spec, ScheduledEnvironment& env,
                          const std::string& instance, int round, ResultsWriter& results,
                          const ScheduleOptions& options) {
  LaunchOutcome out;
  out.what = "start";
  const double timeout = std::min(plan.case_timeout_seconds, 300.0);
  out.timeout_seconds = timeout;
  for (int i = 0; i < spec.warmup + spec.iters; ++i) {
    WorkerLaunch launch{WorkerLaunch::Program::noop, {}, plan.data, options.worker_env, ""};
    out.instance = fmt::format("{}-s{}", instance, i);
    const LaunchCommand command = env.environment->command(launch, out.instance);
    const ProcessSpec process = command.process(timeout, options.cancel);
    Stopwatch clock;
    out.result = run_process(process, [](std::string_view) {});
    const double seconds = clock.seconds();
    if (!out.result.ok()) return out;
    const bool warmup = i < spec.warmup;
    results.append(tag({{"type", "sample"},
                        {"phase", warmup ? "warmup" : "measured"},
                        {"iter", warmup ? i : i - spec.warmup},
                        {"seconds", seconds}},
                       env.label, round, spec));
    if (!warmup) out.measured.push_back(seconds);
  }
  return out;
}

// Where a command ran, for its error messages: "in image NAME", "in the root
// file system DIR", or "on the host".
std::string where_command_ran(const Environment& environment) {
  const nlohmann::json d = environment.describe();
  if (d.contains("image") && d["image"].is_string()) return fmt::format("in image {}", d["image"].get<std::string>());
  if (d.contains("rootfs") && d["rootfs"].is_string())
    return fmt::format("in the root file system {}", d["rootfs"].get<std::string>());
  return "on the host";
}

// The CPU time dlcbench-probe counted for its command's tree over a phase,
// and its own: the command, and the probe with it, may be gone before the
// orchestrator reads /proc. None under gVisor, whose getrusage is its own
// kernel's.
std::optional<double> command_cpu_inside(const nlohmann::json& accounting) {
  if (accounting.contains("sandbox_kernel") || !accounting.contains("process")) return std::nullopt;
  const auto& process = accounting.at("process");
  const auto user = process.find("user_seconds"), system = process.find("system_seconds");
  if (user == process.end() || system == process.end() || !user->is_number() || !system->is_number())
    return std::nullopt;
  // The probe's own reading of the tree is the environment's, like a worker's accounting.
  double cpu = user->get<double>() + system->get<double>() + accounting.value("probe_cpu_seconds", 0.0);
  // The outside reading ends when the record arrives, after the command's
  // exit: its CPU time after its last iteration is its own too.
  if (const auto tail = accounting.find("after_last_mark"); tail != accounting.end() && tail->is_object())
    cpu += tail->value("cpu_seconds", 0.0);
  return cpu;
}

// A user's command under dlcbench-probe. Without a metric the launch is one
// sample, the command's run from its start to its exit as the probe timed it
// (the environment's start is the startup workload's); with one, each figure the metric
// reads from the output is a sample, the first spec.warmup warm-up. A rate
// (higher is better) is kept as its inverse, seconds per unit, so the
// statistics read as for every other workload (above 1 is slower).
//
// CommandLaunchReader reads what dlcbench-probe prints about the command,
// line by line, into samples and records, and the launch's outcome at its end.
class CommandLaunchReader {
 public:
  CommandLaunchReader(const CaseSpec& spec, ScheduledEnvironment& env, int round, ResultsWriter& results)
      : spec_(spec), command_(spec.command), env_(env), round_(round), results_(results),
        outside_(env.environment->name()) {
    if (command_.metric.source != MetricSpec::Source::wall_time) metric_.emplace(command_.metric);
  }

  void read(std::string_view line) {
    auto record = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    // Not the probe's: what an engine prints before the container starts.
    if (record.is_discarded() || !record.is_object()) {
      append({{"type", "worker_output"}, {"text", std::string(line)}});
      return;
    }
    const std::string type = record.value("type", "");
    if (type == "output") return read_output(record);
    if (type == "phase") outside_.start();
    if (type == "accounting" && record.value("phase", "") == "startup") return read_startup(std::move(record));
    if (type == "accounting") count_phase(record);
    if (type == "command_exit") command_seconds_ = record.value("wall_seconds", nlohmann::json());
    if (type == "output_lines") {
      // The probe sends the first lines and the metric's; this is every line.
      lines_ = std::max(lines_, record.value("stdout", 0) + record.value("stderr", 0));
      return;
    }
    if (type == "libraries") return read_libraries(record);
    if (type == "fingerprint") {
      fingerprint_ = std::move(record);  // written with the libraries, at the end
      return;
    }
    if (type == "error")
      out_.error = fmt::format("{} error: {} ({}, {})", record.value("kind", "probe"), record.value("message", ""),
                               env_.label, where_command_ran(*env_.environment));
    record = tag(std::move(record), env_.label, round_, spec_);
    if (type == "accounting") out_.accounting = record;
    results_.append(record);
  }

  // The launch's outcome once the process ended after `wall` seconds.
  LaunchOutcome finish(ProcessResult result, double wall) {
    out_.result = std::move(result);
    if (!metric_ && out_.result.ok()) {
      // The command's own run, from its start to its exit, as the probe timed
      // it where it ran (hyperfine -N's figure): not the environment's start,
      // which the startup workload measures, nor the probe's own reading
      // before and after. The launch's whole wall time is in command_run.
      const double seconds = command_seconds_.is_number() && command_seconds_.get<double>() > 0
                                 ? command_seconds_.get<double>()
                                 : wall;
      append({{"type", "sample"}, {"phase", "measured"}, {"iter", 0}, {"seconds", seconds}});
      out_.measured.push_back(seconds);
    }
    if (metric_ && out_.result.ok() && out_.measured.empty()) out_.error = metric_error();
    if (refused_count_) append({{"type", "metric_refused"}, {"count", refused_count_}, {"values", refused_}});
    append({{"type", "command_run"},
            {"wall_seconds", wall},
            {"command_seconds", command_seconds_},
            {"first_iteration_seconds", first_iteration_at_},
            {"iterations", iterations_},
            {"output_lines", lines_},
            {"libraries", libraries_count_}});
    return std::move(out_);
  }

 private:
  static constexpr std::size_t kOutputLinesKept = 10;  // in results.jsonl and in a metric's error

  void append(nlohmann::json record) { results_.append(tag(std::move(record), env_.label, round_, spec_)); }

  void read_output(const nlohmann::json& record) {
    const std::string text = record.value("text", "");
    ++lines_;
    if (first_lines_.size() < kOutputLinesKept) {
      first_lines_.push_back(text);
      append({{"type", "command_output"}, {"stream", record.value("stream", "")}, {"text", text}});
    }
    if (!metric_) return;
    const MetricReading reading = metric_->reading(text);
    if (!reading.matched) return;
    // A time or a rate is above zero: anything else is refused, and the
    // launch records what (the report says so once).
    if (!reading.value || !(*reading.value > 0)) {
      if (refused_.size() < kRefusedValuesKept) refused_.push_back(reading.text);
      ++refused_count_;
      return;
    }
    const double value = *reading.value;
    const bool warmup = iterations_ < spec_.warmup;
    const double seconds = command_.metric.higher_is_better ? 1.0 / value : value;
    if (first_iteration_at_.is_null()) first_iteration_at_ = record.value("t", 0.0);
    append({{"type", "sample"},
            {"phase", warmup ? "warmup" : "measured"},
            {"iter", warmup ? iterations_ : iterations_ - spec_.warmup},
            {"seconds", seconds},
            {"value", value},
            // A rate's "operation" is one unit: its figure is 1 / seconds.
            {"work", command_.metric.higher_is_better ? 1.0 : 0.0},
            {"t", record.value("t", 0.0)}});
    if (!warmup) out_.measured.push_back(seconds);
    ++iterations_;
  }

  // The command's start-up, up to the line that ended its last warm-up
  // iteration: kept apart, and the measured phase counts from here.
  void read_startup(nlohmann::json record) {
    record["outside"] = outside_.finish(command_cpu_inside(record));
    outside_.start();
    iterations_at_startup_ = iterations_;
    append({{"type", "command_startup"},
            {"seconds", record.value("wall_end", 0.0) - record.value("wall_start", 0.0)},
            {"iterations", iterations_},
            {"accounting", std::move(record)}});
  }

  void count_phase(nlohmann::json& record) {
    record["outside"] = outside_.finish(command_cpu_inside(record));
    if (!metric_) return;
    // Per iteration: those after the start-up (or, where the probe could
    // not tell it apart, every one, with the start-up spread over them).
    record["batches"] = std::max(1, iterations_ - iterations_at_startup_.value_or(0));
    // None for a tool that prints one figure at its end (sysbench): the
    // phase after it is the tool's exit, not its work.
    record["figures_in_phase"] = iterations_ - iterations_at_startup_.value_or(0);
  }

  void read_libraries(nlohmann::json& record) {
    libraries_count_ = record["libraries"].value("count", 0);
    // The launch's fingerprint with what its processes loaded, as the
    // preflight's: each round's is compared with the first's.
    if (!fingerprint_.is_object()) return;
    fingerprint_["command_libraries"] = record["libraries"];
    results_.append(tag(std::move(fingerprint_), env_.label, round_, spec_));
    fingerprint_ = nullptr;
  }

  std::string metric_error() const {
    std::string shown;
    for (const auto& l : first_lines_) shown += "\n      " + l;
    const bool all_warmup = iterations_ > 0;
    return fmt::format(
        "metric error: {} matched {} of the command's {} output lines{}{} ({} measured); its first lines:{}\n    {}",
        metric_->describe(), iterations_, lines_,
        all_warmup ? fmt::format(", all counted as warm-up (--warmup {})", spec_.warmup) : "",
        refused_count_ ? fmt::format(", and captured {} that {} no positive number ({}), refused",
                                     counted(refused_count_, "value", "values"), refused_count_ == 1 ? "is" : "are",
                                     fmt::join(refused_, ", "))
                       : "",
        env_.label, first_lines_.empty() ? " (none)" : shown,
        all_warmup ? fmt::format("give --warmup 0 if the command prints {} figure{} a launch: --warmup counts "
                                 "figures of each launch, and nothing is left to measure after {}",
                                 iterations_, iterations_ == 1 ? "" : "s", spec_.warmup)
                   : "fix the pattern (--metric), or print one line per iteration");
  }

  const CaseSpec& spec_;
  const CommandSpec& command_;
  ScheduledEnvironment& env_;
  const int round_;
  ResultsWriter& results_;
  OutsideAccounting outside_;
  std::optional<MetricReader> metric_;
  LaunchOutcome out_;
  std::vector<std::string> refused_;  // the first values --metric captured that are no positive number
  std::size_t refused_count_ = 0;
  std::vector<std::string> first_lines_;
  int lines_ = 0, iterations_ = 0;
  std::optional<int> iterations_at_startup_;
  nlohmann::json command_seconds_, first_iteration_at_, libraries_count_, fingerprint_;
};

LaunchOutcome run_user_command(const Plan& plan, const CaseSpec& spec, ScheduledEnvironment& env,
                               const std::string& instance, int round, ResultsWriter& results,
                               const ScheduleOptions& options) {
  const WorkerLaunch launch = command_launch_of(spec, plan.data);
  const LaunchCommand argv = env.environment->command(launch, instance);
  const ProcessSpec process = argv.process(plan.case_timeout_seconds, options.cancel);
  CommandLaunchReader reader(spec, env, round, results);
  Stopwatch clock;
  ProcessResult result = run_process(process, [&](std::string_view line) { reader.read(line); });
  LaunchOutcome out = reader.finish(std::move(result), clock.seconds());
  out.instance = instance;
  out.what = "command";
  out.timeout_seconds = plan.case_timeout_seconds;
  return out;
}

// One launch's value, as the analysis takes it (run_value), and how the log
// line reads it.
std::string describe_run(const CaseSpec& spec, const LaunchOutcome& launched) {
  const std::string statistic = run_statistic(spec);
  const double value = run_value(statistic, launched.measured);
  const auto count = launched.measured.size();
  if (spec.workload == kStartupWorkload)
    return fmt::format("{:.5f} s/start (median of {} starts)", value, count);
  if (spec.is_command()) {
    if (spec.command.metric.source == MetricSpec::Source::wall_time) return fmt::format("{:.4f} s/launch", value);
    return fmt::format("{:.5g} {} (mean of {} iterations{})",
                       spec.command.metric.higher_is_better ? 1.0 / value : value, spec.command.metric.unit, count,
                       spec.command.metric.higher_is_better ? ", as the mean time per unit" : "");
  }
  if (spec.serves()) return fmt::format("p99 {:.4g} ms of {} requests", 1e3 * value, count);
  if (const MicroWorkloadInfo* micro = find_micro_workload(spec.workload))
    return fmt::format("{:.4g} {} ({} of {} operations)", micro_figure(*micro, launched.work, value),
                       micro->unit(spec.variant), statistic == "min" ? "best" : statistic, count);
  return fmt::format("{:.5f} s/batch over {} batches", value, count);
}

// "+-3.1%" for a half-width, "no interval yet" for NaN.
std::string half_width_words(double half_width) {
  return std::isnan(half_width) ? "no interval yet" : fmt::format("+-{:.1f}%", 100 * half_width);
}

// Why a round is added, in one line.
std::string added_round_words(const Plan& plan, const RoundDecision& d, int round) {
  std::vector<std::string> why;
  if (d.short_of_runs)
    why.push_back(fmt::format("{} with a disturbed run to replace",
                              d.short_of_runs == 1 ? "1 case x environment" : fmt::format("{} cases x environments", d.short_of_runs)));
  if (d.above_precision)
    why.push_back(fmt::format("the widest interval is {} ({}), above --precision {:.1f}%",
                              half_width_words(d.widest_half_width), d.widest, 100 * plan.precision));
  if (d.cv_unmet)
    why.push_back(fmt::format("the highest CV over runs is {:.1f}%, above --until-cv {:.1f}%", 100 * d.highest_cv,
                              100 * plan.until_cv));
  return fmt::format("adding round {} (at most {}): {}", round, plan.max_runs, fmt::join(why, "; "));
}

// What the stopping rule reads, per case and environment (label, live),
// with what earlier sessions of the run measured.
std::vector<std::vector<CellRuns>> schedule_cells(const Plan& plan,
                                                  const std::vector<std::pair<std::string, bool>>& environments,
                                                  const std::vector<CellRuns>& earlier_cells) {
  std::vector<std::vector<CellRuns>> cells(plan.cases.size());
  for (std::size_t c = 0; c < plan.cases.size(); ++c)
    for (const auto& [label, live] : environments)
      cells[c].push_back({plan.cases[c].id(), label, label == plan.baseline, live, {}, {}, {}, {}});
  for (const CellRuns& earlier : earlier_cells)
    for (auto& per_case : cells)
      for (CellRuns& cell : per_case)
        if (cell.case_id == earlier.case_id && cell.env == earlier.env) {
          cell.run_values = earlier.run_values;
          cell.rounds = earlier.rounds;
          cell.disturbed_values = earlier.disturbed_values;
          cell.disturbed_rounds = earlier.disturbed_rounds;
        }
  return cells;
}

// The rounds of one session: every case in every environment, in the
// round's order, each launch recorded as it ends; a round added while the
// stopping rule asks for one.
class Schedule {
 public:
  Schedule(const Plan& plan, std::vector<ScheduledEnvironment>& environments, ResultsWriter& results,
           const ScheduleOptions& options)
      : plan_(plan),
        environments_(environments),
        results_(results),
        options_(options),
        adaptive_(plan.max_runs > plan.runs),
        rounds_(std::max(plan.runs, options.rounds_reached)),
        orders_(round_orders(environments.size(), std::max(adaptive_ ? plan.max_runs : plan.runs, rounds_), plan.seed)),
        per_round_(static_cast<int>(plan.cases.size() * environments.size())),
        rule_{plan.runs, plan.max_runs, plan.until_cv, plan.precision, plan.max_time_seconds} {
    // Measured by an earlier session of this run (--resume), per round.
    for (const auto& key : options.already_measured) ++measured_in_round_[key.round];
    total_ = rounds_ * per_round_ - static_cast<int>(options.already_measured.size());
    std::vector<std::pair<std::string, bool>> labels;
    for (const auto& env : environments) labels.emplace_back(env.label, env.unavailable.empty());
    cells_ = schedule_cells(plan, labels, options.earlier_cells);
  }

  ScheduleResult run() {
    for (int round = 1; round <= rounds_; ++round) {
      outcome_.rounds = round;
      if (!run_round(round)) {
        outcome_.interrupted = true;
        break;
      }
      if (adaptive_ && round == rounds_) decide_after(round);
    }
    if (!outcome_.interrupted && plan_.count_calls) count_calls();
    outcome_.elapsed_seconds = clock_.seconds();
    return outcome_;
  }

 private:
  // After the rounds: one counting launch per case and environment, its
  // record round 0 (no round of the statistics).
  void count_calls() {
    for (const auto& spec : plan_.cases) {
      if (!counts_calls(spec)) continue;
      for (auto& env : environments_) {
        if (!env.unavailable.empty()) continue;
        if (options_.cancel && options_.cancel->load()) {
          outcome_.interrupted = true;
          return;
        }
        const std::string instance = instance_name(options_.run_id, env.label, 0, ++position_);
        std::optional<MachineTurn> turn;
        if (options_.take_turns) {
          turn.emplace(options_.cancel);
          if (!turn->held()) continue;
        }
        nlohmann::json record = count_calls_launch(plan_, spec, env, instance, options_);
        const std::string said =
            record.contains("unavailable")
                ? fmt::format("not counted: {}", record["unavailable"].get<std::string>())
                : fmt::format("{:.0f} system calls per {}",
                              record["syscalls"].get<double>() / std::max(1, record["batches"].get<int>()),
                              spec.is_command()                   ? "run"
                              : find_micro_workload(spec.workload) ? "operation"
                                                                   : "batch");
        log(fmt::format("counting  {}  {:<8} {}", spec.id(), env.label, said));
        results_.append(tag(std::move(record), env.label, 0, spec));
      }
    }
  }

  // False when a signal stopped it.
  bool run_round(int round) {
    const auto& order = orders_[static_cast<std::size_t>(round - 1)];
    nlohmann::json labels = nlohmann::json::array();
    for (auto i : order) labels.push_back(environments_[i].label);
    if (measured_in_round_[round] < per_round_) {
      results_.append({{"type", "round"}, {"round", round}, {"order", labels}});
      if (!first_round_) first_round_ = round;
    }
    for (std::size_t case_index = 0; case_index < plan_.cases.size(); ++case_index)
      for (auto index : order) {
        if (options_.cancel && options_.cancel->load()) return false;
        ScheduledEnvironment& env = environments_[index];
        ++position_;
        if (options_.already_measured.count({round, plan_.cases[case_index].id(), env.label})) continue;
        ++done_;
        if (!env.unavailable.empty() || dropped_devices_.count({index, plan_.cases[case_index].device})) continue;
        if (!launch(round, case_index, index)) return false;
      }
    return true;
  }

  // One launch, recorded; false when a signal stopped it.
  bool launch(int round, std::size_t case_index, std::size_t index) {
    const CaseSpec& spec = plan_.cases[case_index];
    ScheduledEnvironment& env = environments_[index];
    if (options_.progress)
      options_.progress({round, rounds_, spec.id(), env.label, done_ - 1, total_,
                         done_ > 1 ? clock_.seconds() / (done_ - 1) * (total_ - done_ + 1) : -1.0});
    const std::string instance = instance_name(options_.run_id, env.label, round, position_);
    std::optional<MachineTurn> turn;
    if (options_.take_turns) {
      turn.emplace(options_.cancel);
      if (!turn->held()) return true;  // cancelled while waiting: the round's end handles it
    }
    const double started_unix = unix_seconds();
    Stopwatch wall;
    const LaunchOutcome launched =
        spec.workload == kStartupWorkload ? time_starts(plan_, spec, env, instance, round, results_, options_)
        : spec.is_command()               ? run_user_command(plan_, spec, env, instance, round, results_, options_)
        : spec.serves()                   ? run_serve(plan_, spec, env, instance, round, results_, options_)
                                          : run_worker(plan_, spec, env, instance, round, results_, options_);
    const int measured = static_cast<int>(launched.measured.size());
    // A command reports as many iterations as it runs.
    const bool ok = launched.result.ok() &&
                    (spec.is_command() ? launched.error.empty() && measured > 0 : measured == spec.iters);
    nlohmann::json record = {{"type", "launch"},
                             {"env", env.label},
                             {"round", round},
                             {"case", spec.id()},
                             {"instance", instance},
                             {"ok", ok},
                             {"measured_samples", measured},
                             {"wall_seconds", wall.seconds()},
                             // When it ran, by the clock every process on the machine reads.
                             {"started_unix", started_unix},
                             {"ended_unix", unix_seconds()},
                             {"exit_code", launched.result.exit_code},
                             {"signal", launched.result.signal}};
    if (options_.take_turns) record["waited_for_turn_seconds"] = turn ? turn->waited_seconds() : 0.0;
    turn.reset();
    ++outcome_.launches;
    if (!ok) {
      record["cause"] = failure_cause(launched, env, measured, spec.iters, plan_.case_timeout_seconds);
      record["stderr_tail"] = tail(launched.result.stderr_tail, kStderrInResults);
      env.environment->cleanup(launched.instance);
    }
    results_.append(record);
    results_.sync();
    if (launched.result.cancelled) return false;
    if (ok) record_success(round, case_index, index, launched);
    else record_failure(round, case_index, index, launched.result, record["cause"].get<std::string>());
    return true;
  }

  void record_success(int round, std::size_t case_index, std::size_t index, const LaunchOutcome& launched) {
    const CaseSpec& spec = plan_.cases[case_index];
    consecutive_failures_[{index, spec.device}] = 0;
    CellRuns& cell = cells_[case_index][index];
    const RunDisturbance disturbance = assess_disturbance(launched.accounting);
    std::string note;
    const double value = run_value(run_statistic(spec), launched.measured);
    if (disturbance.disturbed()) {
      cell.disturbed_values.push_back(value);
      cell.disturbed_rounds.push_back(round);
      ++outcome_.disturbed_launches;
      // One short line; what disturbed it is in the record and the report.
      note = fmt::format("  disturbed from outside: set aside{}",
                         adaptive_ ? ", a round replaces it" : " (--max-runs leaves no room to replace it)");
    } else {
      cell.run_values.push_back(value);
      cell.rounds.push_back(round);
    }
    if (plan_.precision > 0 && !cell.baseline)
      note += fmt::format("  [{} vs {}]", half_width_words(half_width_of(case_index, index)), plan_.baseline);
    const double per_launch = clock_.seconds() / done_;
    log(fmt::format("round {}/{}  {}  {:<8} {}  ({}/{}, ETA {}){}", round, rounds_, spec.id(),
                    environments_[index].label, describe_run(spec, launched), done_, total_,
                    format_eta(per_launch * (total_ - done_)), note));
  }

  void record_failure(int round, std::size_t case_index, std::size_t index, const ProcessResult& result,
                      const std::string& cause) {
    const CaseSpec& spec = plan_.cases[case_index];
    ScheduledEnvironment& env = environments_[index];
    ++outcome_.failed_launches;
    log(fmt::format("round {}/{}  {}  {:<8} FAILED: {}", round, rounds_, spec.id(), env.label, cause));
    if (!result.stderr_tail.empty()) log("    " + tail(result.stderr_tail, 600));
    int& failures_in_a_row = consecutive_failures_[{index, spec.device}];
    if (++failures_in_a_row < options_.max_consecutive_failures) return;
    const std::string why = fmt::format("{} launches in a row failed; the last: {}", failures_in_a_row, cause);
    // A GPU that fails in an environment drops that environment's GPU
    // cases, not its CPU ones.
    if (spec.device == "gpu") {
      dropped_devices_.insert({index, spec.device});
      for (std::size_t c = 0; c < plan_.cases.size(); ++c)
        if (plan_.cases[c].device == spec.device) cells_[c][index].live = false;
      const std::string reason = "its GPU cases are left out for the rest of the run: " + why;
      results_.append({{"type", "environment_dropped"}, {"env", env.label}, {"device", spec.device}, {"reason", reason}});
      log(fmt::format("{}: {}", env.label, reason));
    } else {
      env.unavailable = why;
      for (auto& per_case : cells_) per_case[index].live = false;
      results_.append({{"type", "environment_dropped"}, {"env", env.label}, {"reason", env.unavailable}});
      log(fmt::format("dropping environment {} for the rest of the run: {}", env.label, env.unavailable));
    }
  }

  // After the last round so far: the stopping rule adds one, or not.
  void decide_after(int round) {
    const double round_seconds = clock_.seconds() / std::max(1, round - std::max(first_round_, 1) + 1);
    const RoundDecision d = decide_after_round(rule_, rounds_, clock_.seconds(), round_seconds, cells_);
    outcome_.decision = d;
    outcome_.final_cv = d.highest_cv;
    outcome_.cv_target_missed = d.cv_unmet && !d.add_round;
    if (!d.add_round) return;
    ++rounds_;
    total_ += per_round_;
    log(added_round_words(plan_, d, rounds_));
  }

  // The current half-width of an environment's comparison in a case.
  double half_width_of(std::size_t case_index, std::size_t env_index) const {
    for (const auto& base : cells_[case_index])
      if (base.baseline) return counted_half_width(cells_[case_index][env_index], base, plan_.runs);
    return std::nan("");
  }

  void log(const std::string& line) const {
    if (options_.log) options_.log(line);
  }

  const Plan& plan_;
  std::vector<ScheduledEnvironment>& environments_;
  ResultsWriter& results_;
  const ScheduleOptions& options_;
  const bool adaptive_;
  int rounds_;
  const std::vector<std::vector<std::size_t>> orders_;
  const int per_round_;
  const StoppingRule rule_;
  std::map<int, int> measured_in_round_;
  int total_ = 0;
  std::vector<std::vector<CellRuns>> cells_;  // what the stopping rule reads, per case and environment
  // Failed launches in a row, and devices dropped, by environment and device.
  std::map<std::pair<std::size_t, std::string>, int> consecutive_failures_;
  std::set<std::pair<std::size_t, std::string>> dropped_devices_;
  ScheduleResult outcome_;
  Stopwatch clock_;
  int done_ = 0;
  int first_round_ = 0;  // the first round this session measures in
  int position_ = 0;     // the launch's place in the whole plan: names its container alike in every session
};

}  // namespace

bool resume_adds_round(const Plan& plan, const ScheduleOptions& options, double earlier_seconds) {
  if (plan.max_runs <= plan.runs || options.rounds_reached >= plan.max_runs) return false;
  std::vector<std::pair<std::string, bool>> labels;
  for (const auto& env : plan.environments) labels.emplace_back(env.text, true);
  const StoppingRule rule{plan.runs, plan.max_runs, plan.until_cv, plan.precision, plan.max_time_seconds};
  const int rounds = std::max(plan.runs, options.rounds_reached);
  return decide_after_round(rule, rounds, earlier_seconds, earlier_seconds / std::max(1, rounds),
                            schedule_cells(plan, labels, options.earlier_cells))
      .add_round;
}

ScheduleResult run_schedule(const Plan& plan, std::vector<ScheduledEnvironment>& environments,
                            ResultsWriter& results, const ScheduleOptions& options) {
  Schedule schedule(plan, environments, results, options);
  return schedule.run();
}

}  // namespace dlcbench
