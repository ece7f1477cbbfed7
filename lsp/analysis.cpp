// analysis.cpp: checking an open document with the driver's session, and its diagnostics as LSP objects.
#include "lsp/analysis.h"

#include <filesystem>

#include "lsp/text.h"

namespace gpm::lsp {

Analysis::Analysis(const std::string& path, const std::string& text, const std::map<std::string, std::string>& open)
    : path_(path), text_(text) {
  session_ = std::make_unique<driver::Session>(driver::Options{});
  for (const auto& [other, other_text] : open)
    if (other != path) session_->add_generated_file(other, other_text);
  session_->add_generated_file(path, text);
  checked_ = session_->check({path});
  const support::SourceManager& sources = session_->sources();
  for (support::FileId id = 0; id < support::FileId(sources.file_count()); ++id)
    if (!sources.is_fragment(id) && file_path(id) == path && sources.text(id) == text) file_ = id;
  for (const frontend::Module* module : session_->modules())
    if (module->file == file_) module_ = module;
}

std::string Analysis::file_path(support::FileId file) const {
  const std::string& shown = session_->sources().path(file);
  if (shown.rfind("stdlib/", 0) == 0) {
    std::string dir = driver::default_stdlib_dir();
    if (!dir.empty()) return (std::filesystem::path(dir) / shown.substr(7)).lexically_normal().string();
  }
  return shown;
}

bool Analysis::reads(const std::string& path) const {
  const support::SourceManager& sources = session_->sources();
  for (support::FileId id = 0; id < support::FileId(sources.file_count()); ++id)
    if (id != file_ && !sources.is_fragment(id) && file_path(id) == path) return true;
  return false;
}

Json Analysis::location_json(support::SourceRange range) const {
  return {{"uri", path_to_uri(file_path(range.file))},
          {"range", range_json(session_->sources().text(range.file), range.begin, range.end)}};
}

Json Analysis::diagnostics() const {
  Json out = Json::array();
  const support::DiagnosticEngine& diags = session_->diags();
  for (const support::Diagnostic& d : diags.diagnostics()) {
    std::string message = d.message;
    Json range = range_json(text_, 0, 0);
    if (d.range.valid() && d.range.file == file_) {
      range = range_json(text_, d.range.begin, d.range.end);
    } else if (d.range.valid()) {
      auto at = diags.location(d.range);
      message = at.path + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": " + message;
    }
    Json related = Json::array();
    for (const auto& [where, note] : d.notes) {
      if (where.valid()) related.push_back({{"location", location_json(where)}, {"message", note}});
      else message += "\nnote: " + note;
    }
    Json item = {{"range", range},
                 {"severity", d.warning ? 2 : 1},
                 {"code", support::diag_kind_name(d.kind)},
                 {"source", "gpmc"},
                 {"message", message}};
    if (!related.empty()) item["relatedInformation"] = related;
    out.push_back(std::move(item));
  }
  return out;
}

const frontend::Decl* Analysis::enclosing(uint32_t offset) const {
  if (!module_) return nullptr;
  for (const auto& decl : module_->decls)
    if (decl->range.file == file_ && decl->range.begin <= offset && offset <= decl->range.end) return decl.get();
  return nullptr;
}

std::string declaration_comment(std::string_view text, uint32_t begin) {
  auto trim = [](std::string_view s) {
    size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string_view::npos) return std::string_view();
    size_t b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
  };
  auto comment_body = [&](std::string_view line) {
    std::string_view body = trim(line).substr(2);
    if (!body.empty() && body[0] == ' ') body.remove_prefix(1);
    return std::string(body);
  };
  begin = uint32_t(std::min<size_t>(begin, text.size()));
  size_t line_start = begin == 0 ? 0 : text.rfind('\n', begin - 1);
  line_start = line_start == std::string_view::npos || begin == 0 ? 0 : line_start + 1;
  std::vector<std::string> above;
  size_t end = line_start;  // the end (newline included) of the line above
  while (end > 0) {
    size_t start = end - 1 == 0 ? 0 : text.rfind('\n', end - 2);
    start = start == std::string_view::npos || end - 1 == 0 ? 0 : start + 1;
    std::string_view line = trim(text.substr(start, end - 1 - start));
    if (line.substr(0, 2) != "//") break;
    above.insert(above.begin(), comment_body(line));
    end = start;
  }
  std::string out;
  for (const auto& line : above) out += (out.empty() ? "" : "\n") + line;
  if (!out.empty()) return out;
  size_t line_end = text.find('\n', begin);
  std::string_view rest = text.substr(begin, line_end == std::string_view::npos ? std::string_view::npos : line_end - begin);
  size_t slashes = rest.find("//");
  if (slashes == std::string_view::npos || rest.find('"') < slashes) return {};
  return comment_body(rest.substr(slashes));
}

}  // namespace gpm::lsp
