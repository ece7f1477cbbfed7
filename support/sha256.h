// sha256.h: the SHA-256 digest of a text, in hexadecimal (GNU Nettle), for the provenance of results.
#pragma once
#include <string>
#include <string_view>

namespace gpm::support {

// 64 lowercase hexadecimal digits.
std::string sha256_hex(std::string_view data);

}  // namespace gpm::support
