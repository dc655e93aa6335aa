#include "model/run_records.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_fields.h"

namespace dlcbench {
namespace {

using nlohmann::json;

using json_fields::bool_field;
using json_fields::int_field;
using json_fields::number_field;
using json_fields::string_field;
using json_fields::wrong_type;

// object[a][b] if both levels are objects holding them; else nullptr.
const json* nested(const json& object, const char* a, const char* b) {
  const auto outer = object.find(a);
  if (outer == object.end() || !outer->is_object()) return nullptr;
  const auto inner = outer->find(b);
  return inner == outer->end() ? nullptr : &*inner;
}

}  // namespace

ResultRecord read_result_record(const json& r) {
  const std::string where = "record.";
  if (!r.is_object()) wrong_type("a record", r, "a JSON object");
  ResultRecord rec;
  rec.type = string_field(r, "type", "", where);
  if (r.contains("case") && r["case"].is_string()) rec.case_id = r["case"].get<std::string>();
  if (r.contains("env") && r["env"].is_string()) rec.env = r["env"].get<std::string>();
  if (rec.type == "environment_unavailable" || rec.type == "environment_dropped")
    rec.reason = string_field(r, "reason", "", where);
  rec.round = int_field(r, "round", 0, where);
  if (rec.type == "call_counts") {
    OperationMix mix;
    mix.unavailable = string_field(r, "unavailable", "", where);
    if (mix.unavailable.empty()) {
      mix.method = string_field(r, "method", "", where);
      mix.batches = int_field(r, "batches", 0, where);
      if (mix.batches <= 0) throw DataError("a call_counts record has no batches");
      mix.threads = static_cast<std::size_t>(int_field(r, "threads", 0, where));
      const double batches = mix.batches;
      const auto per_batch = [&](const char* key) {
        const auto n = number_field(r, key, where);
        if (!n || *n < 0) throw DataError(fmt::format("a call_counts record has no count '{}'", key));
        return *n / batches;
      };
      mix.syscalls = per_batch("syscalls");
      if (r.contains("page_faults")) mix.page_faults = per_batch("page_faults");
      if (r.contains("context_switches")) mix.context_switches = per_batch("context_switches");
      if (r.contains("stub_page_faults")) mix.stub_page_faults = per_batch("stub_page_faults");
      if (const auto kinds = r.find("by_kind"); kinds != r.end() && kinds->is_object())
        for (const auto& [kind, n] : kinds->items())
          if (n.is_number() && n.get<double>() >= 0) mix.by_kind[kind] = n.get<double>() / batches;
    }
    rec.operation_mix = std::move(mix);
  }
  if (rec.type == "sample") {
    const auto seconds = number_field(r, "seconds", where);
    if (!seconds || *seconds < 0)
      throw DataError(seconds ? fmt::format("a sample's seconds is {}, which is negative", *seconds)
                              : "a sample has no seconds");
    rec.seconds = *seconds;
    rec.phase = string_field(r, "phase", "", where);
    // Optional figures: anything but a finite number is ignored (a loss
    // that diverged is written as null).
    for (auto [key, out] : {std::pair{"work", &rec.work}, std::pair{"loss", &rec.loss}})
      if (const auto it = r.find(key); it != r.end() && it->is_number() && std::isfinite(it->get<double>()))
        *out = it->get<double>();
    if (const json* wait = nested(r, "detail", "data_wait_seconds");
        wait && wait->is_number() && std::isfinite(wait->get<double>()) && wait->get<double>() >= 0)
      rec.data_wait_seconds = wait->get<double>();
    if (const json* costs = nested(r, "detail", "ns_per_call"); costs && costs->is_object())
      for (const auto& [kind, ns] : costs->items())
        if (ns.is_number() && std::isfinite(ns.get<double>()) && ns.get<double>() > 0) rec.call_ns[kind] = ns.get<double>();
  } else if (rec.type == "command_startup") {
    const auto seconds = number_field(r, "seconds", where);
    if (!seconds || *seconds < 0)
      throw DataError(seconds ? fmt::format("a command's start-up seconds is {}, which is negative", *seconds)
                              : "a command's start-up has no seconds");
    rec.seconds = *seconds;
  } else if (rec.type == "metric_refused") {
    const auto count = number_field(r, "count", where);
    if (!count || *count < 1) throw DataError("a metric_refused record has no count of at least 1");
    rec.refused_count = static_cast<std::size_t>(*count);
    if (const auto values = r.find("values"); values != r.end() && values->is_array())
      for (const auto& v : *values)
        if (v.is_string()) rec.refused_values.push_back(v.get<std::string>());
  } else if (rec.type == "leftovers") {
    const auto processes = r.find("processes");
    if (processes == r.end() || !processes->is_array() || processes->empty())
      throw DataError("a leftovers record names no processes");
    for (const auto& p : *processes)
      rec.leftover_names.push_back(p.is_object() && p.contains("name") && p["name"].is_string()
                                       ? p["name"].get<std::string>()
                                       : std::string("?"));
    rec.ended_with = string_field(r, "ended_with", "SIGTERM", where);
  } else if (rec.type == "launch") {
    rec.ok = bool_field(r, "ok", false, where);
    rec.cause = string_field(r, "cause", "failed", where);
  } else if (rec.type == "fingerprint") {
    // dlcbench-probe's knows no data set: a command reads what it reads.
    if (const auto probe = r.find("probe"); probe != r.end() && probe->is_boolean() && probe->get<bool>())
      rec.dataset = "";
    if (const json* name = nested(r, "dataset", "name"); name && name->is_string()) rec.dataset = name->get<std::string>();
    if (const json* c = nested(r, "container", "in_container"); c && c->is_boolean()) rec.in_container = c->get<bool>();
    if (const json* fs = nested(r, "micro", "fs_type"); fs && fs->is_string()) rec.fs_type = fs->get<std::string>();
    // gpu-gemm's peak, gpu-copy's bandwidth limit.
    for (const char* key : {"estimated_peak_gflops", "estimated_limit_gb_per_s"})
      if (const json* limit = nested(r, "micro", key);
          limit && limit->is_number() && std::isfinite(limit->get<double>()) && limit->get<double>() > 0)
        rec.estimated_limit = limit->get<double>();
  }
  return rec;
}

}  // namespace dlcbench
