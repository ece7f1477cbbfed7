// lower.cpp: lowers expressions, parameters, constants and (inlined) function calls to SSA IR.
#include "lower/lower.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "ir/semantics.h"

namespace gpm::lower {

using namespace frontend;

Lowerer::Lowerer(const CheckedProgram& program, const SourceManager& sources, DiagnosticEngine& diags, Module& out,
                 const ParamBindings& bindings)
    : program_(program), sources_(sources), diags_(diags), m_(out), b_(out), bindings_(bindings) {}

double Lowerer::eager_value(ValueId id) {
  for (size_t i = eager_.size(); i < m_.instrs.size(); ++i) {
    const Instr& in = m_.instrs[i];
    double v;
    if (in.op == Opcode::Const) v = in.imm;
    else if (in.op == Opcode::Param) {
      auto it = bindings_.find(slot_decls_[size_t(in.slot)]);
      v = it != bindings_.end() ? it->second : eager_[size_t(in.a)];
    } else {
      auto get = [&](ValueId x) { return x >= 0 ? eager_[size_t(x)] : 0.0; };
      v = apply(in.op, get(in.a), get(in.b), get(in.c));
    }
    eager_.push_back(v);
  }
  // Every parameter this value depends on has shaped the module (sweeps cannot vary it without lowering again).
  shape_seen_.resize(m_.instrs.size());
  std::vector<ValueId> stack = {id};
  while (!stack.empty()) {
    ValueId x = stack.back();
    stack.pop_back();
    if (x < 0 || shape_seen_[size_t(x)]) continue;
    shape_seen_[size_t(x)] = true;
    const Instr& in = m_.instrs[size_t(x)];
    if (in.op == Opcode::Param) m_.shape_slots.insert(in.slot);
    stack.insert(stack.end(), {in.a, in.b, in.c});
  }
  return eager_.at(size_t(id));
}

std::string Lowerer::source_text(SourceRange range, std::vector<std::pair<SourceRange, std::string>> replace) const {
  if (!range.valid()) return {};
  std::string raw = sources_.text(range.file).substr(range.begin, range.end - range.begin);
  replace.insert(replace.end(), loop_text_.begin(), loop_text_.end());  // a loop variable shows its value
  // Replacements (a word parameter shown as its value) from the last to the first, so offsets stay valid.
  std::sort(replace.begin(), replace.end(), [](const auto& x, const auto& y) { return x.first.begin > y.first.begin; });
  for (const auto& [where, text] : replace)
    if (where.valid() && where.file == range.file && where.begin >= range.begin && where.end <= range.end)
      raw.replace(where.begin - range.begin, where.end - where.begin, text);
  std::string out;
  bool space = false;
  for (size_t i = 0; i < raw.size(); ++i) {  // drop comments and collapse whitespace: names are one line
    char c = raw[i];
    if (raw.compare(i, 2, "//") == 0) {
      i = std::min(raw.find('\n', i), raw.size());
      c = ' ';
    } else if (raw.compare(i, 2, "/*") == 0) {
      size_t close = raw.find("*/", i + 2);
      i = close == std::string::npos ? raw.size() : close + 1;
      c = ' ';
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

ValueId Lowerer::lower_decl_value(const Decl& decl) {
  auto it = decl_values_.find(&decl);
  if (it != decl_values_.end()) return it->second;
  ValueId v;
  if (decl.kind == DeclKind::Param) {
    const auto& p = static_cast<const ParamDecl&>(decl);
    ValueId def = lower_expr(*p.value);
    int32_t slot = int32_t(m_.params.size());
    const Decl* owner = program_.owner_of(&p);
    m_.params.push_back({p.name, owner ? owner->name : "", b_.at(def).dim, kNoValue, kNoValue, kNoValue, p.name_range, {}});
    slot_decls_.push_back(&p);
    v = b_.param(slot, def, p.name_range);
    m_.params[size_t(slot)].value = v;
    m_.params[size_t(slot)].words = p.words;
    if (p.range_lo) {
      ValueId lo = lower_expr(*p.range_lo), hi = lower_expr(*p.range_hi);
      m_.params[size_t(slot)].range_lo = lo;
      m_.params[size_t(slot)].range_hi = hi;
      m_.checks.push_back({CheckKind::InRange, v, lo, hi, p.name_range, fmt::format("parameter `{}`", p.name)});
    }
  } else {
    const auto& let = static_cast<const LetDecl&>(decl);
    if (!let.value)  // a loop variable is bound only inside its loop
      throw std::logic_error(fmt::format("loop variable `{}` used outside its loop", decl.name));
    v = lower_expr(*let.value);
    m_.lets.emplace_back(decl.name, v);
  }
  decl_values_[&decl] = v;
  return v;
}

void Lowerer::lower_params(const std::vector<const Decl*>& owners) {
  auto wanted = [&](const Decl* d) {
    const Decl* owner = program_.owner_of(d);
    return !owner || std::find(owners.begin(), owners.end(), owner) != owners.end();
  };
  for (const auto* p : program_.params)
    if (wanted(p)) lower_decl_value(*p);
  for (const auto* l : program_.lets)
    if (wanted(l)) lower_decl_value(*l);
}

ValueId Lowerer::value_of(const Decl* decl) const {
  auto it = decl_values_.find(decl);
  return it == decl_values_.end() ? ir::kNoValue : it->second;
}

int Lowerer::slot_of(const ParamDecl* decl) const {
  for (size_t i = 0; i < slot_decls_.size(); ++i)
    if (slot_decls_[i] == decl) return int(i);
  return -1;
}

ValueId Lowerer::lower_global(const Expr& expr) { return lower_expr(expr); }

std::string Lowerer::word_of(const ParamDecl* param, const std::string& written) {
  if (!param) return written;
  double index = eager_value(lower_decl_value(*param));
  if (!(index >= 0 && index < double(param->words.size()) && index == double(size_t(index))))
    throw std::logic_error(fmt::format("word parameter `{}` holds {}, not the index of one of its words", param->name, index));
  return param->words[size_t(index)];
}

ValueId Lowerer::lower_expr(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Number: return b_.constant(e.value, e.literal_dim, e.range);
    case ExprKind::Bool: {
      ValueId one = b_.constant(1, Dim::count(), e.range);
      ValueId zero = b_.constant(0, Dim::count(), e.range);
      return b_.binary(Opcode::Eq, one, e.value != 0 ? one : zero, e.range);
    }
    case ExprKind::Name:
      if (e.fn_param_index >= 0) return fn_stack_.back().args.at(size_t(e.fn_param_index));
      return lower_decl_value(*e.target);
    case ExprKind::Call: return lower_call(e);
    case ExprKind::Chain: return lower_chain(e);
    case ExprKind::Unary: {
      ValueId x = lower_expr(*e.operands[0]);
      if (e.op == Op::Plus) return x;
      return b_.unary(e.op == Op::Not ? Opcode::Not : Opcode::Neg, x, e.range);
    }
    case ExprKind::Binary: {
      ValueId x = lower_expr(*e.operands[0]);
      ValueId y;
      if (e.op == Op::Pow && !b_.at(x).dim.is_count())  // sema checked: a constant integer exponent
        y = b_.constant(*constant_integer(*e.operands[1]), Dim::count(), e.operands[1]->range);
      else
        y = lower_expr(*e.operands[1]);
      static const std::map<Op, Opcode> ops = {{Op::Pow, Opcode::Pow}, {Op::Lt, Opcode::Lt}, {Op::Le, Opcode::Le},
                                               {Op::Gt, Opcode::Gt},   {Op::Ge, Opcode::Ge}, {Op::Eq, Opcode::Eq},
                                               {Op::Ne, Opcode::Ne}};
      return b_.binary(ops.at(e.op), x, y, e.range);
    }
    case ExprKind::If: {
      ValueId c = lower_expr(*e.operands[0]);
      ValueId x = lower_expr(*e.operands[1]), y = lower_expr(*e.operands[2]);
      return b_.select(c, x, y, e.range);
    }
  }
  return kNoValue;
}

ValueId Lowerer::lower_chain(const Expr& e) {
  ValueId acc = lower_expr(*e.operands[0]);
  for (size_t i = 0; i < e.chain_ops.size(); ++i) {
    ValueId rhs = lower_expr(*e.operands[i + 1]);
    Opcode op = e.chain_ops[i] == Op::Add   ? Opcode::Add
                : e.chain_ops[i] == Op::Sub ? Opcode::Sub
                : e.chain_ops[i] == Op::Mul ? Opcode::Mul
                : e.chain_ops[i] == Op::Div ? Opcode::Div
                : e.chain_ops[i] == Op::And ? Opcode::And
                                            : Opcode::Or;
    acc = b_.binary(op, acc, rhs, SourceRange::join(e.operands[0]->range, e.operands[i + 1]->range));
  }
  return acc;
}

ValueId Lowerer::lower_call(const Expr& e) {
  std::vector<ValueId> args;
  for (const auto& arg : e.operands) args.push_back(lower_expr(*arg));
  if (!e.target) {  // builtin
    const std::string& f = e.name;
    if (f == "min" || f == "max") {
      ValueId acc = args[0];
      for (size_t i = 1; i < args.size(); ++i) acc = b_.binary(f == "min" ? Opcode::Min : Opcode::Max, acc, args[i], e.range);
      return acc;
    }
    if (f == "mod") {  // a - b * floor(a / b)
      ValueId q = b_.unary(Opcode::Floor, b_.binary(Opcode::Div, args[0], args[1], e.range), e.range);
      return b_.binary(Opcode::Sub, args[0], b_.binary(Opcode::Mul, args[1], q, e.range), e.range);
    }
    Opcode op = f == "ceil" ? Opcode::Ceil : f == "floor" ? Opcode::Floor : f == "sqrt" ? Opcode::Sqrt
                : f == "abs" ? Opcode::Abs : Opcode::Log2;
    return b_.unary(op, args[0], e.range);
  }
  if (e.target->kind == DeclKind::Table) return lower_table_call(e, args);
  if (fn_stack_.empty()) call_site_ = e.range;  // the outermost call, where a runaway inlining is reported
  return inline_call(static_cast<const FnDecl&>(*e.target), args);
}

// Functions are inlined: their parameters become the argument values. A call with the same arguments
// as an earlier one reuses its result, so repeated calls cost nothing; a work limit stops inputs whose
// inlining would still grow without bound.
ValueId Lowerer::inline_call(const FnDecl& fn, const std::vector<ValueId>& args) {
  auto key = std::make_pair(&fn, args);
  if (auto it = inlined_.find(key); it != inlined_.end()) return it->second;
  if (++inline_work_ > kMaxInlinedCalls)
    throw ModelTooLarge(fmt::format("inlining functions takes more than {} calls; the model is too large "
                                    "(functions calling each other many times over?)",
                                    kMaxInlinedCalls),
                        fn_stack_.empty() ? fn.name_range : call_site_);
  fn_stack_.push_back({&fn, args});
  ValueId result = lower_expr(*fn.body);
  fn_stack_.pop_back();
  inlined_.emplace(std::move(key), result);
  return result;
}

// Inlines a standard-library function that the lowering relies on (roofline, AHEAD copies). The
// standard library is a user-readable file, so a missing or changed function is reported, not assumed.
const std::vector<std::string>& stdlib_functions() {
  static const std::vector<std::string> names = {
      "ahead_d2d_copy_time",  "ahead_pageable_copy_time", "ahead_pinned_copy_time", "issued_kernel_time",
      "loggp_copy_time",      "overlap_eq6",              "overlap_full_bound",     "overlap_mapped_bound",
      "overlap_zero_bound",   "pageable_stream_copy_time", "qroof_l2_time",         "qroof_shared_time",
      "qroof_time",           "roofline_compute_time",    "roofline_memory_time",   "roofline_time",
      "staged_p2p_copy_time"};
  return names;
}

ValueId Lowerer::call_stdlib(const std::string& fn_name, const std::vector<ValueId>& args, SourceRange site) {
  // A name missing from stdlib_functions would be left out of a lazily loaded prelude.
  if (std::find(stdlib_functions().begin(), stdlib_functions().end(), fn_name) == stdlib_functions().end())
    throw std::logic_error("call_stdlib: `" + fn_name + "` is not listed in lower::stdlib_functions()");
  auto it = program_.globals.find(fn_name);
  const FnDecl* fn = it != program_.globals.end() && it->second->kind == DeclKind::Fn
                         ? static_cast<const FnDecl*>(it->second)
                         : nullptr;
  bool fits = fn && fn->params.size() == args.size() && fn->result.dim == Dim::seconds();
  for (size_t i = 0; fits && i < args.size(); ++i)
    fits = fn->params[i].type.dim && *fn->params[i].type.dim == b_.at(args[i]).dim;
  if (!fits) {
    std::string signature;
    for (ValueId a : args) signature += (signature.empty() ? "" : ", ") + dim_name(b_.at(a).dim);
    diags_.error(DiagKind::StdlibMismatch, fn ? fn->name_range : site,
                 fmt::format("the standard library must define `fn {}({}) -> time`; this model needs it", fn_name,
                             signature));
    return b_.constant(0, Dim::seconds(), site);
  }
  if (fn_stack_.empty()) call_site_ = site;
  return inline_call(*fn, args);
}

}  // namespace gpm::lower
