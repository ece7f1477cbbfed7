// source_manager.cpp: line tables and offset-to-position mapping for loaded files.
#include "support/source_manager.h"

#include <algorithm>

namespace gpm::support {

size_t utf8_sequence_length(const unsigned char* p, size_t remaining) {
  if (remaining == 0) return 0;
  unsigned char c = p[0];
  size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || len > remaining) return 0;
  for (size_t k = 1; k < len; ++k)
    if ((p[k] & 0xC0) != 0x80) return 0;
  if (len == 2 && c < 0xC2) return 0;                                           // overlong
  if (len == 3 && ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0))) return 0;  // overlong, surrogate
  if (len == 4 && ((c == 0xF0 && p[1] < 0x90) || c > 0xF4 || (c == 0xF4 && p[1] >= 0x90))) return 0;
  return len;
}

size_t first_non_text_byte(std::string_view text) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  for (size_t i = 0; i < text.size();) {
    const size_t len = utf8_sequence_length(bytes + i, text.size() - i);
    if (len == 0 || bytes[i] == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

FileId SourceManager::add(std::string display_path, std::string text) {
  File file{std::move(display_path), std::move(text), {0}};
  for (uint32_t i = 0; i < file.text.size(); ++i)
    if (file.text[i] == '\n') file.line_starts.push_back(i + 1);
  files_.push_back(std::move(file));
  return static_cast<FileId>(files_.size() - 1);
}

FileId SourceManager::add_fragment(FileId parent, uint32_t offset, uint32_t length) {
  const File& whole = files_.at(parent);
  FileId id = add(whole.path, whole.text.substr(offset, length));
  files_.back().parent = parent;
  files_.back().parent_offset = offset;
  return id;
}

SourceRange SourceManager::resolve(SourceRange range) const {
  if (!range.valid()) return range;
  const File& file = files_.at(range.file);
  if (file.parent == kNoFile) return range;
  return {file.parent, range.begin + file.parent_offset, range.end + file.parent_offset};
}

LineColumn SourceManager::line_column(FileId id, uint32_t offset) const {
  const File& file = files_.at(id);
  offset = std::min<uint32_t>(offset, file.text.size());
  auto it = std::upper_bound(file.line_starts.begin(), file.line_starts.end(), offset);
  uint32_t line_index = static_cast<uint32_t>(it - file.line_starts.begin()) - 1;
  uint32_t column = 1;
  for (uint32_t i = file.line_starts[line_index]; i < offset; ++i)
    if ((static_cast<unsigned char>(file.text[i]) & 0xC0) != 0x80) ++column;  // count code points
  return {line_index + 1, column};
}

std::string_view SourceManager::line_text(FileId id, uint32_t line) const {
  const File& file = files_.at(id);
  if (line == 0 || line > file.line_starts.size()) return {};
  uint32_t begin = file.line_starts[line - 1];
  uint32_t end = line < file.line_starts.size() ? file.line_starts[line] : file.text.size();
  std::string_view view(file.text.data() + begin, end - begin);
  while (!view.empty() && (view.back() == '\n' || view.back() == '\r')) view.remove_suffix(1);
  return view;
}

}  // namespace gpm::support
