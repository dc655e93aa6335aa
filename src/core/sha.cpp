#include "core/sha.h"

#include <array>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <openssl/evp.h>

namespace dlcbench {
namespace {

struct Digest {
  explicit Digest(std::string_view algorithm) : ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    const EVP_MD* md = EVP_get_digestbyname(std::string(algorithm).c_str());
    if (!md || !ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1)
      throw std::runtime_error(fmt::format("digest {} is not available", algorithm));
  }
  void update(const void* data, std::size_t n) { EVP_DigestUpdate(ctx.get(), data, n); }
  std::string hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx.get(), out.data(), &len);
    std::string s;
    s.reserve(2 * len);
    for (unsigned int i = 0; i < len; ++i) s += fmt::format("{:02x}", out[i]);
    return s;
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx;
};

}  // namespace

std::string file_digest(const std::filesystem::path& file, std::string_view algorithm) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("cannot read {} to checksum it", file.string()));
  Digest d(algorithm);
  std::array<char, 1 << 16> buf{};
  while (in) {
    in.read(buf.data(), buf.size());
    d.update(buf.data(), static_cast<std::size_t>(in.gcount()));
  }
  return d.hex();
}

std::string string_digest(std::string_view data, std::string_view algorithm) {
  Digest d(algorithm);
  d.update(data.data(), data.size());
  return d.hex();
}

}  // namespace dlcbench
