#include "data/token_reader.h"

#include <fstream>

#include <gtest/gtest.h>

#include "test_files.h"

namespace dlcbench {
namespace {

using testing::write_text;

// Every token range read from the file equals the loader's ids, including
// blank lines, tabs and runs of spaces, and a last line with no newline.
TEST(TokenReader, ReadsExactlyWhatTheLoaderTokenises) {
  testing::TempDir dir;
  write_text(dir / "ptb.train.txt", " the cat  sat\n\nthe\tdog <unk> sat \n a cat");
  write_text(dir / "ptb.valid.txt", "the cat\n");
  write_text(dir / "ptb.test.txt", "the dog\n");
  TokenReader reader(dir.path());
  const auto& train = reader.corpus().train;
  ASSERT_EQ(reader.count(), train.size());
  ASSERT_EQ(train.size(), 13u);  // 3 + eos, eos, 4 + eos, 2 + eos
  std::vector<std::int64_t> got(train.size());
  for (std::size_t first = 0; first < train.size(); ++first)
    for (std::size_t n = 1; first + n <= train.size(); ++n) {
      reader.read(first, n, got.data());
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], train[first + i]) << first << "+" << i << " of " << n;
    }
}

TEST(TokenReader, OffsetsPointAtWordsAndNewlines) {
  EXPECT_EQ(token_offsets("ab c\n\nd"), (std::vector<std::uint64_t>{0, 3, 4, 5, 6, 7}));
  EXPECT_EQ(token_offsets("x\n"), (std::vector<std::uint64_t>{0, 1}));
}

TEST(TokenReader, AReadPastTheEndIsRefused) {
  testing::TempDir dir;
  for (const char* f : {"ptb.train.txt", "ptb.valid.txt", "ptb.test.txt"}) write_text(dir / f, "a b\n");
  TokenReader reader(dir.path());
  std::vector<std::int64_t> got(4);
  EXPECT_THROW(reader.read(2, 2, got.data()), std::out_of_range);
}

}  // namespace
}  // namespace dlcbench
