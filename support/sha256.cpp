// sha256.cpp: SHA-256 through OpenSSL's EVP interface (a well-kept library, not a hand-written digest).
#include "support/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace gpm::support {

std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed in libcrypto");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

}  // namespace gpm::support
