#include "core/results_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <fmt/format.h>

namespace dlcbench {
namespace {

void write_all(int fd, std::string_view data, const std::filesystem::path& file) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("cannot write {}: {}", file.string(), std::strerror(errno)));
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

// How deep dlcbench reads JSON. Its own files nest a few levels. nlohmann's
// parser keeps its own stack, but every later walk of a value (dump, copy,
// comparison) recurses once per level, so a hostile file nested some
// thousands deep overflowed the stack there: fuzz/regressions/manifest/
// handmade-deeply-nested did, at 1,802 levels, in Clang's AddressSanitizer
// build, whose frames are larger.
constexpr int kMaxJsonDepth = 64;

// Parses `text`, keeping nothing nested deeper than kMaxJsonDepth;
// `too_deep` says whether anything was left out.
nlohmann::json parse_within_depth(std::string_view text, bool allow_exceptions, bool& too_deep) {
  too_deep = false;
  return nlohmann::json::parse(
      text,
      [&too_deep](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        if (depth <= kMaxJsonDepth) return true;
        too_deep = true;
        return false;  // left out, and not stored
      },
      allow_exceptions);
}

}  // namespace

ResultsWriter::ResultsWriter(const std::filesystem::path& file) : path_(file) {
  // 0666 less the user's umask, as any tool's output file.
  fd_ = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
  if (fd_ < 0)
    throw std::runtime_error(fmt::format("cannot open {} for appending: {}", file.string(),
                                         std::strerror(errno)));
}

ResultsWriter::~ResultsWriter() {
  if (fd_ >= 0) {
    ::fsync(fd_);
    ::close(fd_);
  }
}

void ResultsWriter::append(const nlohmann::json& record) {
  // Invalid UTF-8 from a child's output must not make the line unwritable.
  std::string line = record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line.push_back('\n');
  write_all(fd_, line, path_);
}

void ResultsWriter::sync() { ::fdatasync(fd_); }

namespace {

// The whole file, or std::runtime_error naming it.
std::string read_whole_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read {}", file.string()));
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw std::runtime_error(fmt::format("cannot read {}: {}", file.string(), std::strerror(errno)));
  return text;
}

}  // namespace

ResultsContent read_results(const std::filesystem::path& file) { return parse_results_text(read_whole_file(file)); }

ResultsContent parse_results_text(std::string_view text) {
  ResultsContent content;
  std::size_t number = 0, pos = 0;
  while (pos < text.size()) {  // a final newline does not start another line
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (line.empty()) continue;
    bool too_deep = false;
    auto j = parse_within_depth(line, /*allow_exceptions=*/false, too_deep);
    if (too_deep || j.is_discarded() || !j.is_object())
      content.bad_lines.push_back(number);
    else {
      content.records.push_back(std::move(j));
      content.line_numbers.push_back(number);
    }
  }
  return content;
}

void write_json_atomically(const std::filesystem::path& file, const nlohmann::json& value) {
  auto tmp = file;
  tmp += ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    throw std::runtime_error(fmt::format("cannot write {}: {}", tmp.string(), std::strerror(errno)));
  try {
    write_all(fd, value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", tmp);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::fsync(fd);
  ::close(fd);
  std::filesystem::rename(tmp, file);
}

nlohmann::json read_json_file(const std::filesystem::path& file) {
  return parse_json_text(read_whole_file(file), file.string());
}

nlohmann::json parse_json_text(std::string_view text, const std::string& source) {
  bool too_deep = false;
  nlohmann::json value;
  try {
    value = parse_within_depth(text, /*allow_exceptions=*/true, too_deep);
  } catch (const nlohmann::json::exception& e) {
    // Not only parse_error: a number too large for a double is an
    // out_of_range (found by fuzz/manifest_fuzzer.cpp).
    throw std::runtime_error(fmt::format("{} is not valid JSON: {}", source, e.what()));
  }
  if (too_deep)
    throw std::runtime_error(fmt::format("{} nests deeper than {} levels: it is not a file dlcbench wrote", source,
                                         kMaxJsonDepth));
  return value;
}

}  // namespace dlcbench
