#include "workloads/micro/io_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/memory.h"

namespace dlcbench {

namespace {

constexpr std::int64_t kMinBlock = 512;
constexpr std::int64_t kTagSpacing = 4096;  // every 4 KiB of the file carries its own tag
constexpr std::int64_t kTagBytes = 8;
constexpr std::size_t kBufferAlignment = 4096;

std::string errno_text(int err) { return std::generic_category().message(err); }

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// The 8-byte tag of the 4 KiB chunk that starts at file offset `chunk`:
// pseudo-random, with no zero byte.
std::array<std::uint8_t, 8> tag_of(std::uint64_t seed, std::int64_t chunk) {
  const std::uint64_t word = splitmix64(seed ^ (static_cast<std::uint64_t>(chunk) * 0xD1B54A32D192ED03ULL));
  std::array<std::uint8_t, 8> tag{};
  for (std::size_t k = 0; k < tag.size(); ++k) {
    const auto byte = static_cast<std::uint8_t>(word >> (8 * k));
    tag[k] = byte == 0 ? std::uint8_t{0x5A} : byte;
  }
  return tag;
}

}  // namespace

std::string canonical_folder(const std::string& path) {
  std::error_code ec;
  auto canonical = std::filesystem::canonical(path, ec);
  return ec ? path : canonical.string();
}


std::vector<std::string> scratch_files_in(const std::filesystem::path& dir) {
  std::vector<std::string> found;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(kScratchPrefix, 0) == 0) found.push_back(name);
  }
  return found;
}

