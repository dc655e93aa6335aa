// The results.jsonl reader: any text gives records (JSON objects) and bad
// lines, each line counted once; each record is read field by field as
// analyze() reads it, and fingerprints are compared as between rounds.
#include "analysis/comparability.h"
#include "model/run_records.h"
#include "core/errors.h"
#include "core/results_file.h"
#include "fuzz_targets.h"

namespace dlcbench::fuzz {

void results_jsonl(Input input) {
  const std::string_view text = as_text(input);
  const ResultsContent content = parse_results_text(text);
  expect(content.records.size() == content.line_numbers.size(), "every record has its line number");
  std::size_t lines = 0;
  for (std::size_t pos = 0; pos < text.size(); ++lines) {
    const auto newline = text.find('\n', pos);
    pos = newline == std::string_view::npos ? text.size() : newline + 1;
  }
  expect(content.records.size() + content.bad_lines.size() <= lines, "no line is counted twice");
  for (std::size_t i = 1; i < content.line_numbers.size(); ++i)
    expect(content.line_numbers[i - 1] < content.line_numbers[i], "records keep the file's order");

  const nlohmann::json* first_fingerprint = nullptr;
  for (const auto& record : content.records) {
    expect(record.is_object(), "a record is a JSON object");
    try {
      const ResultRecord r = read_result_record(record);
      if (r.type == "sample") expect(r.seconds >= 0, "a sample's seconds are not negative");
      if (r.type != "fingerprint") continue;
      if (!first_fingerprint) first_fingerprint = &record;
      for (const Mismatch& m : compare_fingerprints(*first_fingerprint, record, {"/cpu/affinity"}))
        expect(!m.field.empty(), "a mismatch names its field");
    } catch (const DataError&) {
    }
  }
}

}  // namespace dlcbench::fuzz

DLCBENCH_FUZZ_ENTRY(dlcbench::fuzz::results_jsonl)
