#include "data/token_reader.h"

#include <fstream>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/file_reader.h"

namespace fs = std::filesystem;

namespace dlcbench {
namespace {

// White space as the PTB loader splits words (the newline ends a line).
bool separates(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

std::vector<std::uint64_t> token_offsets(const std::string& text) {
  std::vector<std::uint64_t> offsets;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '\n') {
      offsets.push_back(i++);
    } else if (separates(text[i])) {
      ++i;
    } else {
      offsets.push_back(i);
      while (i < text.size() && text[i] != '\n' && !separates(text[i])) ++i;
    }
  }
  if (!text.empty() && text.back() != '\n') offsets.push_back(text.size());  // the last line's <eos>
  return offsets;
}

TokenReader::TokenReader(const fs::path& location) : corpus_(load_ptb_format(location)) {
  file_ = fs::path(corpus_.source) / kPtbFiles[0];
  std::ifstream in(file_, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  file_size_ = text.size();
  offsets_ = token_offsets(text);
  if (offsets_.size() != corpus_.train.size())
    throw DataError(fmt::format("{}: found {} tokens where the loader found {}; the file changed while it was read",
                                file_.string(), offsets_.size(), corpus_.train.size()));
  reader_ = std::make_unique<FileReader>(file_);
}

TokenReader::~TokenReader() = default;

void TokenReader::read(std::size_t first, std::size_t n, std::int64_t* out) const {
  if (n == 0) return;
  if (first + n > offsets_.size())
    throw std::out_of_range(fmt::format("tokens {}..{} of {}", first, first + n, offsets_.size()));
  const std::uint64_t begin = offsets_[first];
  const std::uint64_t end = first + n < offsets_.size() ? offsets_[first + n] : file_size_;
  std::string bytes(end - begin, '\0');
  reader_->read_at(begin, bytes.data(), bytes.size());
  const std::int64_t eos = corpus_.vocab.id(kEndOfSentence);
  const auto unk = corpus_.vocab.find(kUnknownWord);
  std::size_t produced = 0, i = 0;
  while (produced < n && i < bytes.size()) {
    if (bytes[i] == '\n') {
      out[produced++] = eos;
      ++i;
    } else if (separates(bytes[i])) {
      ++i;
    } else {
      const std::size_t start = i;
      while (i < bytes.size() && bytes[i] != '\n' && !separates(bytes[i])) ++i;
      const auto id = corpus_.vocab.find(std::string_view(bytes).substr(start, i - start));
      out[produced++] = id ? *id : unk.value_or(eos);
    }
  }
  if (produced < n && end == file_size_) out[produced++] = eos;  // a last line without a newline
  if (produced != n)
    throw DataError(fmt::format("{}: bytes {}..{} hold {} tokens, expected {}; the file changed while it was read",
                                file_.string(), begin, end, produced, n));
}

}  // namespace dlcbench
