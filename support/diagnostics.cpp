// diagnostics.cpp: stores diagnostics and renders `file:line:col: error: message [Kind]` with a caret.
#include "support/diagnostics.h"

#include "support/diagnostic_format.h"

#include <ostream>

#include <fmt/format.h>

namespace gpm::support {

const char* diag_kind_name(DiagKind kind) {
  switch (kind) {
#define GPM_DIAG(name, summary) \
  case DiagKind::name:          \
    return #name;
#include "support/diagnostic_kinds.def"
#undef GPM_DIAG
  }
  return "Unknown";
}

const char* diag_kind_summary(DiagKind kind) {
  switch (kind) {
#define GPM_DIAG(name, summary) \
  case DiagKind::name:          \
    return summary;
#include "support/diagnostic_kinds.def"
#undef GPM_DIAG
  }
  return "";
}

std::vector<DiagKind> all_diag_kinds() {
  return {
#define GPM_DIAG(name, summary) DiagKind::name,
#include "support/diagnostic_kinds.def"
#undef GPM_DIAG
  };
}

void DiagnosticEngine::error(DiagKind kind, SourceRange range, std::string message) {
  add(kind, range, std::move(message), false);
}

void DiagnosticEngine::warning(DiagKind kind, SourceRange range, std::string message) {
  add(kind, range, std::move(message), !werror_);
}

void DiagnosticEngine::add(DiagKind kind, SourceRange range, std::string message, bool warning) {
  range = sources_.resolve(range);
  // The same diagnostic at the same place (a kernel run twice, a file imported twice) is reported once.
  for (const auto& d : diagnostics_)
    if (d.kind == kind && d.range.file == range.file && d.range.begin == range.begin && d.range.end == range.end &&
        d.message == message && d.warning == warning) {
      suppressed_last_ = true;
      return;
    }
  suppressed_last_ = false;
  if (!warning) ++errors_;
  if (diagnostics_.size() >= kMaxErrors) {
    ++dropped_;
    return;
  }
  diagnostics_.push_back({kind, range, std::move(message), {}, warning});
}

DiagnosticEngine::Mark DiagnosticEngine::mark() const {
  return {diagnostics_.size(), errors_, dropped_, diagnostics_.empty() ? 0 : diagnostics_.back().notes.size(),
          reported_dropped_, suppressed_last_};
}

bool DiagnosticEngine::rollback(const Mark& mark) {
  if (flushed_ > mark.diagnostics) return false;
  diagnostics_.resize(mark.diagnostics);
  if (!diagnostics_.empty()) diagnostics_.back().notes.resize(mark.last_notes);
  errors_ = mark.errors;
  dropped_ = mark.dropped;
  reported_dropped_ = mark.reported_dropped;
  suppressed_last_ = mark.suppressed_last;
  return true;
}

DiagnosticEngine::Location DiagnosticEngine::location(SourceRange range) const {
  if (!range.valid()) return {};
  LineColumn pos = sources_.line_column(range.file, range.begin);
  LineColumn end = sources_.line_column(range.file, std::max(range.begin, range.end));
  return {std::string(sources_.path(range.file)), uint32_t(pos.line), uint32_t(pos.column), uint32_t(end.line),
          uint32_t(end.column)};
}

void DiagnosticEngine::note(SourceRange range, std::string message) {
  if (diagnostics_.empty() || dropped_ > 0 || suppressed_last_) return;
  diagnostics_.back().notes.emplace_back(sources_.resolve(range), std::move(message));
}

// Splits a line into displayable cells, one per code point: invalid UTF-8 and control characters show
// as `?` so that a diagnostic never writes raw binary to the terminal.
static std::vector<std::string> display_cells(std::string_view line) {
  std::vector<std::string> cells;
  for (size_t i = 0; i < line.size();) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    size_t len = utf8_sequence_length(reinterpret_cast<const unsigned char*>(line.data()) + i, line.size() - i);
    if (len == 0) {
      cells.push_back("?");
      ++i;
      continue;
    }
    if (len == 1 && c != '\t' && (c < 0x20 || c == 0x7F))
      cells.push_back("?");
    else
      cells.push_back(std::string(line.substr(i, len)));
    i += len;
  }
  return cells;
}

