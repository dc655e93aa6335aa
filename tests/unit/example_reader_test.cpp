#include "data/example_reader.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "data/cifar10.h"
#include "data/dataset.h"
#include "test_files.h"

namespace dlcbench {
namespace {

using ::testing::HasSubstr;

TEST(ExampleReader, MnistExamplesMatchTheInMemoryLoader) {
  testing::TempDir dir;
  testing::write_mnist_split(dir / "mnist", "train", 7);
  const ClassificationData memory = load_mnist_training(dir.path());
  auto reader = open_example_reader("mnist", dir.path());
  ASSERT_EQ(reader->count(), 7u);
  std::vector<float> example(reader->example_size());
  for (std::size_t i : {0u, 3u, 6u}) {
    EXPECT_EQ(reader->read(i, example.data()), memory.labels[i]);
    EXPECT_TRUE(std::equal(example.begin(), example.end(), memory.features.begin() + static_cast<long>(i * 784)));
  }
}

TEST(ExampleReader, CifarExamplesMatchTheInMemoryLoaderAcrossFiles) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "cifar10");
  for (int f = 1; f <= 5; ++f) {
    std::vector<std::uint8_t> bytes;
    for (int r = 0; r < 2; ++r) {  // two records a file
      bytes.push_back(static_cast<std::uint8_t>((f + r) % 10));
      for (int p = 0; p < 3072; ++p) bytes.push_back(static_cast<std::uint8_t>((p * 7 + f * 13 + r) % 256));
    }
    testing::write_bytes(dir / "cifar10" / fmt::format("data_batch_{}.bin", f), bytes);
  }
  testing::write_bytes(dir / "cifar10/test_batch.bin", std::vector<std::uint8_t>(3073, 0));
  const ClassificationData memory = load_cifar10_training(dir.path());
  auto reader = open_example_reader("cifar10", dir.path());
  ASSERT_EQ(reader->count(), 10u);
  std::vector<float> example(reader->example_size());
  for (std::size_t i : {0u, 1u, 4u, 9u}) {
    EXPECT_EQ(reader->read(i, example.data()), memory.labels[i]) << i;
    EXPECT_TRUE(std::equal(example.begin(), example.end(), memory.features.begin() + static_cast<long>(i * 3072)))
        << i;
  }
}

TEST(ExampleReader, TextIsNotReadPerExample) {
  testing::TempDir dir;
  try {
    open_example_reader("ptb", dir.path());
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no examples to read one by one"));
  }
}

TEST(ExampleReader, AFileThatShrinksAfterOpeningIsAClearError) {
  testing::TempDir dir;
  testing::write_mnist_split(dir / "mnist", "train", 4);
  auto reader = open_example_reader("mnist", dir.path());
  std::filesystem::resize_file(dir / "mnist/train-images-idx3-ubyte", 100);
  std::vector<float> example(784);
  try {
    reader->read(3, example.data());
    FAIL();
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), HasSubstr("train-images-idx3-ubyte"));
    EXPECT_THAT(e.what(), HasSubstr("end of file"));
  }
}

}  // namespace
}  // namespace dlcbench
