// sha256.cpp: SHA-256 through GNU Nettle (a well-kept library, not a hand-written digest).
#include "support/sha256.h"

#include <nettle/sha2.h>

namespace gpm::support {

std::string sha256_hex(std::string_view data) {
  sha256_ctx context;
  sha256_init(&context);
  sha256_update(&context, data.size(), reinterpret_cast<const uint8_t*>(data.data()));
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&context, SHA256_DIGEST_SIZE, digest);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (uint8_t byte : digest) {
    out += hex[byte >> 4];
    out += hex[byte & 15];
  }
  return out;
}

}  // namespace gpm::support
