// sema_words.cpp: word parameters (`param memory = pinned in {pinned, pageable}`) and the word positions that take them.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frontend/sema.h"
#include "support/suggest.h"

namespace gpm::frontend {

namespace {

std::string with_article(const std::string& noun) {
  return (std::string("aeiou").find(noun[0]) != std::string::npos ? "an " : "a ") + noun;
}

std::string word_list(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i)
    out += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  return out;
}

}  // namespace

// The default must be a bare word of the set; the set names each word once. The value becomes the index of
// the default word (a count), which is what the IR, --set and sweeps carry.
Type Sema::check_word_param(ParamDecl& p) {
  bool ok = true;
  for (size_t i = 0; i < p.words.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (p.words[i] == p.words[k]) {
        diags_.error(DiagKind::DuplicateDefinition, p.word_ranges[i],
                     fmt::format("the word `{}` is listed twice in the set of `{}`", p.words[i], p.name));
        diags_.note(p.word_ranges[k], "first listed here");
        ok = false;
      }
  const Expr& value = *p.value;
  size_t index = p.words.size();
  if (value.kind != ExprKind::Name || value.parenthesized) {
    diags_.error(DiagKind::WordParamMisuse, value.range,
                 fmt::format("`{}` is a word parameter: its value is one of the words {}, not an expression", p.name,
                             word_list(p.words)));
    ok = false;
  } else {
    index = size_t(std::find(p.words.begin(), p.words.end(), value.name) - p.words.begin());
    if (index == p.words.size()) {
      diags_.error(DiagKind::InvalidKeyword, value.range,
                   fmt::format("`{}` is not in the set of `{}` ({}){}", value.name, p.name, word_list(p.words),
                               did_you_mean(value.name, p.words)));
      ok = false;
    }
  }
  if (!ok) return Type::error();
  auto literal = std::make_unique<Expr>();
  literal->kind = ExprKind::Number;
  literal->range = value.range;
  literal->value = double(index);
  literal->literal_dim = Dim::count();
  literal->text = value.name;
  literal->type = Type::quantity(Dim::count());
  p.value = std::move(literal);
  p.type = Type::quantity(Dim::count());
  return p.type;
}

std::vector<std::string> Sema::resolve_word(const std::string& written, SourceRange where,
                                            const std::vector<std::string>& allowed, const std::string& what,
                                            const Scope& scope, const ParamDecl*& param) {
  param = nullptr;
  if (std::find(allowed.begin(), allowed.end(), written) != allowed.end()) return {written};
  const Decl* d = lookup(written, scope);
  if (d && d->kind == DeclKind::Param && static_cast<const ParamDecl*>(d)->is_word()) {
    const auto* p = static_cast<const ParamDecl*>(d);
    if (type_of(*p).is_error()) return {};
    for (const auto& w : p->words)
      if (std::find(allowed.begin(), allowed.end(), w) == allowed.end()) {
        diags_.error(DiagKind::InvalidKeyword, where,
                     fmt::format("word parameter `{}` can be `{}`, which is not {} ({})", p->name, w, with_article(what),
                                 word_list(allowed)));
        diags_.note(p->name_range, "declared here");
        return {};
      }
    param = p;
    return p->words;
  }
  if (d && (d->kind == DeclKind::Param || d->kind == DeclKind::Let)) {
    diags_.error(DiagKind::WordParamMisuse, where,
                 fmt::format("`{}` is a number, but {} is a word: {}, or a word parameter such as `param x = {} in "
                             "{{{}}}`",
                             written, with_article(what), word_list(allowed), allowed[0], fmt::join(allowed, ", ")));
    return {};
  }
  diags_.error(DiagKind::InvalidKeyword, where,
               fmt::format("unknown {} `{}` ({}, or a word parameter){}", what, written, word_list(allowed),
                           did_you_mean(written, allowed)));
  return {};
}

}  // namespace gpm::frontend
