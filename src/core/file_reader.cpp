#include "core/file_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/errors.h"

namespace dlcbench {

FileReader::FileReader(const std::filesystem::path& path)
    : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
  if (fd_ < 0) throw DataError(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
}

FileReader::~FileReader() { ::close(fd_); }

void FileReader::read_at(std::uint64_t offset, void* out, std::size_t n) const {
  auto* p = static_cast<char*>(out);
  const std::size_t wanted = n;
  const std::uint64_t start = offset;
  while (n > 0) {
    const ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      throw DataError(fmt::format("{}: read of {} bytes at offset {} failed: {}", path_.string(), wanted, start,
                                  got == 0 ? "end of file" : std::strerror(errno)));
    p += got;
    n -= static_cast<std::size_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
}

}  // namespace dlcbench
