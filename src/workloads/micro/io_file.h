// The scratch file of the I/O micro-benchmarks (io-seq, io-lat), and the
// checks made before it is written.
//
// The file is created in the folder under test with mkstemp (mode 0600,
// "dlcbench-io-XXXXXX") and unlinked at once: it never outlives the open
// descriptor, so nothing is left behind even when the worker is killed with
// SIGKILL. All I/O goes through the descriptor with pwrite/pread at explicit
// offsets, from a 4096-aligned buffer of seeded, non-zero pseudo-random bytes
// (every 4 KiB of the file also carries its own tag, so neither compression,
// zero detection nor block de-duplication can shortcut the work).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/file_system.h"

namespace dlcbench {


// `path` made absolute with symbolic links resolved, for reports; as given
// when that fails (the checks then say why).
std::string canonical_folder(const std::string& path);



inline constexpr const char* kScratchPrefix = "dlcbench-io-";

// Entries of `dir` whose names start with "dlcbench-io-": what a crashed or
// leaking benchmark would leave. Tests expect none.
std::vector<std::string> scratch_files_in(const std::filesystem::path& dir);

struct ScratchFileSpec {
  std::string benchmark = "io";  // names the benchmark in messages
  std::filesystem::path dir;     // the folder under test
  std::int64_t file_bytes = 0;
  std::int64_t block_bytes = 0;  // bytes per request
  bool direct = true;            // O_DIRECT
  bool buffered_allowed = true;  // whether messages may suggest mode buffered (not for io-lat)
  std::uint64_t seed = 42;
};

// The scratch file. Construction checks, in this order, each failure a
// UsageError that names the problem and the fix: sizes (block at least 512
// bytes; with direct a multiple of 512; file size a positive multiple of the
// block), the folder (exists, is a folder, writable by access(W_OK) and by
// actually creating the file), free space (statvfs f_bavail * f_frsize
// against the file plus a margin), O_DIRECT accepted by the file system, and
// the block a multiple of its direct-I/O alignment (statx). Nothing is
// written by the constructor.
class ScratchFile {
 public:
  explicit ScratchFile(const ScratchFileSpec& spec);
  ~ScratchFile();
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  // Sets or clears O_DIRECT with fcntl(F_SETFL); UsageError when the file
  // system refuses it.
  void set_direct(bool direct);
  bool direct() const { return direct_; }

  // One request of block_bytes() at `offset` (a multiple of the block):
  // write_request tags the buffer for this offset and writes it; read_request
  // reads into the buffer. Short transfers are retried; errors throw
  // std::runtime_error naming the file system, the offset and errno's text.
  void write_request(std::int64_t offset);
  void read_request(std::int64_t offset);
  // Whether the buffer holds what write_request writes at `offset`.
  bool buffer_matches(std::int64_t offset) const;

  // Untimed helpers: write the whole file sequentially and fsync it; fsync;
  // truncate to zero length and fsync (so each sequential write allocates
  // like dd writing a new file); drop the file's pages from the page cache
  // (fdatasync, then POSIX_FADV_DONTNEED) and return the fraction of its
  // pages still resident.
  void fill();
  void sync();
  void truncate();
  double evict_from_cache();
  // The fraction of the file's pages in the page cache (mincore on an mmap).
  double resident_fraction() const;

  // The byte write_request puts at file offset `offset`.
  std::uint8_t expected_byte(std::int64_t offset) const;

  int fd() const { return fd_; }
  const FileSystemInfo& file_system() const { return fs_; }
  const std::filesystem::path& dir() const { return dir_; }
  // The name mkstemp gave the file (already unlinked; tests check it is gone).
  const std::string& created_name() const { return created_name_; }
  std::int64_t file_bytes() const { return file_bytes_; }
  std::int64_t block_bytes() const { return block_bytes_; }
  std::int64_t requests() const { return file_bytes_ / block_bytes_; }
  std::uint8_t* buffer() { return buffer_; }
  const std::uint8_t* buffer() const { return buffer_; }

 private:
  [[noreturn]] void io_error(const char* what, std::int64_t offset, int err) const;
  void tag_buffer(std::int64_t offset);

  std::string benchmark_;
  std::string or_buffered_;  // " or use mode buffered" where that is an option
  std::filesystem::path dir_;
  std::int64_t file_bytes_;
  std::int64_t block_bytes_;
  std::uint64_t seed_;
  FileSystemInfo fs_;
  std::string created_name_;
  int fd_ = -1;
  bool direct_ = false;
  bool buffer_holds_data_ = false;  // read_request filled it from the file
  std::uint8_t* buffer_ = nullptr;   // block_bytes_, aligned
  std::vector<std::uint8_t> pool_;   // the untagged content of one block
};

}  // namespace dlcbench
