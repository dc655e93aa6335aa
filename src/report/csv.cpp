#include "report/csv.h"

#include <cmath>
#include <iterator>
#include <map>

#include <fmt/format.h>

#include "workloads/micro/micro_workloads.h"

namespace dlcbench {
namespace {

// A JSON value as a cell: strings as they are, numbers in their shortest
// exact form, nothing for a missing or null value.
std::string cell(const nlohmann::json& record, const char* key) {
  if (!record.is_object()) return "";
  const auto it = record.find(key);
  if (it == record.end() || it->is_null()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_float() && !std::isfinite(it->get<double>())) return "";
  return it->dump();
}

// A micro-benchmark sample's figure (GFLOP/s, GB/s, MB/s from its work and
// seconds; ms from its seconds) to 12 significant digits, beyond the timer's
// resolution but without the noise of the conversion (0.145853, not
// 0.14585299999999998); "" for other samples and for a rate without work or
// a positive time.
std::string figure_cell(const MicroWorkloadInfo* micro, const nlohmann::json& record) {
  if (!micro) return "";
  const auto seconds = record.find("seconds"), work = record.find("work");
  if (seconds == record.end() || !seconds->is_number()) return "";
  const double s = seconds->get<double>();
  if (micro->rate && (work == record.end() || !work->is_number() || !(s > 0))) return "";
  const double figure = micro_figure(*micro, micro->rate ? work->get<double>() : 0, s);
  return std::isfinite(figure) ? fmt::format("{:.12g}", figure) : "";
}

// A user's command: each sample's figure as the command printed it
// ("value"; the seconds of a launch's run time).
std::string command_figure_cell(const nlohmann::json& record) {
  for (const char* key : {"value", "seconds"})
    if (const auto v = record.find(key); v != record.end() && v->is_number() && std::isfinite(v->get<double>()))
      return fmt::format("{:.12g}", v->get<double>());
  return "";
}

// The case's columns (workload, backend, device, batch, input) as the plan
// records it; a case recorded without its spec gives its workload alone.
std::vector<std::string> case_cells(const PlannedCase* c) {
  if (!c) return {"", "", "", "", ""};
  if (!c->spec_complete) return {c->workload, "", "", "", ""};
  const CaseSpec& s = c->spec;
  return {s.workload, s.backend, s.device, std::to_string(s.batch), s.input};
}

}  // namespace

const std::vector<std::string>& samples_csv_columns() {
  // New columns go at the end, so readers that index columns keep working.
  static const std::vector<std::string> columns = {
      "run_id", "case", "workload", "backend", "device",       "batch", "input",       "env",   "round",
      "phase",  "iter", "seconds",  "loss",    "read_seconds", "work",  "figure_unit", "figure"};
  return columns;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  // push_back throughout: GCC 12 warns falsely (-Wrestrict) on string + char.
  std::string out;
  out.reserve(text.size() + 2);
  out.push_back('"');
  for (char ch : text) {
    if (ch == '"') out.push_back('"');
    out.push_back(ch);
  }
  out.push_back('"');
  return out;
}

void write_samples_csv(std::ostream& out, const Manifest& manifest, const std::vector<nlohmann::json>& records) {
  const auto& columns = samples_csv_columns();
  for (std::size_t i = 0; i < columns.size(); ++i) out << (i ? "," : "") << columns[i];
  out << "\n";

  const std::string& run_id = manifest.run_id;
  std::map<std::string, const PlannedCase*> cases;
  if (manifest.plan)
    for (const auto& c : manifest.plan->cases) cases.emplace(c.id, &c);

  for (const auto& r : records) {
    if (!r.is_object() || r.value("type", "") != "sample") continue;
    const std::string case_id = cell(r, "case");
    const auto found = cases.find(case_id);
    const PlannedCase* c = found == cases.end() ? nullptr : found->second;
    const auto case_columns = case_cells(c);
    const MicroWorkloadInfo* micro = find_micro_workload(case_columns[0]);
    const bool command = c && c->spec_complete && c->spec.is_command();
    const std::string fields[] = {run_id,
                                  case_id,
                                  case_columns[0],
                                  case_columns[1],
                                  case_columns[2],
                                  case_columns[3],
                                  case_columns[4],
                                  cell(r, "env"),
                                  cell(r, "round"),
                                  cell(r, "phase"),
                                  cell(r, "iter"),
                                  cell(r, "seconds"),
                                  cell(r, "loss"),
                                  cell(r, "read_seconds"),
                                  micro ? cell(r, "work") : "",
                                  micro ? micro->unit(c && c->spec_complete ? c->spec.variant : "")
                                        : command ? c->spec.command.metric.unit : "",
                                  micro ? figure_cell(micro, r) : command ? command_figure_cell(r) : ""};
    for (std::size_t i = 0; i < std::size(fields); ++i) out << (i ? "," : "") << csv_field(fields[i]);
    out << "\n";
  }
}

}  // namespace dlcbench
