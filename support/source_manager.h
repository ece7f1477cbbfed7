// source_manager.h: owns the text of every loaded file and maps byte offsets to lines and columns.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpm::support {

using FileId = int32_t;
inline constexpr FileId kNoFile = -1;

// A half-open byte range [begin, end) inside one file.
struct SourceRange {
  FileId file = kNoFile;
  uint32_t begin = 0;
  uint32_t end = 0;
  bool valid() const { return file != kNoFile; }
  static SourceRange join(const SourceRange& a, const SourceRange& b) {
    if (!a.valid()) return b;
    if (!b.valid() || a.file != b.file) return a;
    return {a.file, std::min(a.begin, b.begin), std::max(a.end, b.end)};
  }
};

struct LineColumn {
  uint32_t line = 0;    // 1-based
  uint32_t column = 0;  // 1-based, in code points
};

// The length of the well-formed UTF-8 sequence at `p` (1 to 4), or 0 if it is malformed (a stray
// continuation byte, an overlong form, a surrogate, a value past U+10FFFF, a truncated sequence).
size_t utf8_sequence_length(const unsigned char* p, size_t remaining);
// Where `text` stops being text: the offset of its first NUL byte or malformed UTF-8 sequence, or npos.
size_t first_non_text_byte(std::string_view text);

class SourceManager {
 public:
  // Adds a file whose text is already in memory; `display_path` is what diagnostics print.
  FileId add(std::string display_path, std::string text);
  // Adds bytes [offset, offset + length) of file `parent` as a file of their own (a cell of a CSV file parsed
  // as an expression); diagnostics in it are reported at the same bytes of the parent (see `resolve`).
  FileId add_fragment(FileId parent, uint32_t offset, uint32_t length);
  // A range in a fragment moved to the same bytes of its parent file; any other range unchanged.
  SourceRange resolve(SourceRange range) const;
  const std::string& path(FileId id) const { return files_.at(id).path; }
  const std::string& text(FileId id) const { return files_.at(id).text; }
  LineColumn line_column(FileId id, uint32_t offset) const;
  // The text of the (1-based) line without its line terminator.
  std::string_view line_text(FileId id, uint32_t line) const;
  size_t file_count() const { return files_.size(); }
  // Whether a file is a fragment of another (add_fragment), not a file of its own.
  bool is_fragment(FileId id) const { return files_.at(id).parent != kNoFile; }

 private:
  struct File {
    std::string path;
    std::string text;
    std::vector<uint32_t> line_starts;
    FileId parent = kNoFile;  // fragments only: the file the text was taken from, at `parent_offset`
    uint32_t parent_offset = 0;
  };
  std::vector<File> files_;
};

}  // namespace gpm::support
