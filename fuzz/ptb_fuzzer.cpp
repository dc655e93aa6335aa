// The PTB-format text parser and the token reader's offsets: any three texts
// give a corpus whose every token the reader finds at the same place, or a
// DataError. Batching and windows are run on what was read, as a training
// step would.
#include <string_view>

#include "core/errors.h"
#include "data/ptb.h"
#include "data/token_reader.h"
#include "fuzz_targets.h"

namespace dlcbench::fuzz {
namespace {

// A small limit as well as PTB's, so the over-the-limit error is reached.
constexpr std::size_t kSmallVocabulary = 16;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

// TokenReader::read() turns the bytes at each offset back into the id the
// loader gave: check that the two agree on every token.
void check_offsets(const std::string& text, const std::vector<std::int64_t>& ids, const Vocabulary& vocab) {
  const std::vector<std::uint64_t> offsets = token_offsets(text);
  expect(offsets.size() == ids.size(), "the token reader finds as many tokens as the loader");
  const std::int64_t eos = vocab.id(kEndOfSentence);
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    const std::uint64_t at = offsets[i];
    expect(at <= text.size(), "a token offset lies in the text");
    if (at == text.size() || text[at] == '\n') {
      expect(ids[i] == eos, "a newline (or the end of a last line) is <eos>");
      continue;
    }
    std::size_t end = at;
    while (end < text.size() && !is_space(text[end])) ++end;
    const std::string_view word(text.data() + at, end - at);
    const auto id = vocab.find(word);
    expect(id ? ids[i] == *id : ids[i] == vocab.find(kUnknownWord), "the word at an offset has the loader's id");
  }
}

void train_on(const std::vector<std::int64_t>& ids, std::size_t batch, std::size_t seq_len) {
  try {
    const TokenBatches b = batchify(ids, batch);
    expect(b.data.size() == b.steps * b.batch, "batches are steps x batch");
    const std::size_t windows = windows_per_epoch(b, seq_len);
    for (const std::size_t index : {std::size_t{0}, windows - 1, windows, 7 * windows + 3}) {
      const TokenWindow w = token_window(b, seq_len, index);
      expect(w.input.size() == seq_len * batch && w.target.size() == seq_len * batch, "a window is seq_len x batch");
    }
  } catch (const UsageError&) {
  }
}

}  // namespace

void ptb(Input input) {
  const std::vector<std::string> texts = split_at_nul(input, 3);
  for (const std::size_t limit : {kPtbVocabularyLimit, kSmallVocabulary}) {
    try {
      const TokenCorpus c = parse_ptb_texts(texts[0], texts[1], texts[2], "fuzz-ptb", limit);
      expect(c.vocab.size() <= limit, "the vocabulary keeps to its limit");
      expect(c.vocab.contains(kEndOfSentence), "the vocabulary holds <eos>");
      check_offsets(texts[0], c.train, c.vocab);
      for (const auto* split : {&c.train, &c.valid, &c.test})
        for (const std::int64_t id : *split)
          expect(id >= 0 && static_cast<std::size_t>(id) < c.vocab.size(), "every id is in the vocabulary");
      const std::size_t batch = 1 + input.size() % 5, seq_len = 1 + input.size() % 3;
      train_on(c.train, batch, seq_len);
    } catch (const DataError&) {
    }
  }
}

}  // namespace dlcbench::fuzz

DLCBENCH_FUZZ_ENTRY(dlcbench::fuzz::ptb)
