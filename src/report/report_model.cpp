#include "report/report_model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "analysis/comparability.h"
#include "analysis/noise_floor.h"
#include "report/figures.h"

namespace dlcbench {
namespace {

// "?" for what the manifest does not record.
std::string or_unknown(const std::string& text) { return text.empty() ? "?" : text; }

// One argument as a POSIX shell would need it to read it back.
std::string shell_quote(const std::string& arg) {
  if (arg.empty()) return "''";
  bool plain = true;
  for (char ch : arg) {
    const auto u = static_cast<unsigned char>(ch);
    if (!(std::isalnum(u) || std::string_view("-_./:=,+@%").find(ch) != std::string_view::npos)) plain = false;
  }
  if (plain) return arg;
  std::string out = "'";
  for (char ch : arg) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string command_line(const Manifest& manifest) {
  std::string out;
  for (const auto& arg : manifest.command_line) {
    if (!out.empty()) out += ' ';
    out += shell_quote(arg);
  }
  return or_unknown(out);
}

std::string comparison_headline(const CaseAnalysis& c, const Overhead& o, const std::string& baseline) {
  if (!o.compared)
    return fmt::format("{} vs {}: NOT COMPARED, the environments did not run like for like:", o.env, baseline);
  const std::string mismatch = o.mismatch_allowed ? "  MISMATCH ALLOWED: not like for like (--allow-mismatch)" : "";
  if (o.headline.form == Headline::Form::time_added)
    return fmt::format("{} vs {}: {}  [difference of means, Welch CI; verdict: {}]{}", o.env, baseline,
                       o.verdict_text,
                       o.robust.paired ? fmt::format("Hodges-Lehmann over {} paired rounds", o.robust.pairs)
                                       : std::string("Hodges-Lehmann, two samples"),
                       mismatch);
  // The headline's, as every format shows it (of the means where too few rounds bound the robust one).
  const std::string ratio =
      std::isfinite(o.headline.time_ratio) ? fmt::format("{:.4f}", o.headline.time_ratio) : "n/a";
  return fmt::format("{} vs {}: {} {}, {}  [{}{}; mean: Fieller CI, Welch p = {}]{}",
                     o.env, baseline, ratio_label(c), ratio,
                     o.verdict_text,
                     o.robust.paired ? fmt::format("Hodges-Lehmann over {} paired rounds, signed-rank CI", o.robust.pairs)
                                     : std::string("Hodges-Lehmann, Mann-Whitney CI"),
                     std::isfinite(o.min_detectable) ? fmt::format(", smallest overhead it would detect 4 times in 5: "
                                                                   "{:.1f}%", 100 * o.min_detectable)
                                                     : "",
                     std::isfinite(o.estimate.test.p_value) ? fmt::format("{:.2g}", o.estimate.test.p_value) : "n/a",
                     mismatch);
}

CaseSection case_section(const Analysis& analysis, const CaseAnalysis& c) {
  CaseSection s;
  s.analysis = &c;
  s.kind = kind_of(c);
  s.caption = case_caption(c);
  s.detail = detail_table(c);
  s.console = console_case_table(c);
  s.comparisons = comparison_lines(c, analysis.baseline);
  s.failures = failure_lines(c);
  s.disturbances = disturbance_lines(c, analysis.baseline);
  s.latency = latency_table(c, analysis.baseline);
  if (!s.latency.rows.empty())
    s.latency_caption = fmt::format(
        "Latency of the requests, from when each was due to its answer: each run's quantile over its {} measured "
        "requests, median over runs (range of runs); each environment against {} paired by round, Hodges-Lehmann "
        "with the Wilcoxon 95% CI. Path: how the load generator on the host reached the server (host: the host's "
        "network; veth: a veth pair to a bridge; slirp: slirp4netns in user space).",
        samples_per_run(c), analysis.baseline);
  s.call_costs = call_cost_table(c, analysis.baseline);
  if (!s.call_costs.rows.empty()) {
    std::vector<std::string> sandboxes;
    for (const auto& e : c.envs)
      if (!e.sandbox.empty()) sandboxes.push_back(fmt::format("{}: {}", e.env, e.sandbox));
    s.call_cost_caption = fmt::format(
        "What one call of each kind costs, in ns: each run's median over its {} operations ({} calls each, an "
        "equal share of every kind), median over runs; each environment against {} paired by round (ratio, Hodges-Lehmann with the "
        "Wilcoxon 95% CI). mmap includes its page's first touch (a page fault); futex and pipe are a round trip "
        "to another thread.{}",
        samples_per_run(c), c.work, analysis.baseline,
        sandboxes.empty() ? std::string()
                          : fmt::format(" The figures hold for the system-call path measured: {}.",
                                        fmt::join(sandboxes, "; ")));
  }
  s.counters = counters_table(c, analysis.baseline);
  if (!s.counters.rows.empty()) {
    s.counters_caption = fmt::format(
        "Counters of the measured phase per {}, mean of runs; each environment's ratio to {} with Fieller's 95% CI. "
        "An overhead that is significant is explained from them by a time budget: wall time = (user + system CPU) "
        "/ busy threads + waiting per thread, with throttling counted apart.",
        c.micro ? "operation" : "batch", analysis.baseline);
    s.counter_notes = counter_notes(c);
  }
  if (c.ablation) {
    const CaseAblation& a = *c.ablation;
    const std::string per = c.startup ? "start" : c.micro ? "operation" : "batch";
    s.ablation = ablation_table(c);
    s.ablation_caption = fmt::format(
        "Ablation of {}: each variant changes one isolation feature and runs interleaved with the rest. A feature's "
        "share is ({} - variant) / ({} - {}) in time per {}; its 95% CI is a percentile bootstrap over runs. A share "
        "counts only where the time it saves is significant (Welch).",
        a.of, a.of, a.of, a.baseline, per);
    if (a.residual)
      s.ablation_caption += fmt::format(
          " Every combination of the features ran too (a full factorial): a feature's Shapley share averages what "
          "changing it saves over every order of changing them, and the residual is {} against {}. The Shapley "
          "values and the residual add up to the overhead; their intervals are a bootstrap over rounds.",
          a.residual->env, a.baseline);
    for (const auto& e : a.effects) s.ablation_lines.push_back(feature_effect_words(e, per));
    s.ablation_outcome = ablation_outcome_words(a);
  }
  return s;
}

}  // namespace

bool has_cases(const Analysis& analysis, CaseKind kind) {
  return std::any_of(analysis.cases.begin(), analysis.cases.end(),
                     [kind](const CaseAnalysis& c) { return kind_of(c) == kind; });
}

namespace {

// Each kind's slug (HTML ids and classes) and its name in headings.
struct KindWords {
  CaseKind kind;
  const char* slug;
  const char* name;
};
constexpr KindWords kKindWords[] = {{CaseKind::command, "command", "your commands"},
                                    {CaseKind::training, "training", "training"},
                                    {CaseKind::micro, "micro", "micro-benchmarks"},
                                    {CaseKind::startup, "startup", "container start-up"}};

const KindWords& words_of(CaseKind kind) {
  for (const auto& w : kKindWords)
    if (w.kind == kind) return w;
  return kKindWords[0];
}

}  // namespace

const char* kind_slug(CaseKind kind) { return words_of(kind).slug; }

const char* kind_name(CaseKind kind) { return words_of(kind).name; }

std::string summary_caption(CaseKind kind) {
  switch (kind) {
    case CaseKind::micro:
      return "Each case in its own figure with its 95% CI per environment (GFLOP/s, GB/s, MB/s: the work over the "
             "mean time per operation, higher is better; ms: lower is better). Intervals, overheads and tests are "
             "computed on seconds per operation, so the overhead is the change of the time per operation "
             "against the baseline (Hodges-Lehmann over rounds, the mean's change beside it): + is slower, a lower "
             "rate or a longer latency.";
    case CaseKind::command:
      return "Your commands, run as given in every environment under dlcbench-probe: each launch's run time "
             "from the command's start to its exit (the environment's start is the startup workload's figure), or "
             "the mean of the iterations --metric read from its output "
             "(the first --warmup of each launch apart). Overhead as for training: Hodges-Lehmann over rounds, the "
             "mean's change beside it; + is slower (a lower rate).";
    case CaseKind::startup:
      return "Apart from training: a static program that exits at once, timed from the orchestrator; each run is "
             "the median of its starts. Each environment's start against the baseline's: the milliseconds it adds "
             "per start, with Welch's 95% CI (the baseline's start is too short for a share of it to mean much).";
    case CaseKind::training:
      break;
  }
  return "Mean seconds per batch with its 95% CI per environment. Overhead: the typical change of a round's run "
         "against the baseline's run of the same round (Hodges-Lehmann, exact signed-rank 95% CI), which the verdict "
         "is taken on, then the change of the means (Fieller's 95% CI). \"No overhead above M\" only where both "
         "intervals lie within +-M (--margin); otherwise what the run cannot rule out is said.";
}

std::string run_value_words(const CaseAnalysis& c) {
  if (c.command)
    return c.spec.command.metric.source == MetricSpec::Source::wall_time
               ? std::string("command's run time, start to exit")
               : fmt::format("{} of its measured iterations", c.run_statistic);
  if (c.startup) return fmt::format("{} of its measured starts", c.run_statistic);
  if (!c.micro) return fmt::format("{} of its measured batches", c.run_statistic);
  const std::size_t per_run = samples_per_run(c);
  const std::string its = per_run ? fmt::format("its {} operation{}", per_run, per_run == 1 ? "" : "s")
                                  : std::string("its operations");
  if (c.run_statistic == "min") return fmt::format("best of {}, as STREAM reports", its);
  return fmt::format("{} of {}", c.run_statistic, its);
}

std::size_t samples_per_run(const CaseAnalysis& c) {
  std::size_t per_run = 0;
  for (const auto& e : c.envs) {
    if (e.run_values.empty()) continue;
    if (e.batch_seconds.size() % e.run_values.size()) return 0;
    const std::size_t n = e.batch_seconds.size() / e.run_values.size();
    if (per_run && n != per_run) return 0;
    per_run = n;
  }
  return per_run;
}

std::string ratio_label(const CaseAnalysis& c) { return c.micro ? "time-per-operation ratio" : "ratio"; }

std::string case_caption(const CaseAnalysis& c) {
  if (!c.micro) return fmt::format("{}; statistics over runs, each run the {}", c.unit, run_value_words(c));
  const std::string work = work_text(c);
  return fmt::format(
      "{}, {}{}; statistics over runs, each run the {}; intervals and overheads are taken over seconds per "
      "operation",
      c.figure_unit, better_words(c), work.empty() ? "" : fmt::format("; one operation {}", work),
      run_value_words(c));
}

std::string prediction_words(const Prediction& p, const std::string& baseline, const std::string& per) {
  std::vector<std::string> terms;
  for (std::size_t i = 0; i < p.terms.size() && i < 3; ++i)
    terms.push_back(fmt::format("{} {:.0f} per {}, {:+.1f} ms", p.terms[i].kind, p.terms[i].calls, per,
                                1e3 * p.terms[i].added_seconds));
  const std::string mix =
      p.mix_from == p.env ? std::string("its own calls, counted in a launch of their own")
                          : fmt::format("{}'s calls, as {}'s own could not be counted: an estimate that holds only "
                                        "where the environment makes the same calls",
                                        baseline, p.env);
  std::string line = fmt::format(
      "the system calls predict {:+.1f} ms per {} (95% CI {:+.1f} .. {:+.1f}) of the measured {:+.1f} ms{}: "
      "{} (CPU {:+.1f} ms over {:.1f} busy CPUs); from {}",
      1e3 * p.seconds, per, 1e3 * p.low, 1e3 * p.high, 1e3 * p.measured_seconds,
      p.measured_significant ? fmt::format(" ({:.0f}%)", 100 * p.share()) : std::string(" (not significant)"),
      fmt::join(terms, "; "), 1e3 * p.cpu_seconds, p.busy_cpus, mix);
  if (p.faults_from_stubs)
    line += "; its page faults are those gVisor's stubs took, as the host's kernel counted them";
  for (const auto& t : p.terms)
    if (Prediction::waiting_calls(t))
      line += fmt::format("; the yields are a waiting thread's: {} makes {:.0f} per {}, {} {:.0f}, so their number "
                          "follows how long a thread waits, and their cost is wall time only where it takes a CPU "
                          "from a thread at work",
                          baseline, *t.baseline_calls, per, p.env, t.calls);
  if (p.helpers_at_work())
    line += fmt::format("; cross-check, read from outside: the runtime's helpers took {:+.1f} ms more CPU per {} "
                        "(95% CI {:+.1f} .. {:+.1f}) against the prediction's {:+.1f} ms{}",
                        1e3 * p.helpers_cpu->difference, per, 1e3 * p.helpers_cpu->ci95_low,
                        1e3 * p.helpers_cpu->ci95_high, 1e3 * p.cpu_seconds,
                        p.worker_cpu ? fmt::format(", and the worker's own threads {:+.1f} ms (95% CI {:+.1f} .. {:+.1f})",
                                                   1e3 * p.worker_cpu->difference, 1e3 * p.worker_cpu->ci95_low,
                                                   1e3 * p.worker_cpu->ci95_high)
                                     : std::string());
  if (!p.faults_counted)
    line += "; page faults are not in it (the method that counted the calls does not see them)";
  if (p.disagrees())
    line += fmt::format(". The prediction and the measurement disagree beyond their intervals (measured 95% CI "
                        "{:+.1f} .. {:+.1f} ms): a finding, not a failure",
                        1e3 * p.measured_low, 1e3 * p.measured_high);
  return line;
}

std::vector<ComparisonLines> comparison_lines(const CaseAnalysis& c, const std::string& baseline) {
  std::vector<ComparisonLines> out;
  const std::string per = c.sample_noun_one();  // "launch" for a command timed by its wall time
  for (const auto& o : c.overheads) {
    ComparisonLines l{comparison_headline(c, o, baseline), {}, "", o.compared, o.mismatch_allowed};
    if (const Explanation* e = c.explanation_of(o.env); e && o.compared) l.explanation = explanation_words(*e, baseline);
    const Prediction* predicted = nullptr;
    for (const auto& p : c.predictions)
      if (p.env == o.env) predicted = &p;
    if (predicted) l.details.push_back(prediction_words(*predicted, baseline, per));
    const auto likely = c.likely_causes.find(o.env);
    for (const auto& m : o.mismatches)
      if (likely == c.likely_causes.end() || !m.possible_cause) l.details.push_back(describe_mismatch(m, baseline, o.env));
    if (likely != c.likely_causes.end()) {
      // The possible causes, likeliest first, each with the cause it fits;
      // where the system calls predict the overhead from the environment's
      // own calls, those that fit nothing measured are left to that.
      for (const auto& cause : likely->second)
        if (cause.fits || !predicted || predicted->mix_from != o.env)
          l.details.push_back(likely_cause_words(cause, baseline, o.env, per));
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<std::string> failure_lines(const CaseAnalysis& c) {
  std::vector<std::string> out;
  for (const auto& e : c.envs)
    for (const auto& f : e.failures) out.push_back(fmt::format("{} failed, {}", e.env, f));
  return out;
}

std::vector<std::string> disturbance_lines(const CaseAnalysis& c, const std::string& baseline) {
  std::vector<std::string> out;
  for (const auto& e : c.envs) {
    if (e.disturbed_runs.empty()) continue;
    std::vector<std::string> runs;
    for (const auto& d : e.disturbed_runs) runs.push_back(fmt::format("round {} ({})", d.round, d.disturbance.why()));
    const std::size_t total = e.run_values.size() + (e.disturbed_kept ? 0 : e.disturbed_runs.size());
    out.push_back(fmt::format(
        "{}: {} of {} runs disturbed from outside, {}: {}", e.env, e.disturbed_runs.size(), total,
        e.disturbed_kept ? "KEPT in the statistics, since setting them aside would leave fewer than --runs (no "
                           "replacement made them good: allow more with --max-runs, or quiet the machine)"
                         : "set aside (kept in results.jsonl)",
        fmt::join(runs, "; ")));
  }
  for (const auto& o : c.overheads) {
    const DisturbanceRates& d = o.disturbance;
    if (!d.higher) continue;
    out.push_back(fmt::format(
        "{} was disturbed more often than {}: {} of {} runs against {} of {} (Fisher p = {:.2g}). Its own processes "
        "are not counted as disturbance, so something outside them was busy while it ran (kernel threads working "
        "for it, a daemon it wakes): part of its cost the figures above leave out",
        o.env, baseline, d.disturbed, d.assessed, d.baseline_disturbed, d.baseline_assessed, d.p_value));
  }
  return out;
}

namespace {

// "AMD EPYC, 2 CPUs online, Linux 6.18.44; a virtual machine (the hypervisor
// flag in /proc/cpuinfo; no DMI vendor ...)": where the "host" figures were
// measured, which may itself be a guest. Empty for a run recorded before
// the fingerprint named the machine's kind.
std::string machine_words(const nlohmann::json& fingerprint) {
  const auto* kind = fingerprint.contains("machine") ? &fingerprint["machine"] : nullptr;
  if (!kind || !kind->contains("kind")) return "";
  std::string cpu = fingerprint.contains("cpu") ? fingerprint["cpu"].value("model", std::string("?")) : "?";
  const int online = fingerprint.contains("cpu") ? fingerprint["cpu"].value("online", 0) : 0;
  std::string kernel = fingerprint.value("kernel", std::string("?"));
  kernel = kernel.substr(0, kernel.find(' '));
  const std::string what = kind->value("kind", std::string("?"));
  return fmt::format("{}, {} CPUs online, Linux {}; {} {} ({})", cpu, online, kernel,
                     what == "bare metal" ? "on" : "a", what, kind->value("detected_by", std::string("?")));
}

}  // namespace

std::vector<std::pair<std::string, std::string>> run_facts(const Analysis& analysis, const Manifest& manifest) {
  std::vector<std::pair<std::string, std::string>> facts = {
      {"Run", or_unknown(manifest.run_id)},
      {"Status", manifest.status == RunStatus::unknown ? "?" : run_status_text(manifest.status)},
      {"Started", or_unknown(manifest.started_at)},
      {"Ended", or_unknown(manifest.ended_at)},
      {"Command", command_line(manifest)},
      {"Baseline", analysis.baseline.empty() ? "?" : analysis.baseline},
      {"Methods", kReportMethods}};
  if (const std::string machine = machine_words(manifest.orchestrator); !machine.empty())
    facts.emplace_back("Machine", machine);
  if (manifest.added_rounds) {
    const AddedRounds& a = *manifest.added_rounds;
    std::string precision;
    if (a.precision > 0)
      precision = fmt::format("; --precision +-{:.1f}% {} (widest interval: {}{})", 100 * a.precision,
                              a.widest_half_width && *a.widest_half_width <= a.precision ? "reached" : "NOT reached",
                              a.widest_half_width ? fmt::format("+-{:.1f}%", 100 * *a.widest_half_width) : "none yet",
                              a.widest.empty() ? "" : ", " + a.widest);
    facts.emplace_back("Added rounds", fmt::format("{} after --runs ({} disturbed launches replaced){}; stopped: {}, "
                                                   "after {:.0f} min",
                                                   a.added, a.disturbed_launches, precision, a.stopped,
                                                   a.elapsed_seconds / 60));
  }
  if (analysis.ablation) {
    std::vector<std::string> variants;
    for (const auto& v : analysis.ablation->variants)
      variants.push_back(fmt::format("{} ({})", v.label, ablation_feature_name(v.feature)));
    facts.emplace_back("Explained", fmt::format("{}, against its diagnostic variants {}", analysis.ablation->of,
                                                fmt::join(variants, ", ")));
    if (!analysis.ablation->left_out.empty())
      facts.emplace_back("Features left out", fmt::format("{}", fmt::join(analysis.ablation->left_out, "; ")));
  }
  return facts;
}

std::string status_warning(const Manifest& manifest) {
  switch (manifest.status) {
    case RunStatus::interrupted:
      return "INTERRUPTED: the run was stopped before it finished. The figures use only the launches that "
             "completed; cases and environments may have fewer runs than planned, or none.";
    case RunStatus::running:
      return "The manifest still says \"running\": the run is going on, or was killed before it could record its "
             "end. The figures use only the launches that completed.";
    case RunStatus::not_comparable:
      return "NOT COMPARABLE: the environments would not run like for like, so nothing was measured (the "
             "differences the preflight found are listed below).";
    case RunStatus::not_started:
      return "NOT STARTED: an environment named in --envs could not be prepared, so nothing was measured (its "
             "reason is under Environments; fix it and resume the run, or give --keep-going).";
    case RunStatus::unknown:
      return "The manifest records no status.";
    case RunStatus::completed:
    case RunStatus::completed_with_failures:
      break;
  }
  return "";
}

std::vector<std::string> preflight_lines(const Manifest& manifest) {
  std::vector<std::string> lines;
  if (!manifest.preflight) return lines;
  const std::string baseline = manifest.plan ? manifest.plan->baseline : "baseline";
  for (const auto& [env, list] : *manifest.preflight)
    for (const auto& m : list) {
      const char* how = m.requested        ? "asked for"
                        : m.possible_cause ? kPossibleCauseWords
                        : m.blocking       ? "not asked for"
                                           : "not asked for, cannot change the speed by itself";
      lines.push_back(fmt::format("{}: {}: {} has {}, {} has {} ({})", env, m.field, baseline, m.baseline_value, env,
                                  m.other_value, how));
    }
  return lines;
}

Report build_report(const Analysis& analysis, const Manifest& manifest) {
  Report r;
  r.analysis = &analysis;
  r.facts = run_facts(analysis, manifest);
  r.status_warning = status_warning(manifest);
  r.preflight = preflight_lines(manifest);
  for (CaseKind kind : kCaseKinds) {
    const bool any = has_cases(analysis, kind);
    if (!any && kind != CaseKind::training) continue;
    r.summaries.push_back({kind, any, fmt::format("Summary: {}", kind_name(kind)),
                           any ? summary_caption(kind) : "No training cases in this run.",
                           summary_table(analysis, kind), console_summary_table(analysis, kind)});
  }
  r.backends = backend_table(analysis);
  r.console_backends = console_backend_table(analysis);
  for (CaseKind kind : kCaseKinds)
    for (const auto& c : analysis.cases)
      if (kind_of(c) == kind) r.cases.push_back(case_section(analysis, c));
  r.noise_floor = noise_floor_report(analysis);
  return r;
}

std::vector<std::string> noise_floor_report(const Analysis& analysis) {
  std::vector<std::string> lines;
  if (analysis.calibration)
    for (const auto& n : noise_floors(analysis, analysis.precision))
      for (auto& line : noise_floor_lines(n)) lines.push_back(std::move(line));
  return lines;
}

}  // namespace dlcbench
