// csv.h: a field of a CSV row as RFC 4180 writes it (quoted, with doubled quotes, when it needs to be).
#pragma once
#include <string>
#include <string_view>

namespace gpm::support {

// Whether a field must be quoted (a comma, a quote or a line break in it); one pass over the text.
inline bool csv_needs_quotes(std::string_view text) {
  for (char c : text)
    if (c == ',' || c == '"' || c == '\n' || c == '\r') return true;
  return false;
}

inline std::string csv_field(const std::string& text) {
  if (!csv_needs_quotes(text)) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace gpm::support