ScratchFile::ScratchFile(const ScratchFileSpec& spec)
    : benchmark_(spec.benchmark),
      or_buffered_(spec.buffered_allowed ? " or use mode buffered" : ""),
      dir_(spec.dir),
      file_bytes_(spec.file_bytes),
      block_bytes_(spec.block_bytes),
      seed_(spec.seed) {
  const std::string& b = benchmark_;
  // Sizes first: they need nothing from the file system.
  if (block_bytes_ < kMinBlock) {
    throw UsageError(fmt::format("{}: a block of {} bytes is too small: give a block of at least {} bytes "
                                 "(e.g. block=4096)",
                                 b, block_bytes_, kMinBlock));
  }
  if (spec.direct && block_bytes_ % kMinBlock != 0) {
    throw UsageError(fmt::format("{}: with direct I/O the block must be a multiple of 512 bytes, not {}: "
                                 "give e.g. block={}{}",
                                 b, block_bytes_, (block_bytes_ / kMinBlock + 1) * kMinBlock, or_buffered_));
  }
  if (file_bytes_ < block_bytes_) {
    throw UsageError(fmt::format("{}: the file ({} bytes) is smaller than one block ({} bytes): give a larger "
                                 "size or a smaller block",
                                 b, file_bytes_, block_bytes_));
  }
  if (file_bytes_ % block_bytes_ != 0) {
    throw UsageError(fmt::format("{}: the file size {} is not a multiple of the block size {}: give e.g. size={}",
                                 b, file_bytes_, block_bytes_, (file_bytes_ / block_bytes_) * block_bytes_));
  }

  // The folder.
  if (dir_.empty()) {
    throw UsageError(fmt::format("{} needs a folder to write its scratch file in: give one with --path", b));
  }
  struct stat st {};
  if (stat(dir_.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) {
      throw UsageError(fmt::format(
          "{}: the folder {} does not exist: create it or give another folder with --path", b, dir_.string()));
    }
    throw UsageError(fmt::format("{}: cannot examine the folder {}: {}; give another folder with --path", b,
                                 dir_.string(), errno_text(err)));
  }
  if (!S_ISDIR(st.st_mode)) {
    throw UsageError(fmt::format("{}: {} is not a folder: give the folder the scratch file should go in "
                                 "(--path), not a file",
                                 b, dir_.string()));
  }
  if (access(dir_.c_str(), W_OK | X_OK) != 0) {
    const int err = errno;
    throw UsageError(fmt::format("{}: the folder {} is not writable by this user (uid {}): {}; give a writable "
                                 "folder with --path or change the folder's permissions",
                                 b, dir_.string(), getuid(), errno_text(err)));
  }
  fs_ = file_system_of(dir_);
  const std::string where = fmt::format("{} ({}{})", dir_.string(), fs_.type,
                                        fs_.mount_source.empty() ? "" : " on " + fs_.mount_source);

  // The real probe: create the file. access() says yes to root everywhere
  // and knows nothing of some read-only or full file systems.
  std::string name = (dir_ / (std::string(kScratchPrefix) + "XXXXXX")).string();
  fd_ = mkostemp(name.data(), O_CLOEXEC);  // mode 0600
  if (fd_ < 0) {
    const int err = errno;
    if (err == ENOSPC || err == EDQUOT) {
      throw UsageError(fmt::format(
          "{}: no space left to create a file in {}: free some space or give another folder with --path", b, where));
    }
    throw UsageError(fmt::format("{}: cannot create a file in {}: {}; give a writable folder with --path", b, where,
                                 errno_text(err)));
  }
  // Unlinked at once: from here on the file exists only through fd_, and
  // goes when the process does, however it ends.
  created_name_ = std::filesystem::path(name).filename().string();
  if (unlink(name.c_str()) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    throw UsageError(fmt::format("{}: cannot remove the scratch file {} right after creating it: {}", b, name,
                                 errno_text(err)));
  }

  try {
    // Free space: the file plus a margin for the file system's own blocks.
    struct statvfs vfs {};
    if (fstatvfs(fd_, &vfs) == 0) {
      const auto available = static_cast<std::int64_t>(vfs.f_bavail) * static_cast<std::int64_t>(vfs.f_frsize);
      const std::int64_t margin = 4 * (1LL << 20) + file_bytes_ / 100;
      const std::int64_t needed = file_bytes_ + margin;
      if (available < needed) {
        throw UsageError(fmt::format(
            "{}: {} has {} bytes ({}) free, but a file of {} bytes ({}) needs {} bytes with its margin: give a "
            "smaller size or a folder (--path) on a file system with more free space",
            b, where, available, format_memory_bytes(static_cast<double>(available)), file_bytes_, format_memory_bytes(static_cast<double>(file_bytes_)), needed));
      }
    }

    set_direct(spec.direct);
    if (spec.direct) {
      // The file system's alignment for direct I/O (the device's logical
      // block), where statx reports it; 512 is checked above.
      struct statx sx {};
      if (statx(fd_, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 && (sx.stx_mask & STATX_DIOALIGN) != 0 &&
          sx.stx_dio_offset_align > 0 && block_bytes_ % sx.stx_dio_offset_align != 0) {
        throw UsageError(fmt::format("{}: {} needs direct I/O in multiples of {} bytes (its logical block), and "
                                     "the block of {} bytes is not one: give e.g. block={}{}",
                                     b, where, sx.stx_dio_offset_align, block_bytes_,
                                     (block_bytes_ / sx.stx_dio_offset_align + 1) * sx.stx_dio_offset_align,
                                     or_buffered_));
      }
    }

    // The data: seeded, non-zero pseudo-random bytes, tagged per request.
    void* mem = nullptr;
    if (posix_memalign(&mem, kBufferAlignment, static_cast<std::size_t>(block_bytes_)) != 0) {
      throw UsageError(fmt::format("{}: cannot allocate a buffer of {} bytes: give a smaller block", b,
                                   block_bytes_));
    }
    buffer_ = static_cast<std::uint8_t*>(mem);
    pool_.resize(static_cast<std::size_t>(block_bytes_));
    std::mt19937_64 gen(seed_);
    std::uniform_int_distribution<int> byte(1, 255);
    for (auto& v : pool_) v = static_cast<std::uint8_t>(byte(gen));
    std::memcpy(buffer_, pool_.data(), pool_.size());
  } catch (...) {
    std::free(buffer_);
    buffer_ = nullptr;
    ::close(fd_);
    fd_ = -1;
    throw;
  }
}

ScratchFile::~ScratchFile() {
  std::free(buffer_);
  if (fd_ >= 0) ::close(fd_);
}

void ScratchFile::set_direct(bool direct) {
  int flags = fcntl(fd_, F_GETFL);
  if (flags < 0) io_error("fcntl(F_GETFL) on", 0, errno);
  flags = direct ? (flags | O_DIRECT) : (flags & ~O_DIRECT);
  if (fcntl(fd_, F_SETFL, flags) != 0) {
    const int err = errno;
    if (direct && err == EINVAL) {
      throw UsageError(fmt::format("{}: the file system of {} ({}) refuses direct I/O (O_DIRECT): {}give a "
                                   "folder (--path) on a file system that supports it",
                                   benchmark_, dir_.string(), fs_.type,
                                   or_buffered_.empty() ? "" : "use mode buffered, or "));
    }
    io_error(direct ? "setting O_DIRECT on" : "clearing O_DIRECT on", 0, err);
  }
  direct_ = direct;
}

void ScratchFile::io_error(const char* what, std::int64_t offset, int err) const {
  std::string hint;
  if (err == EINVAL && direct_) {
    hint = fmt::format(" (direct I/O needs the block of {} bytes to be a multiple of the device's logical block: "
                       "try block=4096{})",
                       block_bytes_, or_buffered_);
  }
  if (err == ENOSPC || err == EDQUOT)
    hint = " (the file system filled up while the benchmark ran, after the check of free space before it: "
           "free some space or give a folder on another file system with --path)";
  throw IoError(fmt::format("{}: {} the scratch file in {} ({} on {}) failed at offset {}: {}{}",
                                       benchmark_, what, dir_.string(), fs_.type,
                                       fs_.mount_source.empty() ? "?" : fs_.mount_source, offset, errno_text(err),
                                       hint));
}

void ScratchFile::tag_buffer(std::int64_t offset) {
  // Chunks whose 8-byte tag overlaps [offset, offset + block).
  std::int64_t chunk = ((offset - kTagBytes + 1 + kTagSpacing - 1) / kTagSpacing) * kTagSpacing;
  if (offset < kTagBytes) chunk = 0;
  const std::int64_t end = offset + block_bytes_;
  for (; chunk < end; chunk += kTagSpacing) {
    const auto tag = tag_of(seed_, chunk);
    for (std::int64_t k = 0; k < kTagBytes; ++k) {
      const std::int64_t pos = chunk + k - offset;
      if (pos >= 0 && pos < block_bytes_) buffer_[pos] = tag[static_cast<std::size_t>(k)];
    }
  }
}

std::uint8_t ScratchFile::expected_byte(std::int64_t offset) const {
  const std::int64_t k = offset % kTagSpacing;
  if (k < kTagBytes) return tag_of(seed_, offset - k)[static_cast<std::size_t>(k)];
  return pool_[static_cast<std::size_t>(offset % block_bytes_)];
}

bool ScratchFile::buffer_matches(std::int64_t offset) const {
  for (std::int64_t i = 0; i < block_bytes_; ++i) {
    if (buffer_[i] != expected_byte(offset + i)) return false;
  }
  return true;
}

void ScratchFile::write_request(std::int64_t offset) {
  // Tag positions move with the offset unless the block is a multiple of
  // 4 KiB; start from the untagged block then.
  if (buffer_holds_data_ || block_bytes_ % kTagSpacing != 0) {
    std::memcpy(buffer_, pool_.data(), pool_.size());
    buffer_holds_data_ = false;
  }
  tag_buffer(offset);
  std::int64_t done = 0;
  while (done < block_bytes_) {
    const ssize_t n = pwrite(fd_, buffer_ + done, static_cast<std::size_t>(block_bytes_ - done),
                             static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      io_error("writing", offset + done, errno);
    }
    if (n == 0) io_error("writing", offset + done, EIO);
    done += n;
  }
}

void ScratchFile::read_request(std::int64_t offset) {
  std::int64_t done = 0;
  while (done < block_bytes_) {
    const ssize_t n = pread(fd_, buffer_ + done, static_cast<std::size_t>(block_bytes_ - done),
                            static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      io_error("reading", offset + done, errno);
    }
    if (n == 0) {
      throw std::runtime_error(fmt::format("{}: the scratch file in {} ({}) ended at offset {}, before the {} "
                                           "bytes written to it",
                                           benchmark_, dir_.string(), fs_.type, offset + done, file_bytes_));
    }
    done += n;
  }
  // The buffer now holds file data (kept for buffer_matches); the next
  // write starts again from the pool.
  buffer_holds_data_ = true;
}

void ScratchFile::fill() {
  for (std::int64_t offset = 0; offset < file_bytes_; offset += block_bytes_) write_request(offset);
  sync();
}

void ScratchFile::sync() {
  while (fsync(fd_) != 0) {
    if (errno != EINTR) io_error("fsync of", 0, errno);
  }
}

void ScratchFile::truncate() {
  while (ftruncate(fd_, 0) != 0) {
    if (errno != EINTR) io_error("truncating", 0, errno);
  }
  sync();
}

double ScratchFile::evict_from_cache() {
  while (fdatasync(fd_) != 0) {
    if (errno != EINTR) io_error("fdatasync of", 0, errno);
  }
  posix_fadvise(fd_, 0, 0, POSIX_FADV_DONTNEED);
  return resident_fraction();
}

double ScratchFile::resident_fraction() const {
  const long page = sysconf(_SC_PAGESIZE);
  if (page <= 0 || file_bytes_ <= 0) return -1;
  const auto length = static_cast<std::size_t>(file_bytes_);
  void* map = mmap(nullptr, length, PROT_READ, MAP_SHARED, fd_, 0);
  if (map == MAP_FAILED) return -1;
  const std::size_t pages = (length + static_cast<std::size_t>(page) - 1) / static_cast<std::size_t>(page);
  std::vector<unsigned char> resident(pages);
  double fraction = -1;
  if (mincore(map, length, resident.data()) == 0) {
    std::size_t in_cache = 0;
    for (unsigned char r : resident) in_cache += (r & 1U);
    fraction = static_cast<double>(in_cache) / static_cast<double>(pages);
  }
  munmap(map, length);
  return fraction;
}

}  // namespace dlcbench
