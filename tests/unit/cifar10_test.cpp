#include "data/cifar10.h"

#include <functional>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "data/dataset.h"
#include "test_files.h"

namespace dlcbench {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempDir;

using testing::error_of;

// Appends one record of the CIFAR-10 binary version: the label byte, then
// the red, green and blue planes (1024 bytes each), filled with r, g and b.
void append_record(std::vector<std::uint8_t>& out, std::uint8_t label, std::uint8_t r, std::uint8_t g,
                   std::uint8_t b) {
  out.push_back(label);
  for (std::uint8_t v : {r, g, b}) out.insert(out.end(), 1024, v);
}

// A complete set: batch k (1..5) holds two records with labels k-1 and
// k+4 and every pixel 10*k, except that pixel 0 of the first record's green
// plane is 128; the test batch holds one record with label 9.
void write_cifar10_set(const fs::path& dir) {
  fs::create_directories(dir);
  for (int k = 1; k <= 5; ++k) {
    std::vector<std::uint8_t> bytes;
    const auto v = static_cast<std::uint8_t>(10 * k);
    append_record(bytes, static_cast<std::uint8_t>(k - 1), v, v, v);
    append_record(bytes, static_cast<std::uint8_t>(k + 4), v, v, v);
    bytes[1 + 1024] = 128;
    testing::write_bytes(dir / ("data_batch_" + std::to_string(k) + ".bin"), bytes);
  }
  std::vector<std::uint8_t> test;
  append_record(test, 9, 1, 2, 3);
  testing::write_bytes(dir / "test_batch.bin", test);
}

TEST(Cifar10, ReadsAGoodFileWithTheRedPlaneFirst) {
  TempDir dir;
  std::vector<std::uint8_t> bytes;
  append_record(bytes, 3, 10, 20, 30);
  append_record(bytes, 7, 40, 50, 60);
  bytes[1 + 5] = 99;  // red plane, row 0, column 5 of the first image
  bytes[1 + 2048 + 32] = 77;  // blue plane, row 1, column 0
  testing::write_bytes(dir / "b.bin", bytes);

  Cifar10Split s = read_cifar10_file(dir / "b.bin");
  EXPECT_EQ(s.count, 2u);
  EXPECT_EQ(s.labels, (std::vector<std::uint8_t>{3, 7}));
  ASSERT_EQ(s.images.size(), 2u * 3072);
  EXPECT_EQ(s.images[0], 10);     // red plane first
  EXPECT_EQ(s.images[5], 99);
  EXPECT_EQ(s.images[1023], 10);
  EXPECT_EQ(s.images[1024], 20);  // then green
  EXPECT_EQ(s.images[2047], 20);
  EXPECT_EQ(s.images[2048], 30);  // then blue
  EXPECT_EQ(s.images[2048 + 32], 77);
  EXPECT_EQ(s.images[3071], 30);
  EXPECT_EQ(s.images[3072], 40);  // the second image; its label byte is not among the pixels
  EXPECT_EQ(s.images[3072 + 1024], 50);
  EXPECT_EQ(s.images[2 * 3072 - 1], 60);
}

TEST(Cifar10, RejectsASizeThatIsNotWholeRecords) {
  TempDir dir;
  std::vector<std::uint8_t> bytes;
  append_record(bytes, 1, 0, 0, 0);
  append_record(bytes, 2, 0, 0, 0);
  bytes.resize(bytes.size() + 5);
  testing::write_bytes(dir / "odd.bin", bytes);
  EXPECT_THAT(error_of([&] { read_cifar10_file(dir / "odd.bin"); }),
              AllOf(HasSubstr((dir / "odd.bin").string()), HasSubstr("6151 bytes"),
                    HasSubstr("3073-byte record"), HasSubstr("2 whole records and 5 bytes left over")));

  bytes.resize(3000);  // shorter than one record
  testing::write_bytes(dir / "short.bin", bytes);
  EXPECT_THAT(error_of([&] { read_cifar10_file(dir / "short.bin"); }),
              AllOf(HasSubstr("3000 bytes"), HasSubstr("0 whole records and 3000 bytes left over")));
}

TEST(Cifar10, RejectsAnEmptyFile) {
  TempDir dir;
  testing::write_bytes(dir / "empty.bin", {});
  EXPECT_THAT(error_of([&] { read_cifar10_file(dir / "empty.bin"); }),
              AllOf(HasSubstr((dir / "empty.bin").string()), HasSubstr("empty"),
                    HasSubstr("3073-byte records")));
}

TEST(Cifar10, RejectsALabelAboveNine) {
  TempDir dir;
  std::vector<std::uint8_t> bytes;
  append_record(bytes, 9, 0, 0, 0);
  append_record(bytes, 10, 0, 0, 0);
  testing::write_bytes(dir / "label.bin", bytes);
  EXPECT_THAT(error_of([&] { read_cifar10_file(dir / "label.bin"); }),
              AllOf(HasSubstr((dir / "label.bin").string()), HasSubstr("record 1"),
                    HasSubstr("label 10"), HasSubstr("0..9")));
}

TEST(Cifar10, UnreadableFileIsNamed) {
  TempDir dir;
  EXPECT_THAT(error_of([&] { read_cifar10_file(dir / "absent.bin"); }),
              AllOf(HasSubstr((dir / "absent.bin").string()), HasSubstr("cannot open")));
}

TEST(Cifar10, MissingFileNamesTheFolderAndTheFetchCommand) {
  TempDir dir;
  EXPECT_THAT(error_of([&] { load_cifar10(dir.path(), "train"); }),
              AllOf(HasSubstr("data_batch_1.bin"), HasSubstr("data_batch_5.bin"),
                    HasSubstr(dir.path().string()), HasSubstr("dlcbench data fetch cifar10")));

  write_cifar10_set(dir.path());
  fs::remove(dir / "data_batch_3.bin");
  EXPECT_THAT(error_of([&] { load_cifar10(dir.path(), "train"); }),
              AllOf(HasSubstr("file data_batch_3.bin is missing in " + dir.path().string()),
                    HasSubstr("dlcbench data fetch cifar10")));
  EXPECT_NO_THROW(load_cifar10(dir.path(), "test"));  // the test batch is still there

  fs::remove(dir / "test_batch.bin");
  EXPECT_THAT(error_of([&] { load_cifar10(dir.path(), "test"); }),
              AllOf(HasSubstr("test_batch.bin"), Not(HasSubstr("data_batch_3.bin is")),
                    HasSubstr("dlcbench data fetch cifar10")));
}

TEST(Cifar10, UnknownSplitIsAUsageError) {
  TempDir dir;
  write_cifar10_set(dir.path());
  EXPECT_THROW(load_cifar10(dir.path(), "t10k"), UsageError);
}

TEST(Cifar10, TrainingSplitConcatenatesTheFiveBatchesInOrder) {
  TempDir dir;
  write_cifar10_set(dir.path());
  Cifar10Split s = load_cifar10(dir.path(), "train");
  EXPECT_EQ(s.count, 10u);
  EXPECT_EQ(s.labels, (std::vector<std::uint8_t>{0, 5, 1, 6, 2, 7, 3, 8, 4, 9}));
  ASSERT_EQ(s.images.size(), 10u * 3072);
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(s.images[i * 3072 + 2], 10 * (i / 2 + 1)) << "image " << i;

  Cifar10Split t = load_cifar10(dir.path(), "test");
  EXPECT_EQ(t.count, 1u);
  EXPECT_EQ(t.labels, (std::vector<std::uint8_t>{9}));
  EXPECT_EQ(t.images[0], 1);
  EXPECT_EQ(t.images[1024], 2);
  EXPECT_EQ(t.images[2048], 3);
}

TEST(Cifar10, TrainingDataIsNormalisedPerChannel) {
  TempDir dir;
  write_cifar10_set(dir.path());
  ClassificationData d = load_cifar10_training(dir.path());
  EXPECT_EQ(d.name, "cifar10");
  EXPECT_FALSE(d.synthetic);
  EXPECT_EQ(d.count, 10u);
  EXPECT_EQ(d.example_shape, (std::vector<std::int64_t>{3, 32, 32}));
  EXPECT_EQ(d.example_size(), 3072u);
  EXPECT_EQ(d.num_classes, 10);
  ASSERT_EQ(d.features.size(), 10u * 3072);
  EXPECT_EQ(d.labels, (std::vector<std::int64_t>{0, 5, 1, 6, 2, 7, 3, 8, 4, 9}));
  // Image 0: every pixel 10, except green pixel 0, which is 128.
  EXPECT_NEAR(d.features[0], (10.0f / 255 - 0.4914f) / 0.2470f, 1e-6);     // red
  EXPECT_NEAR(d.features[1024], (128.0f / 255 - 0.4822f) / 0.2435f, 1e-6);  // green, the known pixel
  EXPECT_NEAR(d.features[1025], (10.0f / 255 - 0.4822f) / 0.2435f, 1e-6);
  EXPECT_NEAR(d.features[2048], (10.0f / 255 - 0.4465f) / 0.2616f, 1e-6);   // blue
  // Image 9 (batch 5): every pixel 50; its blue plane uses the blue statistics.
  EXPECT_NEAR(d.features[9 * 3072 + 3071], (50.0f / 255 - 0.4465f) / 0.2616f, 1e-6);
  EXPECT_NEAR(d.features[9 * 3072 + 1023], (50.0f / 255 - 0.4914f) / 0.2470f, 1e-6);
}

TEST(Cifar10, FindsTheSetInTheLocationItselfOrInItsCifar10Folder) {
  TempDir dir;
  write_cifar10_set(dir / "cifar10");
  EXPECT_EQ(cifar10_folder(dir.path()), dir / "cifar10");
  ClassificationData below = load_cifar10_training(dir.path());
  EXPECT_EQ(below.source, fs::absolute(dir / "cifar10").string());
  EXPECT_EQ(below.count, 10u);

  EXPECT_EQ(cifar10_folder(dir / "cifar10"), dir / "cifar10");
  ClassificationData itself = load_cifar10_training(dir / "cifar10");
  EXPECT_EQ(itself.source, fs::absolute(dir / "cifar10").string());

  // A location holding neither: the error points at <location>/cifar10.
  TempDir empty;
  EXPECT_THAT(error_of([&] { load_cifar10_training(empty.path()); }),
              AllOf(HasSubstr((empty / "cifar10").string()), HasSubstr("dlcbench data fetch cifar10")));
}

}  // namespace
}  // namespace dlcbench
