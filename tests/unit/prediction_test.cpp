// What the system calls predict of an overhead (issue 39): each counted kind
// priced at its extra cost from the run's cost table, futex calls per round
// trip from the table's own counting launch, page faults as mmap less its two
// calls, the rest as null calls; the environment's own mix where it was
// counted, else the baseline's, said as such.
#include "analysis/prediction.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "core/case_spec.h"
#include "core/errors.h"
#include "model/run_records.h"
#include "orchestrator/call_counting.h"
#include "report/answer.h"
#include "report/report_model.h"
#include "report/svg.h"

namespace dlcbench {
namespace {

using json = nlohmann::json;

CaseSpec table_spec() {
  CaseSpec s;
  s.workload = "syscall";
  s.backend = "none";
  s.variant = "table";
  s.size = 10000;
  return s;
}

CaseSpec training_spec() {
  CaseSpec s;
  s.workload = "fcn5";
  s.batch = 8;
  return s;
}

// Each kind's cost on the host, and what docker and runsc add (ns).
const std::map<std::string, double> kHostNs = {{"null", 100}, {"futex", 5000}, {"mmap", 8000}, {"yield", 500}};
const std::map<std::string, double> kAddedNs = {{"null", 50}, {"futex", 1200}, {"mmap", 400}, {"yield", 0}};

json counts(const std::string& env, const std::string& id, int batches, double syscalls, json by_kind,
            double faults) {
  return {{"type", "call_counts"}, {"env", env}, {"round", 0},         {"case", id},
          {"method", "test"},      {"batches", batches}, {"threads", 2}, {"syscalls", syscalls},
          {"by_kind", by_kind},    {"page_faults", faults}, {"context_switches", 0}};
}

// With `fault_kind`, the table has the fault kind (host 300 ns, +30 ns
// elsewhere) and runsc's counts are its trace's with its stubs' page faults.
// `runsc_mix`: runsc's own counts where they differ from the others'.
// `accounting`: each training launch records its CPU (runsc's from outside,
// with its helpers' CPU: 50 ms per batch more in the Sentry).
Analysis predicted_run(const json& mix = {{"futex", 3000}, {"mmap", 200}}, double syscalls = 20000,
                       bool fault_kind = false, const json& runsc_mix = nullptr, bool accounting = false) {
  const std::string table = table_spec().id(), training = training_spec().id();
  json m = {{"plan",
             {{"baseline", "host"},
              {"environments", {"host", "docker", "runsc"}},
              {"cases", {json(table_spec()), json(training_spec())}}}}};
  std::vector<json> r;
  for (int round = 1; round <= 8; ++round)
    for (const std::string env : {"host", "docker", "runsc"}) {
      const double wobble = 1 + 0.001 * std::sin(round * 1.3 + static_cast<double>(env.size()));
      json ns = json::object();
      for (const auto& [kind, host] : kHostNs) ns[kind] = (host + (env == "host" ? 0 : kAddedNs.at(kind))) * wobble;
      if (fault_kind) ns["fault"] = (300 + (env == "host" ? 0 : 30)) * wobble;
      r.push_back({{"type", "sample"}, {"env", env}, {"round", round}, {"case", table}, {"phase", "measured"},
                   {"seconds", 0.01 * wobble}, {"work", 10000}, {"detail", {{"ns_per_call", ns}}}});
      r.push_back({{"type", "launch"}, {"env", env}, {"round", round}, {"case", table}, {"ok", true}});
      r.push_back({{"type", "sample"}, {"env", env}, {"round", round}, {"case", training}, {"phase", "measured"},
                   {"seconds", (env == "host" ? 0.100 : 0.101) * wobble}});
      if (accounting) {
        json record = {{"type", "accounting"}, {"env", env},  {"round", round}, {"case", training},
                       {"phase", "measured"}, {"batches", 1},
                       {"process", {{"user_seconds", 0.09 * wobble}, {"system_seconds", 0.01}}},
                       {"outside", {{"helpers_cpu_seconds", env == "runsc" ? 0.05 * wobble : 0.0},
                                    {"worker_cpu_seconds", env == "runsc" ? 0.13 * wobble : 0.1 * wobble}}}};
        if (env == "runsc") record["sandbox_kernel"] = "gVisor";
        r.push_back(record);
      }
      r.push_back({{"type", "launch"}, {"env", env}, {"round", round}, {"case", training}, {"ok", true}});
    }
  // The table's own counting launch on the host: 10 operations, each 2,500
  // calls of each of its 4 kinds, made 75,000 futex calls: 3 per round trip.
  r.push_back(counts("host", table, 10, 200000, {{"futex", 75000}, {"getppid", 25000}}, 25000));
  // The training case: 10 batches; per batch 300 futex calls, 20 mmap
  // calls (10 pairs), 1,000 page faults, 1,680 other calls.
  r.push_back(counts("host", training, 10, syscalls, mix, 10000));
  r.push_back(counts("docker", training, 10, syscalls, mix, 10000));
  if (fault_kind) {
    json traced = counts("runsc", training, 10, syscalls, runsc_mix.is_null() ? mix : runsc_mix, 0);
    traced.erase("page_faults");
    traced.erase("context_switches");
    traced["stub_page_faults"] = 12000;
    r.push_back(traced);
  } else {
    r.push_back({{"type", "call_counts"}, {"env", "runsc"}, {"round", 0}, {"case", training},
                 {"unavailable", "gVisor runs the worker's system calls in its own kernel"}});
  }
  return analyze(m, r);
}

TEST(Prediction, EachKindIsPricedAtItsExtraCostAndTheSumIsThePrediction) {
  const Analysis a = predicted_run();
  const CaseAnalysis& c = a.cases[1];
  ASSERT_EQ(c.predictions.size(), 2u);
  const Prediction& docker = c.predictions[0];
  EXPECT_EQ(docker.env, "docker");
  EXPECT_EQ(docker.mix_from, "docker");
  // futex: 300 calls = 100 round trips x 1,200 ns; mmap: 10 pairs x 400 ns;
  // page faults beyond those 10: 990 x (400 - 2 x 50) ns; the other 1,680
  // calls x 50 ns.
  const double expected = (100 * 1200 + 10 * 400 + 990 * 300 + 1680 * 50) * 1e-9;
  EXPECT_NEAR(docker.cpu_seconds, expected, 0.01 * expected);
  EXPECT_DOUBLE_EQ(docker.busy_cpus, 1.0);  // no accounting recorded: one
  EXPECT_NEAR(docker.seconds, docker.cpu_seconds, 1e-12);
  ASSERT_FALSE(docker.terms.empty());
  EXPECT_EQ(docker.terms[0].kind, "page fault");  // the largest first
  EXPECT_NEAR(docker.terms[0].calls, 990, 1e-9);
  EXPECT_LE(docker.low, docker.seconds);
  EXPECT_GE(docker.high, docker.seconds);
  EXPECT_NEAR(docker.measured_seconds, 0.001, 1e-4);
  // gVisor's own calls could not be counted: the host's mix, said as such.
  const Prediction& runsc = c.predictions[1];
  EXPECT_EQ(runsc.env, "runsc");
  EXPECT_EQ(runsc.mix_from, "host");
  ASSERT_TRUE(c.envs[2].operation_mix.has_value());
  EXPECT_FALSE(c.envs[2].operation_mix->unavailable.empty());
  // The table itself predicts nothing of its own overheads.
  EXPECT_TRUE(a.cases[0].predictions.empty());
}

TEST(Prediction, PageFaultsArePricedAtTheFaultKindAndUnderGvisorTheStubsFaultsAre) {
  const Analysis a = predicted_run({{"futex", 3000}, {"mmap", 200}}, 20000, true);
  const CaseAnalysis& c = a.cases[1];
  ASSERT_EQ(c.predictions.size(), 2u);
  // docker: its own 1,000 faults per batch less the 10 mmap pairs' first
  // touches, at the fault kind's +30 ns.
  const auto fault_term = [](const Prediction& p) {
    return *std::find_if(p.terms.begin(), p.terms.end(), [](const PredictedTerm& t) { return t.kind == "page fault"; });
  };
  EXPECT_NEAR(fault_term(c.predictions[0]).calls, 990, 1e-9);
  EXPECT_NEAR(fault_term(c.predictions[0]).added_seconds, 990 * 30e-9, 0.01 * 990 * 30e-9);
  EXPECT_FALSE(c.predictions[0].faults_from_stubs);
  // runsc: its trace has no faults; its stubs took 1,200 per batch.
  const Prediction& runsc = c.predictions[1];
  EXPECT_EQ(runsc.mix_from, "runsc");
  EXPECT_TRUE(runsc.faults_from_stubs);
  EXPECT_TRUE(runsc.faults_counted);
  EXPECT_NEAR(fault_term(runsc).calls, 1190, 1e-9);
}

TEST(Prediction, ClosesBeyondTheOpensArePricedAsOtherCalls) {
  // Per batch: 10 opens, 40 closes (30 of descriptors a dup made), 100
  // calls in all: the 30 extra closes join the 50 other calls at the null
  // call's cost, and the 10 closes with an open go with their open.
  const Analysis a = predicted_run({{"open", 100}, {"close", 400}}, 1000);
  const Prediction& docker = a.cases[1].predictions[0];
  const auto null = std::find_if(docker.terms.begin(), docker.terms.end(),
                                 [](const PredictedTerm& t) { return t.kind == "null"; });
  ASSERT_NE(null, docker.terms.end());
  EXPECT_NEAR(null->calls, 80, 1e-9);
  EXPECT_NEAR(null->added_seconds, 80 * 50e-9, 0.01 * 80 * 50e-9);  // the table wobbles by 0.1%
}

TEST(Prediction, TheAnswersWhyLineAndTheHtmlBarCarryIt) {
  const Analysis a = predicted_run();
  const CaseAnalysis& c = a.cases[1];
  const Prediction& docker = c.predictions[0];
  ASSERT_TRUE(docker.measured_significant);
  const Answer answer = build_answer(a);
  std::string why;
  for (const auto& ac : answer.cases)
    if (ac.title == c.case_id)
      for (const auto& line : ac.why) why += line + "\n";
  EXPECT_NE(why.find(fmt::format("docker: its system calls predict {:+.1f} of {:+.1f} ms per batch ({:.0f}%): page "
                                 "fault",
                                 1e3 * docker.seconds, 1e3 * docker.measured_seconds, 100 * docker.share())),
            std::string::npos)
      << why;
  // A bar per environment: the measured overhead, the predicted one split
  // by operation, and the part it leaves unexplained.
  const std::string svg = svg_prediction_chart(c, "p", "batch");
  EXPECT_NE(svg.find("data-env=\"docker\""), std::string::npos);
  EXPECT_NE(svg.find("data-env=\"runsc\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"term\" data-kind=\"page fault\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"term\" data-kind=\"futex\""), std::string::npos);
  if (docker.seconds < docker.measured_seconds) {
    EXPECT_NE(svg.find("<g class=\"unexplained\"><title>docker: unexplained"), std::string::npos) << svg;
  }
  EXPECT_TRUE(svg_prediction_chart(a.cases[0], "t", "operation").empty());  // the table predicts nothing
}

TEST(Prediction, ACountingRecordIsReadPerBatchAndABadOneIsRefused) {
  const ResultRecord r = read_result_record(counts("host", "x", 4, 400, {{"futex", 40}}, 8));
  ASSERT_TRUE(r.operation_mix.has_value());
  EXPECT_DOUBLE_EQ(r.operation_mix->syscalls, 100);
  EXPECT_DOUBLE_EQ(r.operation_mix->by_kind.at("futex"), 10);
  EXPECT_DOUBLE_EQ(r.operation_mix->page_faults.value_or(-1), 2);
  // runsc's trace has no page faults: absent, not zero.
  json traced = counts("runsc", "x", 4, 400, {{"futex", 40}}, 8);
  traced.erase("page_faults");
  traced.erase("context_switches");
  EXPECT_FALSE(read_result_record(traced).operation_mix->page_faults.has_value());
  json bad = counts("host", "x", 0, 400, json::object(), 8);
  EXPECT_THROW(read_result_record(bad), DataError);
}

// Under gVisor the application's calls are counted from runsc's trace,
// between the worker's two marks, by kind; what comes before and after is not.
TEST(Prediction, GvisorsCallsAreCountedFromItsTraceBetweenTheWorkersMarks) {
  const std::string prefix = "I1207 16:43:35.601423    7372 strace.go:559] ";
  std::ostringstream log;
  log << "I1207 16:43:35.453553    7372 kernel.go:791] EXEC: [/opt/dlcbench/bin/dlcbench-worker worker]\n";
  log << prefix << "[   1:   1] dlcbench-worker E getppid()\n";  // before the window
  log << prefix << "[   1:   1] dlcbench-worker E access(0x7f36 " << kCountWindowOpen << ", 0o0)\n";
  log << prefix << "[   1:   1] dlcbench-worker X access(0x7f36 " << kCountWindowOpen << ", 0o0) = 0 errno=2\n";
  for (int i = 0; i < 5; ++i) log << prefix << "[   1:   1] dlcbench-worker E getppid()\n";
  log << prefix << "[   1:   1] dlcbench-worker X getppid() = 0 (0x0) (1.9us)\n";
  log << prefix << "[   2:   1] dlcbench-worker E futex(0x1, FUTEX_WAIT_PRIVATE, 0x0)\n";
  log << prefix << "[   2:   1] dlcbench-worker E sched_yield()\n";
  log << prefix << "[   1:   1] dlcbench-worker E pread64(0x3, 0x7f, 0x10, 0x0)\n";
  log << prefix << "[   1:   1] dlcbench-worker E access(0x7f36 " << kCountWindowClose << ", 0o0)\n";
  log << prefix << "[   1:   1] dlcbench-worker E getppid()\n";  // after it
  std::istringstream in(log.str());
  const auto counts = calls_in_strace_log(in);
  ASSERT_TRUE(counts.has_value());
  EXPECT_EQ(counts->syscalls, 8u);
  EXPECT_EQ(counts->by_kind.at("getppid"), 5u);
  EXPECT_EQ(counts->by_kind.at("futex"), 1u);
  EXPECT_EQ(counts->by_kind.at("sched_yield"), 1u);
  EXPECT_EQ(counts->by_kind.at("read"), 1u);
  EXPECT_EQ(counts->threads, 2u);
  EXPECT_FALSE(counts->faults_counted);
  // A trace without the closing mark counts nothing.
  std::istringstream cut(log.str().substr(0, log.str().find(kCountWindowClose)));
  EXPECT_FALSE(calls_in_strace_log(cut).has_value());
}

}  // namespace
}  // namespace dlcbench

