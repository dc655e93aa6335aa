// The I/O micro-benchmarks: checks before anything is written, the scratch
// file that never outlives the process, dd-style sequential transfers and
// ioping-style single reads.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/errors.h"
#include "test_files.h"
#include "workloads/micro/io_file.h"
#include "workloads/micro/io_lat.h"
#include "workloads/micro/io_seq.h"

namespace dlcbench {
namespace {

using testing::error_of;
using testing::TempDir;
using testing::write_text;

constexpr std::int64_t kKiB = 1024;
constexpr std::int64_t kMiB = 1024 * 1024;

MicroParams io_params(const std::filesystem::path& dir, const std::string& variant, std::int64_t size,
                      std::int64_t block, bool direct) {
  MicroParams p;
  p.variant = variant;
  p.size = size;
  p.block = block;
  p.direct = direct;
  p.path = dir.string();
  p.seed = 7;
  return p;
}

bool refuses_direct(const std::string& message) { return message.find("refuses direct I/O") != std::string::npos; }

// Builds a benchmark; when the file system refuses O_DIRECT, *skip names it.
template <class Bench>
std::unique_ptr<Bench> make_or_skip(const MicroParams& p, std::string* skip) {
  try {
    return std::make_unique<Bench>(p);
  } catch (const UsageError& e) {
    if (!refuses_direct(e.what())) throw;
    *skip = "O_DIRECT is refused on " + p.path + " (" + file_system_of(p.path).type + "): " + e.what();
    return nullptr;
  }
}

// Every entry of a folder.
std::vector<std::string> entries_of(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  return names;
}

// The whole scratch file, read through a fresh descriptor on /proc/self/fd
// (buffered, whatever the benchmark's own descriptor does).
std::vector<std::uint8_t> read_whole(const ScratchFile& file) {
  const std::string link = "/proc/self/fd/" + std::to_string(file.fd());
  const int fd = ::open(link.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0) << link;
  std::vector<std::uint8_t> bytes;
  if (fd < 0) return bytes;
  struct stat st {};
  EXPECT_EQ(fstat(fd, &st), 0);
  EXPECT_EQ(st.st_nlink, 0u) << "the scratch file must be unlinked";
  bytes.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pread(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  EXPECT_EQ(done, bytes.size());
  return bytes;
}

// The file holds exactly what the benchmark wrote: its size, its pattern,
// and no all-zero 4 KiB chunk.
void expect_content_written(const ScratchFile& file) {
  const auto bytes = read_whole(file);
  ASSERT_EQ(static_cast<std::int64_t>(bytes.size()), file.file_bytes());
  std::int64_t mismatches = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != file.expected_byte(static_cast<std::int64_t>(i))) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0);
  for (std::size_t chunk = 0; chunk < bytes.size(); chunk += 4096) {
    bool all_zero = true;
    for (std::size_t i = chunk; i < std::min(bytes.size(), chunk + 4096); ++i) all_zero = all_zero && bytes[i] == 0;
    ASSERT_FALSE(all_zero) << "zero chunk at " << chunk;
  }
}

// ---------------------------------------------------------------- checks

TEST(IoFileTest, NonexistentFolderIsNamed) {
  TempDir tmp;
  const auto missing = tmp / "no-such-folder";
  const std::string message =
      error_of<UsageError>([&] { make_io_seq(io_params(missing, "write", kMiB, 64 * kKiB, false)); });
  EXPECT_NE(message.find(missing.string()), std::string::npos) << message;
  EXPECT_NE(message.find("does not exist"), std::string::npos) << message;
  EXPECT_NE(message.find("--path"), std::string::npos) << message;
}

TEST(IoFileTest, AFileIsNotAFolder) {
  TempDir tmp;
  write_text(tmp / "plain.txt", "x");
  const std::string message =
      error_of<UsageError>([&] { make_io_seq(io_params(tmp / "plain.txt", "write", kMiB, 64 * kKiB, false)); });
  EXPECT_NE(message.find("is not a folder"), std::string::npos) << message;
}

TEST(IoFileTest, ReadOnlyFolderIsNotWritable) {
  TempDir tmp;
  const auto ro = tmp / "read-only";
  std::filesystem::create_directory(ro);
  ASSERT_EQ(chmod(ro.c_str(), 0500), 0);
  // Root writes through mode 0500 (and access() agrees with it): then the
  // folder really is writable and there is nothing to refuse.
  const std::string probe = (ro / "probe").string();
  const int fd = ::open(probe.c_str(), O_CREAT | O_WRONLY, 0600);
  if (fd >= 0) {
    ::close(fd);
    ::unlink(probe.c_str());
    chmod(ro.c_str(), 0700);
    GTEST_SKIP() << "running as uid " << getuid() << ": a mode-0500 folder is writable here";
  }
  const std::string message =
      error_of<UsageError>([&] { make_io_seq(io_params(ro, "write", kMiB, 64 * kKiB, false)); });
  chmod(ro.c_str(), 0700);
  EXPECT_NE(message.find("not writable"), std::string::npos) << message;
  EXPECT_TRUE(scratch_files_in(ro).empty());
}

TEST(IoFileTest, AFolderNoOneCanCreateFilesInFailsTheProbe) {
  // /proc refuses new files even to root, whom access() always answers yes:
  // the real probe (creating the scratch file) catches it.
  const std::string message =
      error_of<UsageError>([] { make_io_seq(io_params("/proc", "write", kMiB, 64 * kKiB, false)); });
  const bool named = message.find("not writable") != std::string::npos ||
                     message.find("cannot create a file in /proc (proc") != std::string::npos;
  EXPECT_TRUE(named) << message;
}

TEST(IoFileTest, DirectBlockMustBeAMultipleOf512) {
  TempDir tmp;
  const std::string message =
      error_of<UsageError>([&] { make_io_seq(io_params(tmp.path(), "write", 1000 * 64, 1000, true)); });
  EXPECT_NE(message.find("multiple of 512"), std::string::npos) << message;
  EXPECT_NE(message.find("buffered"), std::string::npos) << message;
  const std::string lat = error_of<UsageError>([&] { make_io_lat(io_params(tmp.path(), "", 1000 * 64, 1000, true)); });
  EXPECT_NE(lat.find("multiple of 512"), std::string::npos) << lat;
  EXPECT_EQ(lat.find("buffered"), std::string::npos) << "io-lat has no buffered mode: " << lat;
  EXPECT_TRUE(entries_of(tmp.path()).empty());
}

TEST(IoFileTest, FileSizeMustBeWholeBlocks) {
  TempDir tmp;
  std::string message =
      error_of<UsageError>([&] { make_io_seq(io_params(tmp.path(), "write", kMiB + 512, 64 * kKiB, false)); });
  EXPECT_NE(message.find("not a multiple of the block size"), std::string::npos) << message;
  message = error_of<UsageError>([&] { make_io_seq(io_params(tmp.path(), "write", 32 * kKiB, 64 * kKiB, false)); });
  EXPECT_NE(message.find("smaller than one block"), std::string::npos) << message;
  message = error_of<UsageError>([&] { make_io_seq(io_params(tmp.path(), "write", 1000, 100, false)); });
  EXPECT_NE(message.find("at least 512"), std::string::npos) << message;
  EXPECT_TRUE(entries_of(tmp.path()).empty());
}

TEST(IoFileTest, FileLargerThanTheFreeSpaceIsRefusedWithBothSizes) {
  TempDir tmp;
  struct statvfs vfs {};
  ASSERT_EQ(statvfs(tmp.path().c_str(), &vfs), 0);
  const auto total = static_cast<std::int64_t>(vfs.f_blocks) * static_cast<std::int64_t>(vfs.f_frsize);
  const std::int64_t size = (total / kMiB + 1) * kMiB;  // larger than the whole file system
  const std::string message =
      error_of<UsageError>([&] { make_io_seq(io_params(tmp.path(), "write", size, kMiB, false)); });
  EXPECT_NE(message.find("free"), std::string::npos) << message;
  EXPECT_NE(message.find(std::to_string(size)), std::string::npos) << message;
  EXPECT_NE(message.find("smaller size"), std::string::npos) << message;
  EXPECT_TRUE(entries_of(tmp.path()).empty()) << "nothing may be left behind by a refused run";
}

TEST(IoFileTest, UnknownModeIsRejected) {
  TempDir tmp;
  const std::string message =
      error_of<UsageError>([&] { make_io_seq(io_params(tmp.path(), "append", kMiB, kMiB, false)); });
  EXPECT_NE(message.find("write or read"), std::string::npos) << message;
}

// ---------------------------------------------------------------- file systems

TEST(IoFileTest, FileSystemTypes) {
  EXPECT_EQ(file_system_of("/proc").type, "proc");
  TempDir tmp;
  const FileSystemInfo fs = file_system_of(tmp.path());
  EXPECT_FALSE(fs.type.empty());
  EXPECT_FALSE(fs.mount_point.empty());
  EXPECT_EQ(fs_type_name(0xEF53), "ext4");
  EXPECT_EQ(fs_type_name(0x58465342), "xfs");
  EXPECT_EQ(fs_type_name(0x794C7630), "overlay");
  EXPECT_EQ(fs_type_name(0x01021994), "tmpfs");
  EXPECT_EQ(fs_type_name(0x12345678), "0x12345678");
}

TEST(IoFileTest, MountSourceComesFromTheLongestMountPoint) {
  TempDir tmp;
  const auto base = std::filesystem::canonical(tmp.path());
  const auto dir = base / "data dir";
  std::filesystem::create_directories(dir / "inner");
  const std::string escaped = base.string() + "/data\\040dir";
  write_text(tmp / "mountinfo",
             "22 1 254:0 / / rw,relatime - ext4 /dev/root-disk rw\n"
             "23 22 8:17 / " + escaped + " rw,relatime shared:5 - xfs /dev/sdb1 rw\n"
             "24 22 8:18 / " + escaped + "-other rw - btrfs /dev/sdc1 rw\n"
             "25 22 0:40 / /elsewhere rw - tmpfs tmpfs rw\n");
  const FileSystemInfo fs = file_system_of(dir / "inner", tmp / "mountinfo");
  EXPECT_EQ(fs.mount_point, dir.string());
  EXPECT_EQ(fs.mount_source, "/dev/sdb1");
  const FileSystemInfo root = file_system_of(tmp.path(), tmp / "mountinfo");
  EXPECT_EQ(root.mount_point, "/");
  EXPECT_EQ(root.mount_source, "/dev/root-disk");
}

// ---------------------------------------------------------------- io-seq

void sequential_write(bool direct) {
  TempDir tmp;
  std::string skip;
  auto bench = make_or_skip<IoSeqBenchmark>(io_params(tmp.path(), "write", 4 * kMiB, 256 * kKiB, direct), &skip);
  if (!bench) GTEST_SKIP() << skip;
  EXPECT_TRUE(scratch_files_in(tmp.path()).empty());
  EXPECT_TRUE(entries_of(tmp.path()).empty());
  for (int i = 0; i < 2; ++i) {
    const MicroResult r = bench->run();
    EXPECT_GT(r.seconds, 0.0);
    EXPECT_EQ(r.work, 4.0 * kMiB);
    EXPECT_EQ(r.detail["bytes"], 4 * kMiB);
    EXPECT_EQ(r.detail["requests"], 16);
    EXPECT_FALSE(r.detail.contains("cache_resident_fraction"));
  }
  expect_content_written(bench->file());
  const auto d = bench->describe();
  EXPECT_EQ(d["benchmark"], "io-seq");
  EXPECT_EQ(d["mode"], "write");
  EXPECT_EQ(d["direct"], direct);
  EXPECT_EQ(d["file_bytes"], 4 * kMiB);
  EXPECT_EQ(d["block_bytes"], 256 * kKiB);
  EXPECT_EQ(d["path"], std::filesystem::canonical(tmp.path()).string());
  EXPECT_FALSE(d["fs_type"].get<std::string>().empty());
  EXPECT_TRUE(d.contains("mount_source"));
  EXPECT_TRUE(entries_of(tmp.path()).empty());
}

TEST(IoSeqTest, DirectWriteMovesTheWholeFile) { sequential_write(true); }
TEST(IoSeqTest, BufferedWriteMovesTheWholeFile) { sequential_write(false); }

void sequential_read(bool direct) {
  TempDir tmp;
  std::string skip;
  auto bench = make_or_skip<IoSeqBenchmark>(io_params(tmp.path(), "read", 4 * kMiB, 128 * kKiB, direct), &skip);
  if (!bench) GTEST_SKIP() << skip;
  expect_content_written(bench->file());  // written at construction
  const std::string fs = bench->describe()["fs_type"];
  for (int i = 0; i < 2; ++i) {
    MicroResult r;
    ASSERT_NO_THROW(r = bench->run());  // also checks the last block read
    EXPECT_GT(r.seconds, 0.0);
    EXPECT_EQ(r.work, 4.0 * kMiB);
    EXPECT_EQ(r.detail["bytes"], 4 * kMiB);
    EXPECT_EQ(r.detail["requests"], 32);
    ASSERT_TRUE(r.detail.contains("cache_resident_fraction"));
    if (r.detail["cache_resident_fraction"].is_number()) {
      const double resident = r.detail["cache_resident_fraction"];
      EXPECT_GE(resident, 0.0);
      EXPECT_LE(resident, 1.0);
      // On a disk file system the eviction works (tmpfs keeps its pages: they are the file).
      if (fs == "ext4" || fs == "xfs" || fs == "btrfs") {
        EXPECT_EQ(resident, 0.0) << fs;
      }
    }
  }
  EXPECT_EQ(bench->describe()["mode"], "read");
  EXPECT_TRUE(entries_of(tmp.path()).empty());
}

TEST(IoSeqTest, DirectReadMovesTheWholeFile) { sequential_read(true); }
TEST(IoSeqTest, BufferedReadMovesTheWholeFile) { sequential_read(false); }

TEST(IoSeqTest, BufferedBlocksNeedNotBeSectorMultiples) {
  // 1000-byte requests: the per-4-KiB tags straddle request boundaries.
  TempDir tmp;
  auto writer = std::make_unique<IoSeqBenchmark>(io_params(tmp.path(), "write", 1000 * 70, 1000, false));
  writer->run();
  expect_content_written(writer->file());
  auto reader = std::make_unique<IoSeqBenchmark>(io_params(tmp.path(), "read", 1000 * 70, 1000, false));
  EXPECT_NO_THROW(reader->run());
}

TEST(IoSeqTest, NoFileIsEverLeftInTheFolder) {
  TempDir tmp;
  std::string created;
  {
    IoSeqBenchmark bench(io_params(tmp.path(), "read", 2 * kMiB, 256 * kKiB, false));
    created = bench.file().created_name();
    EXPECT_EQ(created.rfind("dlcbench-io-", 0), 0u) << created;
    EXPECT_EQ(created.size(), std::string("dlcbench-io-XXXXXX").size());
    EXPECT_FALSE(std::filesystem::exists(tmp / created));
    EXPECT_TRUE(entries_of(tmp.path()).empty()) << "after construction";
    bench.run();
    EXPECT_TRUE(entries_of(tmp.path()).empty()) << "after a run";
    struct stat st {};
    ASSERT_EQ(fstat(bench.file().fd(), &st), 0);
    EXPECT_EQ(st.st_nlink, 0u);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
  }
  EXPECT_TRUE(entries_of(tmp.path()).empty()) << "after destruction";
  EXPECT_TRUE(scratch_files_in(tmp.path()).empty());
}

TEST(IoSeqTest, ScratchFilesAreFoundByPrefix) {
  TempDir tmp;
  write_text(tmp / "dlcbench-io-abc123", "left over");
  write_text(tmp / "other", "x");
  EXPECT_EQ(scratch_files_in(tmp.path()), std::vector<std::string>{"dlcbench-io-abc123"});
}

TEST(IoSeqTest, RequestsCarryDistinctNonZeroData) {
  TempDir tmp;
  IoSeqBenchmark bench(io_params(tmp.path(), "write", 1 * kMiB, 64 * kKiB, false));
  const ScratchFile& f = bench.file();
  int zeros = 0, same = 0;
  for (std::int64_t i = 0; i < 64 * kKiB; ++i) {
    zeros += f.expected_byte(i) == 0;
    same += f.expected_byte(i) == f.expected_byte(i + 64 * kKiB);
  }
  EXPECT_EQ(zeros, 0);
  EXPECT_LT(same, 64 * kKiB) << "two blocks must not be identical";
}

// ---------------------------------------------------------------- io-lat

TEST(IoLatTest, OneBlockPerRunAtAlignedOffsetsWithinTheFile) {
  TempDir tmp;
  const std::int64_t size = 2 * kMiB, block = 4 * kKiB;
  std::string skip;
  auto bench = make_or_skip<IoLatBenchmark>(io_params(tmp.path(), "", size, block, false), &skip);
  if (!bench) GTEST_SKIP() << skip;
  EXPECT_TRUE(entries_of(tmp.path()).empty());
  expect_content_written(bench->file());
  std::set<std::int64_t> offsets;
  std::vector<std::int64_t> sequence;
  for (int i = 0; i < 50; ++i) {
    MicroResult r;
    ASSERT_NO_THROW(r = bench->run());  // also checks the block read
    EXPECT_GT(r.seconds, 0.0);
    EXPECT_EQ(r.work, static_cast<double>(block));
    const std::int64_t offset = r.detail["offset"];
    EXPECT_EQ(offset % block, 0);
    EXPECT_GE(offset, 0);
    EXPECT_LE(offset + block, size);
    offsets.insert(offset);
    sequence.push_back(offset);
  }
  EXPECT_GT(offsets.size(), 10u) << "offsets must be spread over the file";
  // Same seed, same offsets.
  IoLatBenchmark again(io_params(tmp.path(), "", size, block, false));
  for (std::int64_t expected : sequence) EXPECT_EQ(again.run().detail["offset"], expected);

  const auto d = bench->describe();
  EXPECT_EQ(d["benchmark"], "io-lat");
  EXPECT_EQ(d["direct"], true);
  EXPECT_EQ(d["request_bytes"], block);
  EXPECT_EQ(d["file_bytes"], size);
  EXPECT_FALSE(d["fs_type"].get<std::string>().empty());
  bench.reset();
  EXPECT_TRUE(entries_of(tmp.path()).empty());
}

}  // namespace
}  // namespace dlcbench
