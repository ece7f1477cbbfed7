// lower_loops.cpp: expands `for` loops of apps and `flows` blocks: the body once per value of the loop's variable,
// each iteration a child of the enclosing block, with the variable shown as its value in operation names.
#include <fmt/format.h>

#include <cmath>

#include "lower/lower.h"

namespace gpm::lower {

using namespace frontend;

namespace {

// Where `var` is named inside an expression, a component reference, a statement or a flow.
struct UseCollector {
  const Decl* var;
  std::vector<SourceRange>& out;
  void expr(const Expr* e) {
    if (!e) return;
    if (e->kind == ExprKind::Name && e->target == var) out.push_back(e->range);
    for (const auto& operand : e->operands) expr(operand.get());
  }
  void ref(const std::optional<CompRef>& r) {
    if (r) ref(*r);
  }
  void ref(const CompRef& r) {
    for (const auto& part : r.parts) expr(part.index.get());
  }
  void flow(const FlowItem& f) {
    ref(f.src);
    ref(f.dst);
    ref(f.members);
    for (const Expr* e : {f.pattern_arg.get(), f.bytes.get(), f.start.get(), f.loop_lo.get(), f.loop_hi.get()}) expr(e);
    for (const auto& inner : f.body) flow(inner);
  }
  void stmt(const Stmt& s) {
    expr(s.expr.get());
    expr(s.expr_hi.get());
    for (const auto* r : {&s.on, &s.peer_from, &s.peer_to, &s.host_memory}) ref(*r);
    for (const auto& a : s.attrs) expr(a.value.get());
    for (const auto& f : s.flows) flow(f);
    for (const auto& child : s.body) stmt(*child);
  }
};

}  // namespace

bool Lowerer::for_each_iteration(const LetDecl& var, const Expr& lo, const Expr& hi, SourceRange loop,
                                 const std::vector<SourceRange>& uses, const std::function<bool(int64_t)>& body,
                                 bool count_work) {
  auto bound = [&](const Expr& e, const char* which) -> std::optional<int64_t> {
    double v = eager_value(lower_expr(e));
    if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 1e15) {
      diags_.error(DiagKind::NotAnInteger, e.range,
                   fmt::format("the {} value of loop `{}` must be a whole number, not {}", which, var.name, v));
      return std::nullopt;
    }
    return int64_t(v);
  };
  auto first = bound(lo, "first"), last = bound(hi, "last");
  if (!first || !last) return false;
  int64_t count = *last >= *first ? *last - *first + 1 : 0;
  if (count_work) {
    loop_work_ += count;
    if (loop_work_ > kMaxLoopIterations) {
      diags_.error(DiagKind::ModelTooLarge, loop,
                   count > kMaxLoopIterations
                       ? fmt::format("loop `{}` runs {} times; gpmc expands at most {} iterations of the loops of a model",
                                     var.name, count, kMaxLoopIterations)
                       : fmt::format("loop `{}` brings the iterations of this model's loops to {}; gpmc expands at most {}",
                                     var.name, loop_work_, kMaxLoopIterations));
      return false;
    }
  }
  size_t first_text = loop_text_.size();
  for (int64_t i = *first; i <= *last; ++i) {
    decl_values_[&var] = b_.constant(double(i), Dim::count(), var.name_range);
    loop_text_.resize(first_text);
    for (const SourceRange& use : uses) loop_text_.emplace_back(use, std::to_string(i));
    size_t errors = diags_.error_count();
    bool go_on = body(i);
    if (diags_.error_count() > errors) {  // say which iteration failed, and stop: the next ones would repeat it
      diags_.note(var.name_range, fmt::format("in the iteration where `{}` = {}", var.name, i));
      go_on = false;
    }
    if (!go_on) {
      decl_values_.erase(&var);
      loop_text_.resize(first_text);
      return false;
    }
  }
  decl_values_.erase(&var);
  loop_text_.resize(first_text);
  return true;
}

std::vector<SourceRange> Lowerer::loop_uses(const Stmt& loop) const {
  std::vector<SourceRange> uses;
  UseCollector collect{loop.loop_var.get(), uses};
  for (const auto& child : loop.body) collect.stmt(*child);
  return uses;
}

std::vector<SourceRange> Lowerer::loop_uses(const FlowItem& loop) const {
  std::vector<SourceRange> uses;
  UseCollector collect{loop.loop_var.get(), uses};
  for (const auto& inner : loop.body) collect.flow(inner);
  return uses;
}

// A statement's tasks, added to `out`: one task, or, for a loop, its iterations (an iteration of a one-statement
// body is that statement's task; of a longer body, a seq of them).
void Lowerer::lower_into(const AppDecl& app, const Stmt& s, std::vector<Task>& out) {
  if (s.kind != StmtKind::For) {
    out.push_back(lower_stmt(app, s));
    return;
  }
  for_each_iteration(*s.loop_var, *s.expr, *s.expr_hi, s.range, loop_uses(s), [&](int64_t i) {
    if (s.body.size() == 1) {
      lower_into(app, *s.body[0], out);
      return true;
    }
    Task seq = Task::make(TaskKind::Seq, fmt::format("for {} = {}", s.loop_var->name, i), s.range);
    for (const auto& child : s.body) lower_into(app, *child, seq.children);
    out.push_back(std::move(seq));
    return true;
  });
}

// Visits the flows and patterns of a `flows` block in the order written, loops expanded; false once a loop fails.
bool Lowerer::walk_flows(const std::vector<FlowItem>& items, const std::function<void(const FlowItem&)>& visit,
                         bool count_work) {
  for (const FlowItem& f : items) {
    if (!f.loop_var) {
      visit(f);
      continue;
    }
    bool ok = for_each_iteration(*f.loop_var, *f.loop_lo, *f.loop_hi, f.range, loop_uses(f),
                                 [&](int64_t) { return walk_flows(f.body, visit, count_work); }, count_work);
    if (!ok) return false;
  }
  return true;
}

}  // namespace gpm::lower
