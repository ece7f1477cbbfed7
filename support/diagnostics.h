// diagnostics.h: the diagnostic engine: collects located errors and renders them with a caret.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "support/source_manager.h"

namespace gpm::support {

enum class DiagKind {
#define GPM_DIAG(name, summary) name,
#include "support/diagnostic_kinds.def"
#undef GPM_DIAG
};

const char* diag_kind_name(DiagKind kind);
const char* diag_kind_summary(DiagKind kind);
std::vector<DiagKind> all_diag_kinds();

struct Diagnostic {
  DiagKind kind;
  SourceRange range;  // may be invalid for errors without a location
  std::string message;
  std::vector<std::pair<SourceRange, std::string>> notes;
  bool warning = false;  // a warning: the model substituted, ignored or guessed something, and says so
};

class DiagnosticEngine {
 public:
  explicit DiagnosticEngine(const SourceManager& sources) : sources_(sources) {}
  void error(DiagKind kind, SourceRange range, std::string message);
  // A located warning (`file:line:col: warning: ...`): evaluation goes on. An error instead under --Werror.
  void warning(DiagKind kind, SourceRange range, std::string message);
  void set_warnings_as_errors(bool on) { werror_ = on; }
  // Attaches a note (for instance "previous definition is here") to the last error or warning.
  void note(SourceRange range, std::string message);
  bool has_errors() const { return errors_ > 0; }
  size_t error_count() const { return errors_; }
  size_t warning_count() const { return diagnostics_.size() - errors_; }
  // Where a range starts, as the renderer prints it: the file's path, line and column (empty path when invalid),
  // and where it ends (the line and column just past its last character).
  struct Location {
    std::string path;
    uint32_t line = 0, column = 0;
    uint32_t end_line = 0, end_column = 0;
  };
  Location location(SourceRange range) const;
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  // Writes every diagnostic not yet written, in the order reported, in the process's diagnostic style
  // (support/diagnostic_format.h): text by default, coloured under --color, JSON Lines, or kept for the SARIF log.
  void flush(std::ostream& out);
  // The text form; `color` adds clang's terminal colours (bold location, red error, magenta warning, cyan note,
  // green caret).
  std::string render(const Diagnostic& diagnostic, bool color = false) const;
  // Where the diagnostics stand, and a return to there: what was reported since is forgotten (a step the driver runs
  // again another way). False, forgetting nothing, when some of it was already written out.
  struct Mark {
    size_t diagnostics = 0, errors = 0, dropped = 0, last_notes = 0;
    bool reported_dropped = false, suppressed_last = false;
  };
  Mark mark() const;
  bool rollback(const Mark& mark);
  // Beyond this many errors the rest are counted but not stored.
  static constexpr size_t kMaxErrors = 50;

 private:
  std::string render_location(SourceRange range, const char* severity, const std::string& message,
                              const char* kind, bool color) const;
  void add(DiagKind kind, SourceRange range, std::string message, bool warning);
  const SourceManager& sources_;
  std::vector<Diagnostic> diagnostics_;
  size_t flushed_ = 0;
  size_t errors_ = 0;
  bool werror_ = false;
  size_t dropped_ = 0;
  bool reported_dropped_ = false;
  bool suppressed_last_ = false;  // the last error repeated an earlier one: its notes are dropped too
};

}  // namespace gpm::support