// Prints the source line and a caret line under the range (clipped to its first line). Long lines are
// shown as a window around the caret.
static std::string caret_lines(const SourceManager& sources, SourceRange range, bool color) {
  constexpr size_t kWidth = 100;
  LineColumn start = sources.line_column(range.file, range.begin);
  LineColumn stop = sources.line_column(range.file, range.end);
  std::vector<std::string> cells = display_cells(sources.line_text(range.file, start.line));
  size_t first = start.column - 1;
  size_t last = stop.line == start.line ? std::max<size_t>(stop.column - 1, first + 1) : cells.size();
  last = std::max(last, first + 1);
  size_t window_begin = first > kWidth / 2 ? first - kWidth / 4 : 0;
  size_t window_end = std::min(cells.size(), window_begin + kWidth);
  std::string text = window_begin > 0 ? "..." : "", marks = window_begin > 0 ? "   " : "";
  for (size_t i = window_begin; i < window_end; ++i) text += cells[i];
  if (window_end < cells.size()) text += "...";
  for (size_t i = window_begin; i < std::min(first, window_end); ++i) marks += cells[i] == "\t" ? '\t' : ' ';
  marks += '^';
  for (size_t i = first + 1; i < std::min(last, window_end); ++i) marks += '~';
  if (color) return fmt::format("  {}\n  \033[1;32m{}\033[0m\n", text, marks);
  return fmt::format("  {}\n  {}\n", text, marks);
}

// clang's colours: the location and the message bold, the severity in its colour.
static const char* severity_color(const char* severity) {
  std::string_view s = severity;
  if (s == "error") return "\033[1;31m";
  if (s == "warning") return "\033[1;35m";
  return "\033[1;36m";  // note
}

std::string DiagnosticEngine::render_location(SourceRange range, const char* severity,
                                              const std::string& message, const char* kind, bool color) const {
  std::string suffix = kind ? fmt::format(" [{}]", kind) : std::string();
  std::string where = "gpmc:";
  if (range.valid()) {
    LineColumn pos = sources_.line_column(range.file, range.begin);
    where = fmt::format("{}:{}:{}:", sources_.path(range.file), pos.line, pos.column);
  }
  std::string head = color ? fmt::format("\033[1m{}\033[0m {}{}:\033[0m \033[1m{}{}\033[0m\n", where,
                                         severity_color(severity), severity, message, suffix)
                           : fmt::format("{} {}: {}{}\n", where, severity, message, suffix);
  if (!range.valid()) return head;
  return head + caret_lines(sources_, range, color);
}

std::string DiagnosticEngine::render(const Diagnostic& d, bool color) const {
  std::string out =
      render_location(d.range, d.warning ? "warning" : "error", d.message, diag_kind_name(d.kind), color);
  for (const auto& [range, text] : d.notes) out += render_location(range, "note", text, nullptr, color);
  return out;
}

void DiagnosticEngine::flush(std::ostream& out) {
  DiagnosticStyle style = diagnostic_style();
  for (; flushed_ < diagnostics_.size(); ++flushed_) {
    const Diagnostic& d = diagnostics_[flushed_];
    if (style.format == DiagFormat::Json) out << diagnostic_json_line(*this, d) << '\n';
    else if (style.format == DiagFormat::Sarif) sarif_add(*this, d);
    else out << render(d, style.color);
  }
  if (dropped_ > 0 && !reported_dropped_) {
    std::string message = fmt::format("{} further errors not shown", dropped_);
    std::string text = style.color ? fmt::format("\033[1mgpmc:\033[0m \033[1;36mnote:\033[0m \033[1m{}\033[0m\n", message)
                                   : fmt::format("gpmc: note: {}\n", message);
    write_message(out, "note", message, text);
    reported_dropped_ = true;
  }
  out.flush();
}

}  // namespace gpm::support
