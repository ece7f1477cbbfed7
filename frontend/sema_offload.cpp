// sema_offload.cpp: checks `offload` statements: the strategy keyword, the attributes, and the kernel's work.
#include <algorithm>

#include <fmt/format.h>

#include "frontend/sema.h"
#include "frontend/suggest.h"

namespace gpm::frontend {

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
  } else if (std::find(kStrategies.begin(), kStrategies.end(), strategy->value->name) == kStrategies.end()) {
    diags_.error(DiagKind::InvalidKeyword, strategy->value->range,
                 fmt::format("unknown strategy `{}`{} (explicit, implicit, streams or hybrid)", strategy->value->name,
                             did_you_mean(strategy->value->name, kStrategies)));
  } else {
    s.strategy = strategy->value->name;
  }
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
