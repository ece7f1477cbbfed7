// sema_offload.cpp: checks `offload` statements: the strategy keyword, the attributes, and the kernel's work.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frontend/sema.h"
#include "support/suggest.h"

namespace gpm::frontend {

namespace {

// Operations are issued breadth first (every stream's h2d copy, then the kernels, then the d2h copies), and an
// operation can only wait for one issued before it: this is each kind's place in that order.
int issue_rank(const std::string& op) { return op == "h2d" ? 0 : op == "kernel" ? 1 : 2; }

}  // namespace

// `kernel after h2d(next), h2d(first)`: the words, and that every wait is on an operation issued earlier.
void Sema::check_offload_waits(const Stmt& s) {
  static const std::vector<std::string> kOps = {"h2d", "kernel", "d2h"};
  static const std::vector<std::string> kWhich = {"first", "previous", "next", "last", "all"};
  auto known = [&](const std::string& word, SourceRange where, const std::vector<std::string>& words, const char* what) {
    if (std::find(words.begin(), words.end(), word) != words.end()) return true;
    diags_.error(DiagKind::InvalidKeyword, where,
                 fmt::format("unknown {} `{}` ({}){}", what, word, fmt::join(words, ", "), did_you_mean(word, words)));
    return false;
  };
  for (const auto& wait : s.waits) {
    if (!known(wait.op, wait.op_range, kOps, "offload operation")) continue;
    for (const auto& t : wait.targets) {
      if (!known(t.op, t.op_range, kOps, "offload operation") || !known(t.which, t.which_range, kWhich, "stream"))
        continue;
      int waiter = issue_rank(wait.op), target = issue_rank(t.op);
      if (target > waiter)
        diags_.error(DiagKind::InvalidDependency, t.op_range,
                     fmt::format("{} cannot wait for {}: an offload issues every stream's h2d copy, then the "
                                 "kernels, then the d2h copies, and an operation waits only for those issued before it",
                                 wait.op, t.op));
      else if (target == waiter && t.which != "first" && t.which != "previous")
        diags_.error(DiagKind::InvalidDependency, t.which_range,
                     fmt::format("{} cannot wait for {}({}): operations of one kind are issued in stream order, so "
                                 "each can wait only for the first or the previous stream's",
                                 wait.op, t.op, t.which));
    }
  }
}

void Sema::check_offload(Stmt& s, const Scope& scope) {
  if (s.on) check_comp_ref(*s.on, scope);
  // `strategy` takes a word, not an expression; the other attributes are checked like a component's.
  std::vector<Attr> others;
  std::vector<size_t> where;
  const Attr* strategy = nullptr;
  for (size_t i = 0; i < s.attrs.size(); ++i) {
    if (s.attrs[i].name == "strategy") {
      if (strategy) {
        diags_.error(DiagKind::DuplicateDefinition, s.attrs[i].name_range, "attribute `strategy` is set twice");
        diags_.note(strategy->name_range, "first set here");
      } else {
        strategy = &s.attrs[i];
      }
      continue;
    }
    others.push_back(std::move(s.attrs[i]));
    where.push_back(i);
  }
  check_attrs(others, "offload", scope);
  for (size_t k = 0; k < where.size(); ++k) s.attrs[where[k]] = std::move(others[k]);

  static const std::vector<std::string> kStrategies = {"explicit", "implicit", "streams", "hybrid"};
  if (!strategy) {
    diags_.error(DiagKind::MissingAttribute, s.name_range,
                 fmt::format("offload `{}` needs a `strategy`: explicit, implicit, streams or hybrid", s.name));
  } else if (strategy->value->kind != ExprKind::Name || strategy->value->parenthesized) {
    diags_.error(DiagKind::InvalidKeyword, strategy->value->range,
                 "`strategy` is one of the words explicit, implicit, streams or hybrid");
  } else {
    // A strategy word, or a word parameter whose words are all strategies.
    auto words = resolve_word(strategy->value->name, strategy->value->range, kStrategies, "offload strategy", scope,
                              s.strategy_param);
    if (!words.empty()) s.strategy = words[0];
  }
  check_offload_waits(s);
  bool has_time = false, has_flops = false, has_bytes = false, has_in = false, has_out = false;
  for (const auto& a : s.attrs) {
    has_time = has_time || a.name == "time";
    has_flops = has_flops || a.name == "flops";
    has_bytes = has_bytes || a.name == "bytes";
    has_in = has_in || a.name == "bytes_in";
    has_out = has_out || a.name == "bytes_out";
  }
  if (has_time && (has_flops || has_bytes))
    diags_.error(DiagKind::ConflictingAttributes, s.name_range,
                 fmt::format("offload `{}` has both a `time` and roofline work (`flops`, `bytes`); keep one", s.name));
  else if (!has_time && !(has_flops && has_bytes))
    diags_.error(DiagKind::MissingAttribute, s.name_range,
                 fmt::format("offload `{}` needs its kernel's `flops` and `bytes` (roofline) or a `time`", s.name));
  if (!has_in || !has_out)
    diags_.error(DiagKind::MissingAttribute, s.name_range,
                 fmt::format("offload `{}` needs `bytes_in` and `bytes_out` (the data copied each way)", s.name));
}

}  // namespace gpm::frontend
