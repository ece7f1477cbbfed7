// analysis.h: one open document checked as `gpmc check` checks a file (prelude, imports, sema, parameter values),
// and what the editor asks of it: diagnostics, hover, definition, completion.
#pragma once
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "driver/pipeline.h"

namespace gpm::lsp {

using Json = nlohmann::json;

class Analysis {
 public:
  // Checks the document `path` with `text`; `open` holds the other open documents' texts by path, read instead of
  // their files when the document imports them.
  Analysis(const std::string& path, const std::string& text, const std::map<std::string, std::string>& open);
  // LSP Diagnostic objects: those in the document at their ranges, those in other files (imports, the standard
  // library) at the document's first character, naming where they are.
  Json diagnostics() const;
  // A Hover object for the name at byte `offset` of the document, or null.
  Json hover(uint32_t offset) const;
  // A Location of the declaration of the name (or the file an import names) at `offset`, or null.
  Json definition(uint32_t offset) const;
  // CompletionItem objects: attribute names of every schema, keywords, and the names visible at `offset`.
  Json completion(uint32_t offset) const;
  const std::string& text() const { return text_; }
  // Whether the check read the file `path` (an import of the document, directly or not).
  bool reads(const std::string& path) const;

 private:
  // What a name at an offset of the document refers to.
  struct Target {
    const frontend::Decl* decl = nullptr;        // a declaration
    const frontend::FnDecl* fn = nullptr;        // with `param`: a parameter of this function
    const frontend::FnParam* param = nullptr;
    const frontend::KernelDecl* kernel = nullptr;  // a kernel of the enclosing app (`run K`)
    std::string word;                            // the name as written
  };
  Target resolve(uint32_t offset) const;
  const frontend::Decl* enclosing(uint32_t offset) const;  // the top-level declaration around the offset
  std::string value_text(const frontend::Decl& decl) const;
  Json location_json(support::SourceRange range) const;
  std::string file_path(support::FileId file) const;  // a file of the session as a path on disk

  std::string path_, text_;
  std::unique_ptr<driver::Session> session_;
  support::FileId file_ = support::kNoFile;
  const frontend::Module* module_ = nullptr;
  bool checked_ = false;  // the whole check passed: values may be computed
};

// The source comment of a declaration starting at byte `begin` of `text`: the `//` lines right above it, else a
// `//` comment at the end of its first line; empty when there is none.
std::string declaration_comment(std::string_view text, uint32_t begin);

}  // namespace gpm::lsp
