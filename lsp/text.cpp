// text.cpp: position and URI conversions for the language server.
#include "lsp/text.h"

#include "support/diagnostic_format.h"

#include <filesystem>

namespace gpm::lsp {

namespace {

// The length in bytes of the UTF-8 sequence starting with `lead` (1 for a byte that cannot start one).
size_t sequence_length(unsigned char lead) {
  if (lead >= 0xF0 && lead < 0xF8) return 4;
  if (lead >= 0xE0) return lead < 0xF0 ? 3 : 1;
  if (lead >= 0xC0) return 2;
  return 1;
}

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

uint32_t offset_of(std::string_view text, Position position) {
  size_t i = 0;
  for (uint32_t line = 0; line < position.line; ++line) {
    size_t newline = text.find('\n', i);
    if (newline == std::string_view::npos) return uint32_t(text.size());
    i = newline + 1;
  }
  uint32_t units = 0;
  while (i < text.size() && text[i] != '\n' && text[i] != '\r' && units < position.character) {
    size_t length = std::min(sequence_length(static_cast<unsigned char>(text[i])), text.size() - i);
    units += length == 4 ? 2 : 1;  // a code point beyond the BMP is two UTF-16 units
    i += length;
  }
  return uint32_t(i);
}

Position position_of(std::string_view text, uint32_t offset) {
  size_t end = std::min<size_t>(offset, text.size());
  Position p;
  size_t line_start = 0;
  for (size_t i = 0; i < end; ++i)
    if (text[i] == '\n') {
      ++p.line;
      line_start = i + 1;
    }
  for (size_t i = line_start; i < end;) {
    size_t length = sequence_length(static_cast<unsigned char>(text[i]));
    p.character += length == 4 ? 2 : 1;
    i += length;
  }
  return p;
}

nlohmann::json range_json(std::string_view text, uint32_t begin, uint32_t end) {
  Position a = position_of(text, begin), b = position_of(text, std::max(begin, end));
  return {{"start", {{"line", a.line}, {"character", a.character}}},
          {"end", {{"line", b.line}, {"character", b.character}}}};
}

std::string uri_to_path(const std::string& uri) {
  const std::string scheme = "file://";
  if (uri.rfind(scheme, 0) != 0) return uri;
  std::string rest = uri.substr(scheme.size());
  size_t slash = rest.find('/');
  if (slash == std::string::npos) return uri;
  rest = rest.substr(slash);  // drops the host (`localhost` or empty)
  std::string path;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && hex_value(rest[i + 1]) >= 0 && hex_value(rest[i + 2]) >= 0) {
      path += char(hex_value(rest[i + 1]) * 16 + hex_value(rest[i + 2]));
      i += 2;
    } else {
      path += rest[i];
    }
  }
  return path;
}

std::string path_to_uri(const std::string& path) {
  std::error_code ec;
  std::string absolute = path;
  if (!path.empty() && path[0] != '/') {
    auto made = std::filesystem::absolute(path, ec);
    if (!ec) absolute = made.lexically_normal().string();
  }
  return support::artifact_uri(absolute);
}

std::string_view word_at(std::string_view text, uint32_t offset, uint32_t& begin, uint32_t& end) {
  size_t at = std::min<size_t>(offset, text.size());
  if ((at == text.size() || !is_ident_char(text[at])) && at > 0 && is_ident_char(text[at - 1])) --at;
  if (at >= text.size() || !is_ident_char(text[at])) return {};
  size_t b = at, e = at;
  while (b > 0 && is_ident_char(text[b - 1])) --b;
  while (e < text.size() && is_ident_char(text[e])) ++e;
  if (text[b] >= '0' && text[b] <= '9') return {};  // a number, not a name
  begin = uint32_t(b);
  end = uint32_t(e);
  return text.substr(b, e - b);
}

}  // namespace gpm::lsp
