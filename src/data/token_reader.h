// Language-model windows read straight from ptb.train.txt for
// `--input disk`: every step reads, for each batch column, the bytes of its
// next sequence from the file and turns them into word ids, so the step pays
// the file system's cost as a data loader without a cache would.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/file_reader.h"
#include "data/ptb.h"

namespace dlcbench {

class TokenReader {
 public:
  // Reads the corpus once to learn the vocabulary and where each token of
  // the training text starts (not timed); later reads go to the file.
  explicit TokenReader(const std::filesystem::path& location);
  ~TokenReader();
  TokenReader(const TokenReader&) = delete;
  TokenReader& operator=(const TokenReader&) = delete;

  std::size_t count() const { return offsets_.size(); }
  const TokenCorpus& corpus() const { return corpus_; }
  // Word ids of tokens [first, first + n) of the training text, read from
  // the file: exactly what corpus().train holds there.
  void read(std::size_t first, std::size_t n, std::int64_t* out) const;

 private:
  TokenCorpus corpus_;
  std::filesystem::path file_;
  std::uint64_t file_size_ = 0;
  std::vector<std::uint64_t> offsets_;  // first byte of each token; an <eos> is its newline
  std::unique_ptr<FileReader> reader_;
};

// Byte offset of every token tokenize_file() gives for `text`: a word's
// first byte, an <eos> its line's newline (text.size() for a last line
// without one).
std::vector<std::uint64_t> token_offsets(const std::string& text);

}  // namespace dlcbench
