#include "analysis/prediction.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/explanation.h"
#include "core/statistics.h"
#include "workloads/micro/syscall_cost.h"

namespace dlcbench {
namespace {

const CaseAnalysis* cost_table_case(const Analysis& a) {
  for (const auto& c : a.cases)
    if (c.workload == kSyscallWorkload && c.spec.variant == kSyscallTable && !c.call_costs.empty()) return &c;
  return nullptr;
}

const CaseAnalysis::CallCost* cost_of(const std::vector<CaseAnalysis::CallCost>& costs, const std::string& kind) {
  for (const auto& c : costs)
    if (c.kind == kind) return &c;
  return nullptr;
}

// How many futex calls one futex round trip of the table makes (a wake and
// a wait on each side, fewer when a wait finds the turn already passed):
// from the table's own counting launch on the baseline, else 4.
double futex_calls_per_round_trip(const CaseAnalysis& table, const std::string& baseline) {
  const EnvironmentStats* base = find_environment(table, baseline);
  const std::size_t kinds = table.call_costs.empty() ? 0 : table.call_costs.begin()->second.size();
  if (!base || !base->operation_mix || !base->operation_mix->unavailable.empty() || kinds == 0 || table.work <= 0)
    return 4;
  const auto futex = base->operation_mix->by_kind.find("futex");
  const double round_trips = table.work / static_cast<double>(kinds);
  if (futex == base->operation_mix->by_kind.end() || futex->second <= 0) return 4;
  return futex->second / round_trips;
}

// An interval's end, or the estimate where there is no interval.
double bound_or(double bound, double estimate) { return std::isfinite(bound) ? bound : estimate; }

double baseline_busy_cpus(const EnvironmentStats& base) {
  std::vector<double> busy;
  for (const auto& run : base.run_counters)
    if (const auto it = run.values.find(Counter::busy_cpus); it != run.values.end() && it->second > 0)
      busy.push_back(it->second);
  return busy.empty() ? 1.0 : std::max(1.0, mean(busy));
}

}  // namespace

const std::vector<PricedKind>& priced_kinds() {
  static const std::vector<PricedKind> kinds = {
      {"getppid", "null", 1},  {"clock_gettime", "clock", 1}, {"read", "read", 1},  {"write", "write", 1},
      {"open", "openclose", 1},  // its close is in the table's pair
      {"close", "", 1},          // priced with its open
      {"stat", "stat", 1},     {"mmap", "mmap", 2},  // mmap with its munmap
      {"futex", "futex", 0},   // per round trip: from the table's own count
      {"sched_yield", "yield", 1},
  };
  return kinds;
}

void predict_overheads(Analysis& a) {
  const CaseAnalysis* table = cost_table_case(a);
  if (!table) return;
  const double futex_calls = futex_calls_per_round_trip(*table, a.baseline);
  for (auto& c : a.cases) {
    if (&c == table) continue;
    const EnvironmentStats* base = find_environment(c, a.baseline);
    if (!base) continue;
    for (const auto& o : c.overheads) {
      const EnvironmentStats* es = find_environment(c, o.env);
      const auto costs = table->call_costs.find(o.env);
      if (!es || costs == table->call_costs.end()) continue;
      Prediction p;
      p.env = o.env;
      const OperationMix* mix = nullptr;
      if (es->operation_mix && es->operation_mix->unavailable.empty()) {
        mix = &*es->operation_mix;
        p.mix_from = o.env;
      } else if (base->operation_mix && base->operation_mix->unavailable.empty()) {
        mix = &*base->operation_mix;
        p.mix_from = a.baseline;
      }
      if (!mix) continue;
      p.faults_counted = mix->page_faults.has_value();
      double counted = 0;
      std::map<std::string, PredictedTerm> by_cost;
      // `calls` at the extra cost of the table's `kind`, as the term `term`.
      const auto add = [&](const std::string& kind, double calls, const std::string& term = "") {
        const CaseAnalysis::CallCost* cost = cost_of(costs->second, kind);
        if (!cost || calls <= 0) return;
        const std::string& name = term.empty() ? kind : term;
        PredictedTerm& t = by_cost[name];
        t.kind = name;
        t.calls += calls;
        t.added_seconds += calls * cost->added_ns() * 1e-9;
        // Without an interval for the cost, the term has none either.
        t.low += calls * bound_or(cost->added_low(), cost->added_ns()) * 1e-9;
        t.high += calls * bound_or(cost->added_high(), cost->added_ns()) * 1e-9;
      };
      // The baseline's count of a kind, beside the environment's own.
      const OperationMix* base_mix =
          p.mix_from == o.env && base->operation_mix && base->operation_mix->unavailable.empty()
              ? &*base->operation_mix
              : nullptr;
      const auto opens = mix->by_kind.find("open");
      for (const auto& k : priced_kinds()) {
        const auto n = mix->by_kind.find(k.counted);
        if (n == mix->by_kind.end()) continue;
        // A close is priced with its open (the table's pair); closes beyond
        // the opens (of descriptors a dup, a socket or a pipe made) are
        // left to the other calls, at the null call's cost.
        if (std::string(k.counted) == "close") {
          counted += std::min(n->second, opens == mix->by_kind.end() ? 0.0 : opens->second);
          continue;
        }
        counted += n->second;
        if (std::string(k.cost).empty()) continue;
        const double per_cost_call = k.calls_per_cost_call > 0 ? k.calls_per_cost_call : futex_calls;
        add(k.cost, n->second / per_cost_call);
        if (!base_mix || !by_cost.contains(k.cost)) continue;
        const auto b = base_mix->by_kind.find(k.counted);
        by_cost[k.cost].baseline_calls = b == base_mix->by_kind.end() ? 0.0 : b->second / per_cost_call;
      }
      // Every call of a kind the table has no figure for: priced as the
      // null call, the cost of entering the kernel at all.
      add("null", mix->syscalls - counted);
      // Page faults beyond the first touch of each mmap the table priced,
      // at the fault kind's cost (a page of a fresh mapping, touched among
      // many, as a workload fills a new buffer). Under gVisor the faults
      // are the stubs', as the host's kernel takes them. A table without
      // the fault kind: what the mmap kind costs beyond its two calls.
      const CaseAnalysis::CallCost* fault_cost = cost_of(costs->second, "fault");
      const CaseAnalysis::CallCost* mmap_cost = cost_of(costs->second, "mmap");
      const CaseAnalysis::CallCost* null_cost = cost_of(costs->second, "null");
      const auto pairs = mix->by_kind.find("mmap");
      if (!mix->page_faults && mix->stub_page_faults && fault_cost) p.faults_from_stubs = p.faults_counted = true;
      const std::optional<double> taken = mix->page_faults ? mix->page_faults : mix->stub_page_faults;
      const double faults = taken ? *taken - (pairs == mix->by_kind.end() ? 0.0 : pairs->second / 2) : 0.0;
      if (fault_cost) {
        add("fault", faults, "page fault");
      } else if (mix->page_faults && mmap_cost && null_cost && faults > 0) {
        PredictedTerm& t = by_cost["page fault"];
        t.kind = "page fault";
        t.calls = faults;
        t.added_seconds = faults * (mmap_cost->added_ns() - 2 * null_cost->added_ns()) * 1e-9;
        t.low = faults * (bound_or(mmap_cost->added_low(), mmap_cost->added_ns()) -
                          2 * bound_or(null_cost->added_high(), null_cost->added_ns())) * 1e-9;
        t.high = faults * (bound_or(mmap_cost->added_high(), mmap_cost->added_ns()) -
                           2 * bound_or(null_cost->added_low(), null_cost->added_ns())) * 1e-9;
      }
      for (auto& [kind, t] : by_cost) {
        p.terms.push_back(t);
        p.cpu_seconds += t.added_seconds;
        p.cpu_low += t.low;
        p.cpu_high += t.high;
      }
      std::sort(p.terms.begin(), p.terms.end(),
                [](const PredictedTerm& x, const PredictedTerm& y) { return std::abs(x.added_seconds) > std::abs(y.added_seconds); });
      p.busy_cpus = baseline_busy_cpus(*base);
      p.seconds = p.cpu_seconds / p.busy_cpus;
      p.low = p.cpu_low / p.busy_cpus;
      p.high = p.cpu_high / p.busy_cpus;
      p.measured_seconds = o.added.difference;
      p.measured_low = o.added.ci95_low;
      p.measured_high = o.added.ci95_high;
      p.measured_significant = is_significant(o.verdict);
      if (const Explanation* e = c.explanation_of(o.env))
        for (const auto& cc : e->counters) {
          if (!cc.unavailable.empty() || cc.runs < 2 || cc.baseline_runs < 2) continue;
          const DifferenceEstimate seconds{cc.difference.difference * 1e-3, cc.difference.ci95_low * 1e-3,
                                           cc.difference.ci95_high * 1e-3};
          if (cc.counter == Counter::helpers_cpu_ms) p.helpers_cpu = seconds;
          if (cc.counter == Counter::cpu_ms) p.worker_cpu = seconds;
        }
      c.predictions.push_back(std::move(p));
    }
  }
}

}  // namespace dlcbench
