// text.h: LSP positions (0-based lines, UTF-16 code units) to byte offsets and back; file URIs to paths and back.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace gpm::lsp {

struct Position {
  uint32_t line = 0;       // 0-based
  uint32_t character = 0;  // 0-based, in UTF-16 code units
};

// The byte offset of a position in `text`; a line past the end gives the text's size, a character past the end of
// its line the line's end.
uint32_t offset_of(std::string_view text, Position position);
// The position of a byte offset (clamped to the text).
Position position_of(std::string_view text, uint32_t offset);
// An LSP Range object for bytes [begin, end) of `text`.
nlohmann::json range_json(std::string_view text, uint32_t begin, uint32_t end);

// `file:///a%20b/c.gpm` -> `/a b/c.gpm`; any other URI is returned as it is (it then names no file on disk).
std::string uri_to_path(const std::string& uri);
// An absolute path as a file URI (percent-encoded); a relative path is made absolute from the working folder.
std::string path_to_uri(const std::string& path);

// The identifier ([A-Za-z_][A-Za-z0-9_]*) at or just before `offset`, with its byte range; empty when none.
std::string_view word_at(std::string_view text, uint32_t offset, uint32_t& begin, uint32_t& end);

}  // namespace gpm::lsp
