#include "analysis/explanation.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/json_fields.h"

namespace dlcbench {
namespace {

using json = nlohmann::json;

struct CounterSource {
  Counter counter;
  const char* label;
  const char* unit;
  const char* key;
  const char* object;       // in the accounting record; "" for wall_ms and the derived ones
  const char* field;
  double scale;             // of the field per batch: seconds to ms, counts as they are
  const char* unavailable;  // its key under "unavailable"
};

constexpr CounterSource kSources[] = {
    {Counter::wall_ms, "wall time", "ms", "wall_ms", "", "", 1, ""},
    {Counter::cpu_ms, "CPU time (user + system)", "ms", "cpu_ms", "", "", 1, ""},
    {Counter::busy_cpus, "busy CPUs (CPU time / wall time)", "", "busy_cpus", "", "", 1, ""},
    {Counter::threads_at_work, "threads at work (by CPU time)", "", "threads_at_work", "", "", 1, ""},
    {Counter::user_ms, "user CPU", "ms", "user_ms", "process", "user_seconds", 1e3, ""},
    {Counter::system_ms, "system CPU", "ms", "system_ms", "process", "system_seconds", 1e3, ""},
    {Counter::run_queue_wait_ms, "run-queue wait (all threads)", "ms", "run_queue_wait_ms", "process",
     "run_queue_wait_seconds", 1e3, "process.run_queue_wait_seconds"},
    {Counter::throttled_ms, "throttled (CPU quota, summed over CPUs)", "ms", "throttled_ms", "cgroup", "throttled_seconds", 1e3,
     "cgroup"},
    {Counter::throttled_percent, "periods throttled", "%", "throttled_percent", "", "", 1, "cgroup"},
    {Counter::minor_faults, "minor page faults", "", "minor_faults", "process", "minor_faults", 1,
     "process.minor_faults"},
    {Counter::major_faults, "major page faults", "", "major_faults", "process", "major_faults", 1,
     "process.major_faults"},
    {Counter::voluntary_switches, "voluntary context switches", "", "voluntary_switches", "process",
     "voluntary_switches", 1, "process.voluntary_switches"},
    {Counter::involuntary_switches, "involuntary context switches", "", "involuntary_switches", "process",
     "involuntary_switches", 1, "process.involuntary_switches"},
    {Counter::perf_page_faults, "page faults (perf)", "", "perf_page_faults", "perf", "page_faults", 1,
     "perf.page_faults"},
    {Counter::perf_context_switches, "context switches (perf)", "", "perf_context_switches", "perf",
     "context_switches", 1, "perf.context_switches"},
    {Counter::perf_cpu_migrations, "CPU migrations (perf)", "", "perf_cpu_migrations", "perf", "cpu_migrations", 1,
     "perf.cpu_migrations"},
    {Counter::perf_cycles, "cycles (perf)", "", "perf_cycles", "perf", "cycles", 1, "perf.cycles"},
    {Counter::perf_instructions, "instructions (perf)", "", "perf_instructions", "perf", "instructions", 1,
     "perf.instructions"},
    {Counter::helpers_cpu_ms, "runtime helpers' CPU", "ms", "helpers_cpu_ms", "outside", "helpers_cpu_seconds", 1e3,
     "outside"},
    {Counter::others_cpu_ms, "CPU of other processes", "ms", "others_cpu_ms", "machine", "others_cpu_seconds", 1e3,
     "machine.others_cpu_seconds"},
    {Counter::steal_ms, "steal", "ms", "steal_ms", "machine", "steal_seconds", 1e3, "machine.steal_seconds"},
};

const CounterSource& source_of(Counter c) {
  for (const auto& s : kSources)
    if (s.counter == c) return s;
  return kSources[0];
}

// A reason from the record's "unavailable" map, by its key or the key's
// object ("cgroup") or, for the machine's counters, its busy time.
std::string reason_in(const json& unavailable, const std::string& key) {
  if (!unavailable.is_object() || key.empty()) return "";
  std::vector<std::string> keys = {key, key.substr(0, key.find('.'))};
  if (key.rfind("machine.", 0) == 0) keys.push_back("machine.busy_seconds");
  for (const auto& k : keys)
    if (const auto it = unavailable.find(k); it != unavailable.end() && it->is_string()) return it->get<std::string>();
  return "";
}

std::vector<double> values_of(const std::vector<LaunchCounters>& launches, Counter c) {
  std::vector<double> out;
  for (const auto& l : launches)
    if (const auto it = l.values.find(c); it != l.values.end()) out.push_back(it->second);
  return out;
}

std::string first_reason(const std::vector<LaunchCounters>& launches, Counter c) {
  for (const auto& l : launches)
    if (const auto it = l.unavailable.find(c); it != l.unavailable.end()) return it->second;
  return "";
}

// Which counters every launch of both sides has: a cause reads the same
// counters on both sides, or a difference would compare unlike figures
// (gVisor has no user and system split, the host has one: both sides then
// give their CPU time as a sum).
struct CommonCounters {
  bool cpu_split = false;   // user and system CPU apart
  bool run_queue = false;   // run-queue wait
};

bool every_launch_has(const std::vector<LaunchCounters>& launches, Counter c) {
  return std::all_of(launches.begin(), launches.end(), [c](const LaunchCounters& l) { return l.values.contains(c); });
}

CommonCounters common_counters(const std::vector<LaunchCounters>& subject, const std::vector<LaunchCounters>& baseline) {
  CommonCounters common;
  common.cpu_split = true;
  common.run_queue = true;
  for (const auto* side : {&subject, &baseline}) {
    common.cpu_split = common.cpu_split && every_launch_has(*side, Counter::user_ms) &&
                       every_launch_has(*side, Counter::system_ms);
    common.run_queue = common.run_queue && every_launch_has(*side, Counter::run_queue_wait_ms);
  }
  return common;
}

// Per launch, a cause's wall milliseconds per batch; empty where a launch
// lacks a counter it needs.
std::vector<double> cause_values(const std::vector<LaunchCounters>& launches, Cause cause, double busy_threads,
                                 int threads, int runqueues, const CommonCounters& common) {
  std::vector<double> out;
  for (const auto& l : launches) {
    auto get = [&](Counter c) -> std::optional<double> {
      const auto it = l.values.find(c);
      return it == l.values.end() ? std::nullopt : std::optional<double>(it->second);
    };
    // A thread's waiting in wall time per batch, throttling included (the
    // run-queue wait and throttled causes together).
    auto waiting = [&] {
      if (auto v = get(Counter::run_queue_wait_ms); v && common.run_queue) return *v / threads;
      return get(Counter::throttled_ms).value_or(0) / runqueues;
    };
    switch (cause) {
      case Cause::fewer_busy_cpus:
        // The wall time that neither the CPU work at the baseline's
        // parallelism nor the waiting accounts for: time its CPUs were idle.
        if (auto cpu = get(Counter::cpu_ms); cpu && get(Counter::wall_ms))
          out.push_back(*get(Counter::wall_ms) - *cpu / busy_threads - waiting());
        break;
      case Cause::more_user_cpu:
        if (auto v = get(Counter::user_ms); v && common.cpu_split) out.push_back(*v / busy_threads);
        break;
      case Cause::more_system_cpu:
        if (auto v = get(Counter::system_ms); v && common.cpu_split) out.push_back(*v / busy_threads);
        break;
      case Cause::more_cpu:
        // Only where either side lacks the split: otherwise user and system
        // say it.
        if (!common.cpu_split)
          if (auto v = get(Counter::cpu_ms)) out.push_back(*v / busy_threads);
        break;
      case Cause::throttled:
        // cpu.stat sums the time each CPU's run queue of the group was
        // throttled: the wall time is that over the run queues throttled.
        if (auto v = get(Counter::throttled_ms)) out.push_back(*v / runqueues);
        break;
      case Cause::helpers_cpu:
        if (auto v = get(Counter::helpers_cpu_ms)) out.push_back(*v / busy_threads);
        break;
      case Cause::run_queue_wait:
        // A throttled thread waits too: that time is the throttling's.
        if (auto v = get(Counter::run_queue_wait_ms); v && common.run_queue)
          out.push_back(*v / threads - get(Counter::throttled_ms).value_or(0) / runqueues);
        break;
    }
  }
  return out;
}

std::string signed_ms(double ms) { return fmt::format("{:+.1f} ms", ms); }

std::string cause_words(const CauseShare& c, const Explanation& e) {
  const auto counter = [&](Counter k) -> const CounterComparison* {
    for (const auto& cc : e.counters)
      if (cc.counter == k && cc.unavailable.empty()) return &cc;
    return nullptr;
  };
  const auto times = [&](Counter k) -> std::string {
    const CounterComparison* cc = counter(k);
    if (!cc || cc->baseline_mean <= 0) return "";
    return fmt::format("×{:.2g}", cc->mean / cc->baseline_mean);
  };
  switch (c.cause) {
    case Cause::more_user_cpu: {
      const std::string r = times(Counter::user_ms);
      return fmt::format("more user CPU{}", r.empty() ? "" : fmt::format(" (user time {})", r));
    }
    case Cause::more_system_cpu: {
      std::string detail;
      if (const std::string r = times(Counter::system_ms); !r.empty()) detail = "system time " + r;
      for (Counter faults : {Counter::perf_page_faults, Counter::minor_faults})
        if (const std::string r = times(faults); !r.empty()) {
          detail += fmt::format(", page faults {}", r);
          break;
        }
      return fmt::format("more system CPU{}", detail.empty() ? "" : " (" + detail + ")");
    }
    case Cause::more_cpu: {
      const std::string r = times(Counter::cpu_ms);
      return fmt::format("more CPU time for the worker's own code{}", r.empty() ? "" : fmt::format(" ({})", r));
    }
    case Cause::throttled:
      return e.throttled_percent
                 ? fmt::format("CPU quota throttling (throttled in {:.0f}% of periods)", *e.throttled_percent)
                 : "CPU quota throttling";
    case Cause::run_queue_wait:
      return "more waiting for a CPU (run queue)";
    case Cause::helpers_cpu:
      return "the runtime's helper processes' CPU (read from outside)";
    case Cause::fewer_busy_cpus: {
      const CounterComparison* busy = counter(Counter::busy_cpus);
      const CounterComparison* threads = counter(Counter::threads_at_work);
      if (!busy || !threads) return "fewer CPUs kept busy";
      return fmt::format("fewer CPUs kept busy ({:.2f} against {:.2f}; threads at work {:.1f} against {:.1f}; no "
                         "more waiting for a CPU)",
                         busy->mean, busy->baseline_mean, threads->mean, threads->baseline_mean);
    }
  }
  return "";
}

}  // namespace

const char* counter_label(Counter c) { return source_of(c).label; }
const char* counter_unit(Counter c) { return source_of(c).unit; }
const char* counter_key(Counter c) { return source_of(c).key; }

namespace {

// Each cause's key in the JSON report and its short name in words.
struct CauseWords {
  Cause cause;
  const char* key;
  const char* name;
};
constexpr CauseWords kCauseWords[] = {
    {Cause::more_user_cpu, "more_user_cpu", "more user CPU"},
    {Cause::more_system_cpu, "more_system_cpu", "more system CPU"},
    {Cause::more_cpu, "more_cpu", "more CPU time"},
    {Cause::throttled, "throttled", "CPU quota throttling"},
    {Cause::run_queue_wait, "run_queue_wait", "more waiting for a CPU"},
    {Cause::helpers_cpu, "helpers_cpu", "the runtime's helpers' CPU"},
    {Cause::fewer_busy_cpus, "fewer_busy_cpus", "fewer CPUs kept busy"},
};

const CauseWords& words_of(Cause c) {
  for (const auto& w : kCauseWords)
    if (w.cause == c) return w;
  return kCauseWords[0];
}

}  // namespace

const char* cause_key(Cause c) { return words_of(c).key; }
const char* cause_name(Cause c) { return words_of(c).name; }

LaunchCounters read_launch_counters(const json& accounting, double wall_seconds) {
  LaunchCounters l;
  const std::string where = "accounting record: ";
  const int batches = json_fields::int_field(accounting, "batches", 0, where);
  if (json_fields::int_field(accounting, "figures_in_phase", 1, where) == 0) {
    // A tool that prints its one figure as it ends (sysbench's events/s):
    // what follows that line is its exit, so no counter describes its work.
    for (const auto& s : kSources)
      l.unavailable[s.counter] =
          "the command prints one figure as it ends, so no iteration follows the start-up and its counters "
          "would describe its exit; per-iteration counters need several figures a launch (without --metric the "
          "counters cover the whole launch)";
    return l;
  }
  l.values[Counter::wall_ms] = wall_seconds * 1e3;
  if (batches <= 0) return l;
  const json none = json::object();
  const json& unavailable = accounting.contains("unavailable") ? accounting.at("unavailable") : none;
  for (const auto& s : kSources) {
    if (std::string(s.object).empty()) continue;
    const json& object = accounting.contains(s.object) && accounting.at(s.object).is_object()
                             ? accounting.at(s.object)
                             : none;
    if (const auto v = json_fields::number_field(object, s.field, where + s.object + ".")) {
      l.values[s.counter] = *v * s.scale / batches;
    } else if (const std::string why = reason_in(unavailable, s.unavailable); !why.empty()) {
      l.unavailable[s.counter] = why;
    } else if (const auto own = object.find("unavailable"); own != object.end() && own->is_string()) {
      l.unavailable[s.counter] = own->get<std::string>();  // the outside reading says why itself
    }
  }
  if (l.values.count(Counter::user_ms) && l.values.count(Counter::system_ms))
    l.values[Counter::cpu_ms] = l.values[Counter::user_ms] + l.values[Counter::system_ms];
  if (json_fields::string_field(accounting, "sandbox_kernel", "", where) == "gVisor") {
    // gVisor's getrusage is its kernel's accounting of the task, not CPU
    // time as the host counts it: the worker's CPU comes from outside.
    for (Counter c : {Counter::user_ms, Counter::system_ms, Counter::cpu_ms}) {
      l.values.erase(c);
      l.unavailable[c] = "gVisor's getrusage counts its own kernel's time for the task, not the host's CPU time; "
                         "the worker's CPU (user and system together) is read from outside";
    }
    if (accounting.contains("outside") && accounting.at("outside").is_object())
      if (const auto v = json_fields::number_field(accounting.at("outside"), "worker_cpu_seconds", where + "outside.")) {
        l.values[Counter::cpu_ms] = *v * 1e3 / batches;
        l.unavailable.erase(Counter::cpu_ms);
      }
  }
  // Over the phase's own wall time where the record has it: a command's
  // iterations, as its output times them, leave out what it does between
  // them, which its CPU time counts.
  const auto wall_start = json_fields::number_field(accounting, "wall_start", where),
             wall_end = json_fields::number_field(accounting, "wall_end", where);
  const double phase_ms = wall_start && wall_end && *wall_end > *wall_start
                              ? (*wall_end - *wall_start) * 1e3 / batches
                              : wall_seconds * 1e3;
  if (const auto cpu = l.values.find(Counter::cpu_ms); cpu != l.values.end() && phase_ms > 0)
    l.values[Counter::busy_cpus] = cpu->second / phase_ms;
  // A count over the phase, not per batch; read with the threads' waits.
  if (accounting.contains("process") && accounting.at("process").is_object())
    if (const auto v = json_fields::number_field(accounting.at("process"), "threads_at_work", where + "process."))
      l.values[Counter::threads_at_work] = *v;
  if (accounting.contains("cgroup") && accounting.at("cgroup").is_object()) {
    const json& cgroup = accounting.at("cgroup");
    const auto periods = json_fields::number_field(cgroup, "periods", where + "cgroup.");
    const auto throttled = json_fields::number_field(cgroup, "throttled_periods", where + "cgroup.");
    // Without a quota there are no periods: nothing was throttled.
    if (periods && throttled) l.values[Counter::throttled_percent] = *periods > 0 ? *throttled / *periods * 100 : 0;
  } else if (const std::string why = reason_in(unavailable, "cgroup"); !why.empty()) {
    l.unavailable[Counter::throttled_percent] = why;
  }
  return l;
}

Explanation explain_overhead(const Overhead& overhead, const std::vector<LaunchCounters>& subject,
                             const std::vector<LaunchCounters>& baseline, int compute_threads, int cpus) {
  Explanation e;
  e.env = overhead.env;
  for (Counter c : kCounters) {
    CounterComparison cc;
    cc.counter = c;
    const auto s = values_of(subject, c), b = values_of(baseline, c);
    cc.runs = s.size();
    cc.baseline_runs = b.size();
    if (!s.empty()) cc.mean = mean(s);
    if (!b.empty()) cc.baseline_mean = mean(b);
    if (s.empty() || b.empty()) {
      const std::string why = s.empty() ? first_reason(subject, c) : first_reason(baseline, c);
      if (why.empty()) continue;  // neither side records it (an older run)
      cc.unavailable_in = s.empty() ? overhead.env : "baseline";
      cc.unavailable = why;
    } else {
      cc.difference = difference_of_means(s, b);
      if (s.size() >= 2 && b.size() >= 2 && cc.baseline_mean > 0) cc.ratio = ratio_of_means(s, b);
    }
    e.counters.push_back(std::move(cc));
  }

  const auto wall_s = values_of(subject, Counter::wall_ms), wall_b = values_of(baseline, Counter::wall_ms);
  e.extra_ms = difference_of_means(wall_s, wall_b);
  if (overhead.verdict == Verdict::faster) {
    e.status = ExplanationStatus::faster;
    return e;
  }
  if (overhead.verdict != Verdict::slower) {
    e.status = ExplanationStatus::not_significant;
    return e;
  }
  const auto cpu_b = values_of(baseline, Counter::cpu_ms);
  if (cpu_b.size() < 2 || values_of(subject, Counter::cpu_ms).size() < 2 || wall_b.empty()) {
    e.status = ExplanationStatus::no_counters;
    return e;
  }
  // Busy threads: how many CPUs' worth the baseline keeps busy. More CPU
  // work per batch costs wall time at that parallelism.
  const auto busy_b = values_of(baseline, Counter::busy_cpus);
  e.busy_threads = std::max(0.05, busy_b.size() == cpu_b.size() ? mean(busy_b) : mean(cpu_b) / mean(wall_b));
  e.compute_threads = compute_threads > 0 ? compute_threads : std::max(1, static_cast<int>(std::lround(e.busy_threads)));
  const auto percent = values_of(subject, Counter::throttled_percent);
  if (!percent.empty()) e.throttled_percent = mean(percent);

  const double extra = e.extra_ms.difference;
  // Idle CPUs are what the other causes leave over: claimed only where the
  // threads at work, counted apart from the times, fell too.
  const auto threads_s = values_of(subject, Counter::threads_at_work),
             threads_b = values_of(baseline, Counter::threads_at_work);
  const bool fewer_threads_at_work = threads_s.size() >= 2 && threads_b.size() >= 2 &&
                                     difference_of_means(threads_s, threads_b).ci95_high < 0;
  const CommonCounters common = common_counters(subject, baseline);
  for (Cause cause : kCauses) {
    const int runqueues = cpus > 0 ? std::min(e.compute_threads, cpus) : e.compute_threads;
    const auto s = cause_values(subject, cause, e.busy_threads, e.compute_threads, runqueues, common);
    const auto b = cause_values(baseline, cause, e.busy_threads, e.compute_threads, runqueues, common);
    if (s.size() < 2 || b.size() < 2) continue;
    CauseShare share;
    share.cause = cause;
    share.ms = difference_of_means(s, b);
    share.share = extra > 0 ? share.ms.difference / extra : 0;
    // Claimed only where the change itself is significant and large enough
    // to matter against the overhead: never for noise.
    share.claimed = std::isfinite(share.ms.ci95_low) && share.ms.ci95_low > 0 && share.share >= 0.05;
    if (cause == Cause::fewer_busy_cpus) share.claimed = share.claimed && fewer_threads_at_work;
    if (share.claimed) e.explained_ms += share.ms.difference;
    e.causes.push_back(share);
  }
  e.unexplained_ms = extra - e.explained_ms;
  const bool any = std::any_of(e.causes.begin(), e.causes.end(), [](const CauseShare& c) { return c.claimed; });
  e.status = any ? ExplanationStatus::explained : ExplanationStatus::unexplained;
  return e;
}

std::string explanation_words(const Explanation& e, const std::string& baseline) {
  const double extra = e.extra_ms.difference;
  switch (e.status) {
    case ExplanationStatus::not_significant:
    case ExplanationStatus::faster:
      return "";
    case ExplanationStatus::no_counters:
      return fmt::format("not explained: the launches of {} or {} recorded no CPU accounting (measured with "
                         "--no-accounting, or by an older dlcbench)",
                         e.env, baseline);
    case ExplanationStatus::unexplained:
      return fmt::format("not explained: nothing measured accounts for the {} per batch (CPU time, run-queue wait "
                         "and throttling did not change significantly against {})",
                         signed_ms(extra), baseline);
    case ExplanationStatus::explained:
      break;
  }
  std::vector<std::string> parts;
  std::vector<const CauseShare*> claimed;
  for (const auto& c : e.causes)
    if (c.claimed) claimed.push_back(&c);
  std::sort(claimed.begin(), claimed.end(),
            [](const CauseShare* a, const CauseShare* b) { return a->ms.difference > b->ms.difference; });
  for (const CauseShare* c : claimed)
    parts.push_back(fmt::format("{} {} ({:.0f}%, 95% CI {:+.1f} .. {:+.1f} ms)", cause_words(*c, e),
                                signed_ms(c->ms.difference), c->share * 100, c->ms.ci95_low, c->ms.ci95_high));
  if (e.unexplained_ms < 0)
    return fmt::format("explained by {}; together {} against the {} per batch measured: more than all of it, as "
                       "work that overlaps in time counts once in the wall time",
                       fmt::join(parts, ", "), signed_ms(e.explained_ms), signed_ms(extra));
  return fmt::format("explained by {}; of the {} per batch, {} ({:.0f}%) is unexplained", fmt::join(parts, ", "),
                     signed_ms(extra), signed_ms(e.unexplained_ms), extra > 0 ? e.unexplained_ms / extra * 100 : 0);
}

}  // namespace dlcbench
