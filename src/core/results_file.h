// results.jsonl and manifest.json: the only inputs of every report.
//
// results.jsonl gets one JSON object per line, each written with a single
// write(2) as it arrives, so a run that is killed keeps every line it had
// measured and at most loses the line being written.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlcbench {

class ResultsWriter {
 public:
  explicit ResultsWriter(const std::filesystem::path& file);
  ~ResultsWriter();
  ResultsWriter(const ResultsWriter&) = delete;
  ResultsWriter& operator=(const ResultsWriter&) = delete;

  void append(const nlohmann::json& record);
  // Forces what was appended onto the disk (end of each worker run).
  void sync();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

struct ResultsContent {
  std::vector<nlohmann::json> records;
  std::vector<std::size_t> line_numbers;  // of each record, 1-based
  // Lines that were not valid JSON objects (a torn last line after a crash),
  // with their 1-based line numbers, so a reader can say what it skipped.
  std::vector<std::size_t> bad_lines;
};
ResultsContent read_results(const std::filesystem::path& file);
// The same from the file's text.
ResultsContent parse_results_text(std::string_view text);

// Writes JSON to a temporary file beside `file` and renames it into place,
// so a reader never sees half a manifest.
void write_json_atomically(const std::filesystem::path& file, const nlohmann::json& value);
nlohmann::json read_json_file(const std::filesystem::path& file);
// The same from the file's text; `source` names it in the error. Both, and
// read_results, refuse JSON nested deeper than 64 levels (a results line so
// nested is a bad line): dlcbench writes a few, and a deeper value would
// overflow the stack of whatever walks it later.
nlohmann::json parse_json_text(std::string_view text, const std::string& source);

}  // namespace dlcbench
