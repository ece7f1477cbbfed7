// csv.h: a field of a CSV row as RFC 4180 writes it (quoted, with doubled quotes, when it needs to be).
#pragma once
#include <string>

namespace gpm::support {

inline std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace gpm::support
