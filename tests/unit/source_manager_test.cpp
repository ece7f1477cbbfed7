// source_manager_test.cpp: unit tests of byte-offset to line/column mapping and line extraction.
#include <doctest/doctest.h>

#include <string>

#include "support/source_manager.h"

using namespace gpm::support;

namespace {
// Checks line_column(offset) == {line, column}.
void check_position(const SourceManager& sm, FileId file, uint32_t offset, uint32_t line, uint32_t column) {
  LineColumn at = sm.line_column(file, offset);
  CHECK_MESSAGE(at.line == line, "offset ", offset);
  CHECK_MESSAGE(at.column == column, "offset ", offset);
}
}  // namespace

TEST_CASE("source manager: add returns consecutive ids and keeps path and text") {
  SourceManager sm;
  FileId a = sm.add("a.gpm", "param x = 1\n");
  FileId b = sm.add("dir/b.gpm", "");
  CHECK(a == 0);
  CHECK(b == 1);
  CHECK(sm.file_count() == 2);
  CHECK(sm.path(a) == "a.gpm");
  CHECK(sm.path(b) == "dir/b.gpm");
  CHECK(sm.text(a) == "param x = 1\n");
  CHECK(sm.text(b).empty());
}

TEST_CASE("source manager: offsets map to 1-based lines and columns in ASCII text") {
  SourceManager sm;
  FileId f = sm.add("t.gpm", "ab\ncde\n\nf");
  check_position(sm, f, 0, 1, 1);  // a
  check_position(sm, f, 1, 1, 2);  // b
  check_position(sm, f, 2, 1, 3);  // the newline ends line 1
  check_position(sm, f, 3, 2, 1);  // c
  check_position(sm, f, 5, 2, 3);  // e
  check_position(sm, f, 7, 3, 1);  // the empty line 3
  check_position(sm, f, 8, 4, 1);  // f
}

TEST_CASE("source manager: columns count code points, not bytes, for multi-byte UTF-8") {
  SourceManager sm;
  // é is 2 bytes, € is 3 bytes, 😀 is 4 bytes.
  std::string text = "a\xC3\xA9" "b\n\xE2\x82\xAC\xF0\x9F\x98\x80x\n";
  FileId f = sm.add("u.gpm", text);
  check_position(sm, f, 0, 1, 1);  // a
  check_position(sm, f, 1, 1, 2);  // é
  check_position(sm, f, 3, 1, 3);  // b comes after the 2-byte é
  check_position(sm, f, 5, 2, 1);  // €
  check_position(sm, f, 8, 2, 2);  // 😀 after the 3-byte €
  check_position(sm, f, 12, 2, 3);  // x after the 4-byte emoji
}

TEST_CASE("source manager: the last line without a newline is a line of its own") {
  SourceManager sm;
  std::string text = "first\nlast";
  FileId f = sm.add("t.gpm", text);
  check_position(sm, f, 6, 2, 1);
  check_position(sm, f, 9, 2, 4);
  // The end-of-file offset (where an `unexpected end of file` error points) is on the last line.
  check_position(sm, f, uint32_t(text.size()), 2, 5);
  CHECK(sm.line_text(f, 1) == "first");
  CHECK(sm.line_text(f, 2) == "last");
  CHECK(sm.line_text(f, 3).empty());
}

TEST_CASE("source manager: a file ending in a newline has an empty line after it") {
  SourceManager sm;
  FileId f = sm.add("t.gpm", "x\n");
  check_position(sm, f, 2, 2, 1);
  CHECK(sm.line_text(f, 1) == "x");
  CHECK(sm.line_text(f, 2).empty());
}

TEST_CASE("source manager: offsets past the end clamp to the end of the file") {
  SourceManager sm;
  FileId f = sm.add("t.gpm", "ab\ncd");
  check_position(sm, f, 1000, 2, 3);
}

TEST_CASE("source manager: line_text strips CR LF and LF terminators") {
  SourceManager sm;
  FileId f = sm.add("t.gpm", "one\r\ntwo\nthree\r\n");
  CHECK(sm.line_text(f, 1) == "one");
  CHECK(sm.line_text(f, 2) == "two");
  CHECK(sm.line_text(f, 3) == "three");
  check_position(sm, f, 5, 2, 1);  // t of two
}

TEST_CASE("source manager: line_text of line 0 or beyond the last line is empty") {
  SourceManager sm;
  FileId f = sm.add("t.gpm", "a\nb");
  CHECK(sm.line_text(f, 0).empty());
  CHECK(sm.line_text(f, 3).empty());
  CHECK(sm.line_text(f, 100).empty());
}

TEST_CASE("source manager: an empty file has one empty line") {
  SourceManager sm;
  FileId f = sm.add("empty.gpm", "");
  check_position(sm, f, 0, 1, 1);
  CHECK(sm.line_text(f, 1).empty());
}

TEST_CASE("source manager: SourceRange::join spans both ranges of one file") {
  SourceRange a{0, 5, 8}, b{0, 2, 4}, other{1, 0, 100}, none{};
  SourceRange j = SourceRange::join(a, b);
  CHECK(j.file == 0);
  CHECK(j.begin == 2);
  CHECK(j.end == 8);
  CHECK(SourceRange::join(none, a).begin == 5);  // invalid left side: the right one
  CHECK(SourceRange::join(a, none).end == 8);
  CHECK(SourceRange::join(a, other).file == 0);  // different files: the left one
  CHECK_FALSE(none.valid());
  CHECK(a.valid());
}

TEST_CASE("source manager: a fragment holds a slice of its parent and resolves to the parent's bytes") {
  SourceManager sm;
  FileId csv = sm.add("points.csv", "bytes,measured_s\n64KiB,1e-5\n");
  FileId cell = sm.add_fragment(csv, 17, 5);
  CHECK(sm.text(cell) == "64KiB");
  CHECK(sm.path(cell) == "points.csv");
  SourceRange inside{cell, 2, 5};
  SourceRange moved = sm.resolve(inside);
  CHECK(moved.file == csv);
  CHECK(moved.begin == 19);
  CHECK(moved.end == 22);
  LineColumn at = sm.line_column(moved.file, moved.begin);
  CHECK(at.line == 2);
  CHECK(at.column == 3);
  SourceRange plain{csv, 1, 2};
  CHECK(sm.resolve(plain).file == csv);
  CHECK(sm.resolve(plain).begin == 1);
  CHECK_FALSE(sm.resolve(SourceRange{}).valid());
}