namespace dlcbench {
namespace {

TEST(Prediction, ASpinWaitsYieldsAreNamedWithTheBaselinesCount) {
  // OpenBLAS's waiting thread yields in a loop: the host makes 30,000 cheap
  // yields per batch in its waits, the sandbox 1,000 dear ones in the same.
  const json host_mix = {{"futex", 3000}, {"sched_yield", 300000}};
  const json runsc_mix = {{"futex", 3000}, {"sched_yield", 10000}};
  const Analysis a = predicted_run(host_mix, 400000, true, runsc_mix);
  const CaseAnalysis& c = a.cases[1];
  const auto runsc = std::find_if(c.predictions.begin(), c.predictions.end(),
                                  [](const Prediction& p) { return p.env == "runsc"; });
  ASSERT_NE(runsc, c.predictions.end());
  ASSERT_EQ(runsc->mix_from, "runsc");
  const auto yield = std::find_if(runsc->terms.begin(), runsc->terms.end(),
                                  [](const PredictedTerm& t) { return t.kind == "yield"; });
  ASSERT_NE(yield, runsc->terms.end());
  EXPECT_NEAR(yield->calls, 1000, 1e-9);
  ASSERT_TRUE(yield->baseline_calls.has_value());
  EXPECT_NEAR(*yield->baseline_calls, 30000, 1e-9);
  EXPECT_TRUE(Prediction::waiting_calls(*yield));
  // docker's mix is the host's: the same count, no waiting thread named.
  const auto docker = std::find_if(c.predictions.begin(), c.predictions.end(),
                                   [](const Prediction& p) { return p.env == "docker"; });
  ASSERT_NE(docker, c.predictions.end());
  for (const auto& t : docker->terms) EXPECT_FALSE(Prediction::waiting_calls(t)) << t.kind;
  // No accounting in this run: no cross-check is offered.
  EXPECT_FALSE(runsc->helpers_at_work());
}

TEST(Prediction, TheHelpersCPUIsSetBesideThePredictionAsACrossCheck) {
  const Analysis a = predicted_run({{"futex", 3000}, {"mmap", 200}}, 20000, true, nullptr, true);
  const CaseAnalysis& c = a.cases[1];
  for (const auto& p : c.predictions) {
    ASSERT_TRUE(p.helpers_cpu.has_value()) << p.env;
    ASSERT_TRUE(p.worker_cpu.has_value()) << p.env;
    if (p.env == "runsc") {
      EXPECT_TRUE(p.helpers_at_work());
      EXPECT_NEAR(p.helpers_cpu->difference, 0.05, 0.002);
      // gVisor's worker CPU is read from outside, the host's from its own
      // accounting: 0.13 s against 0.10 s.
      EXPECT_NEAR(p.worker_cpu->difference, 0.03, 0.002);
      bool said = false;
      for (const auto& l : comparison_lines(c, "host"))
        for (const auto& d : l.details)
          said = said || d.find("cross-check, read from outside: the runtime's helpers took +50.0 ms more CPU") !=
                             std::string::npos;
      EXPECT_TRUE(said);
    } else {
      EXPECT_FALSE(p.helpers_at_work()) << p.env;  // no helper computed more
    }
  }
}

}  // namespace
}  // namespace dlcbench
