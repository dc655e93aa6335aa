#include "analysis/launch_fold.h"

#include <algorithm>

#include <fmt/format.h>

#include "model/run_records.h"
#include "core/errors.h"
#include "core/words.h"

namespace dlcbench {
namespace {

EnvironmentStats* find_env(Analysis& a, const std::string& case_id, const std::string& env) {
  for (auto& c : a.cases)
    if (c.case_id == case_id)
      for (auto& e : c.envs)
        if (e.env == env) return &e;
  return nullptr;
}

// The first fingerprint of an environment describes it; a later one that
// differs is a change between rounds, compared like for like.
void take_fingerprint(EnvironmentStats& es, const ResultRecord& r, const nlohmann::json& fingerprint) {
  if (!es.fingerprint) {
    es.fingerprint = fingerprint;
    es.dataset = r.dataset;
    es.in_container = r.in_container;
    es.fs_type = r.fs_type;
    es.estimated_limit = r.estimated_limit;
    return;
  }
  for (const auto& m : compare_fingerprints(*es.fingerprint, fingerprint))
    es.fingerprint_changes.push_back(
        fmt::format("round {}: {} {} -> {}", r.round, m.field, m.baseline_value, m.other_value));
}

// `run --resume` starts here: launches still unfinished were cut off by the
// end of the earlier session and are measured again after this line, so
// their samples must not join the new launch's.
void end_cut_off_launches(Analysis& a, FoldedLaunches& f) {
  for (const auto& [key, p] : f.unfinished)
    if (!p.measured.empty() || !p.warmups.empty())
      a.notes.push_back(fmt::format("{} in {}, round {}: {} of a launch cut off before the run was resumed; kept "
                                    "in results.jsonl, left out of the statistics",
                                    std::get<0>(key), std::get<1>(key), std::get<2>(key),
                                    counted(p.measured.size() + p.warmups.size(), "sample", "samples")));
  f.unfinished.clear();
}

void finish_launch(Analysis& a, FoldedLaunches& f, const LaunchId& key, const ResultRecord& r, std::size_t line) {
  FinishedLaunch done{std::move(f.unfinished[key]), false, r.cause};
  f.unfinished.erase(key);
  done.ok = r.ok && !done.samples.measured.empty();
  auto earlier = f.finished.find(key);
  if (earlier == f.finished.end()) {
    f.finished.emplace(key, std::move(done));
  } else if (!earlier->second.ok) {
    // A failed launch measured again by `run --resume`: the new one counts.
    a.notes.push_back(fmt::format("{} in {}, round {} failed ({}) and was measured again when the run was resumed",
                                  std::get<0>(key), std::get<1>(key), r.round, earlier->second.cause));
    earlier->second = std::move(done);
  } else {
    a.notes.push_back(fmt::format("{} in {}, round {}: a second launch record (line {}) left out; the first "
                                  "successful one counts",
                                  std::get<0>(key), std::get<1>(key), r.round, line));
  }
}

// One record of a planned case and environment.
void fold_case_record(Analysis& a, FoldedLaunches& f, EnvironmentStats& es, const ResultRecord& r,
                      const nlohmann::json& record, std::size_t line) {
  const LaunchId key{*r.case_id, es.env, r.round};
  if (r.type == "fingerprint") {
    take_fingerprint(es, r, record);
  } else if (r.type == "sample") {
    LaunchSamples& p = f.unfinished[key];
    if (r.phase == "warmup") {
      p.warmups.push_back(r.seconds);
    } else {
      p.measured.push_back(r.seconds);
      if (r.work) es.work = *r.work;
      if (r.loss) p.losses.push_back(*r.loss);
      if (r.data_wait_seconds) p.data_wait_seconds = p.data_wait_seconds.value_or(0) + *r.data_wait_seconds;
      for (const auto& [kind, ns] : r.call_ns) p.call_ns[kind].push_back(ns);
    }
  } else if (r.type == "call_counts") {
    es.operation_mix = r.operation_mix;  // its own launch, outside every round
  } else if (r.type == "accounting") {
    f.unfinished[key].accounting = record;
  } else if (r.type == "listening") {
    f.unfinished[key].serve_path = record.value("path", "");
  } else if (r.type == "load") {
    if (const auto rate = record.find("achieved_rate"); rate != record.end() && rate->is_number())
      f.unfinished[key].achieved_rate = rate->get<double>();
  } else if (r.type == "command_startup") {
    f.unfinished[key].startup_seconds = r.seconds;
  } else if (r.type == "metric_refused") {
    FoldedLaunches::Refused& refused = f.refused[{*r.case_id, es.env}];
    refused.count += r.refused_count;
    for (const auto& v : r.refused_values) {
      const bool shown = std::find(refused.values.begin(), refused.values.end(), v) != refused.values.end();
      if (!shown && refused.values.size() < kRefusedValuesKept) refused.values.push_back(v);
    }
  } else if (r.type == "leftovers") {
    FoldedLaunches::Leftovers& left = f.leftovers[{*r.case_id, es.env}];
    ++left.launches;
    for (const auto& name : r.leftover_names) ++left.names[name];
    left.killed = left.killed || r.ended_with == "SIGKILL";
  } else if (r.type == "launch") {
    finish_launch(a, f, key, r, line);
  }
}

}  // namespace

FoldedLaunches fold_launches(Analysis& a, const std::vector<nlohmann::json>& records,
                             const std::vector<std::size_t>& line_numbers) {
  FoldedLaunches f;
  for (std::size_t index = 0; index < records.size(); ++index) {
    const std::size_t line = index < line_numbers.size() ? line_numbers[index] : index + 1;
    ResultRecord r;
    try {
      r = read_result_record(records[index]);
    } catch (const DataError& e) {
      if (f.malformed++ == 0) f.first_malformed = fmt::format("line {}: {}", line, e.what());
      continue;
    }
    if (r.type == "launch") ++f.launch_records;
    if (r.type == "resume") {
      end_cut_off_launches(a, f);
    } else if (r.type == "environment_unavailable" || r.type == "environment_dropped") {
      a.notes.push_back(fmt::format("{}: {}", r.env.value_or("?"), r.reason));
    } else if (r.case_id && r.env) {
      if (EnvironmentStats* es = find_env(a, *r.case_id, *r.env))
        fold_case_record(a, f, *es, r, records[index], line);
      else if (r.type == "sample" && f.unknown++ == 0)
        f.first_unknown = fmt::format("line {}: case {} in {}", line, *r.case_id, *r.env);
    }
  }
  return f;
}

}  // namespace dlcbench
