// sema_expr.cpp: types expressions and checks dimensions (units) at compile time.
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frontend/sema.h"
#include "support/suggest.h"

namespace gpm::frontend {

bool Sema::is_builtin(std::string_view name) {
  return name == "min" || name == "max" || name == "mod" || name == "ceil" || name == "floor" || name == "sqrt" || name == "abs" ||
         name == "log2";
}

static std::string describe(const Type& t) { return t.is_bool() ? "a truth value" : "`" + dim_name(t.dim) + "`"; }

Type Sema::check_expr(Expr& e, const Scope& scope) {
  Type t = Type::error();
  switch (e.kind) {
    case ExprKind::Number: t = Type::quantity(e.literal_dim); break;
    case ExprKind::Bool: t = Type::boolean(); break;
    case ExprKind::Name: t = check_name(e, scope); break;
    case ExprKind::Call: t = check_call(e, scope); break;
    case ExprKind::Chain: t = check_chain(e, scope); break;
    case ExprKind::Binary: t = check_binary(e, scope); break;
    case ExprKind::Unary: {
      Type x = check_expr(*e.operands[0], scope);
      if (x.is_error()) break;
      if (e.op == Op::Not) {
        if (!x.is_bool())
          diags_.error(DiagKind::TypeMismatch, e.range, fmt::format("`not` needs a truth value, not {}", describe(x)));
        else
          t = x;
      } else if (x.is_bool()) {
        diags_.error(DiagKind::TypeMismatch, e.range, "a sign cannot be applied to a truth value");
      } else {
        t = x;
      }
      break;
    }
    case ExprKind::If: {
      Type c = check_expr(*e.operands[0], scope);
      Type a = check_expr(*e.operands[1], scope);
      Type b = check_expr(*e.operands[2], scope);
      if (!c.is_error() && !c.is_bool())
        diags_.error(DiagKind::TypeMismatch, e.operands[0]->range,
                     fmt::format("the condition of `if` must be a comparison, not {}", describe(c)));
      else if (!a.is_error() && !b.is_error()) {
        if (a.tag != b.tag || a.dim != b.dim)
          diags_.error(DiagKind::UnitMismatch, e.range,
                       fmt::format("the branches of `if` differ: {} and {}", describe(a), describe(b)));
        else if (!c.is_error())
          t = a;
      }
      break;
    }
  }
  e.type = t;
  return t;
}

Type Sema::check_name(Expr& e, const Scope& scope) {
  if (scope.fn) {
    for (size_t i = 0; i < scope.fn->params.size(); ++i) {
      if (scope.fn->params[i].name != e.name) continue;
      e.fn_param_index = int(i);
      e.target = scope.fn;
      const auto& dim = scope.fn->params[i].type.dim;
      return dim ? Type::quantity(*dim) : Type::error();
    }
  }
  const Decl* d = lookup(e.name, scope);
  if (!d) {
    std::string hint;
    if (is_unit_word(e.name)) {
      hint = fmt::format("; a unit goes right after a number, e.g. `1 {}`", e.name);
    } else {
      std::vector<std::string> visible;
      for (const LoopScope* loop = scope.loops; loop; loop = loop->outer) visible.push_back(loop->var->name);
      if (scope.fn)
        for (const auto& p : scope.fn->params) visible.push_back(p.name);
      if (scope.owner)
        if (auto it = program_.scoped.find(scope.owner); it != program_.scoped.end())
          for (const auto& [name, decl] : it->second) visible.push_back(name);
      for (const auto& [name, decl] : program_.globals)
        if (decl->kind == DeclKind::Param || decl->kind == DeclKind::Let) visible.push_back(name);
      hint = did_you_mean(e.name, visible);
      if (hint.empty() && (e.name == "src" || e.name == "dst"))
        hint = "; `src` and `dst` are bound only in the `bytes` of an `mpi alltoallv`";
    }
    diags_.error(DiagKind::UnknownIdentifier, e.range, fmt::format("unknown name `{}`{}", e.name, hint));
    return Type::error();
  }
  if (d->kind == DeclKind::Param && static_cast<const ParamDecl*>(d)->is_word()) {
    const auto* p = static_cast<const ParamDecl*>(d);
    diags_.error(DiagKind::WordParamMisuse, e.range,
                 fmt::format("`{}` is a word parameter (one of {{{}}}), not a number; it stands where the language "
                             "takes a word: a copy's direction or host memory, an offload's strategy",
                             e.name, fmt::join(p->words, ", ")));
    return Type::error();
  }
  if (d->kind == DeclKind::Param || d->kind == DeclKind::Let) {
    e.target = d;
    if (current_) uses_[current_].push_back(d);
    return type_of(*d);
  }
  const char* what = d->kind == DeclKind::Fn      ? "a function; call it with `(...)`"
                     : d->kind == DeclKind::Table ? "a table; read a number of it with `(row, column)`"
                     : d->kind == DeclKind::Type ? "a component type"
                     : d->kind == DeclKind::Machine ? "a machine"
                                                    : "an app";
  diags_.error(DiagKind::TypeMismatch, e.range, fmt::format("`{}` is {}, not a value", e.name, what));
  return Type::error();
}

Type Sema::check_call(Expr& e, const Scope& scope) {
  std::vector<Type> args;
  bool bad = false;
  for (auto& arg : e.operands) {
    args.push_back(check_expr(*arg, scope));
    bad = bad || args.back().is_error();
  }
  auto it = program_.globals.find(e.name);
  if (it != program_.globals.end() && it->second->kind == DeclKind::Table)
    return bad ? Type::error() : check_table_call(e, static_cast<const TableDecl&>(*it->second), args);
  if (it == program_.globals.end() || it->second->kind != DeclKind::Fn) {
    if (is_builtin(e.name)) {
      for (size_t i = 0; i < e.arg_names.size(); ++i)
        if (!e.arg_names[i].empty()) {
          diags_.error(DiagKind::UnknownArgument, e.operands[i]->range,
                       fmt::format("built-in `{}` takes no named arguments", e.name));
          return Type::error();
        }
      return bad ? Type::error() : check_builtin(e, args);
    }
    std::vector<std::string> functions = {"min", "max", "mod", "ceil", "floor", "sqrt", "abs", "log2"};
    for (const auto* fn : program_.fns) functions.push_back(fn->name);
    for (const auto& [name, decl] : program_.globals)
      if (decl->kind == DeclKind::Table) functions.push_back(name);
    diags_.error(DiagKind::UnknownFunction, e.name_range,
                 it == program_.globals.end()
                     ? fmt::format("unknown function `{}`{}", e.name, did_you_mean(e.name, functions))
                     : fmt::format("`{}` is not a function", e.name));
    return Type::error();
  }
  const auto& fn = static_cast<const FnDecl&>(*it->second);
  e.target = &fn;
  if (current_) uses_[current_].push_back(&fn);
  // Match positional then named arguments to parameters.
  std::vector<int> slot_of_arg(e.operands.size(), -1);
  std::vector<bool> filled(fn.params.size(), false);
  for (size_t i = 0; i < e.operands.size(); ++i) {
    int slot = -1;
    if (e.arg_names[i].empty()) {
      slot = int(i);
      if (slot >= int(fn.params.size())) {
        diags_.error(DiagKind::WrongArgumentCount, e.range,
                     fmt::format("`{}` takes {} argument{}, {} given", fn.name, fn.params.size(),
                                 fn.params.size() == 1 ? "" : "s", e.operands.size()));
        return Type::error();
      }
    } else {
      for (size_t k = 0; k < fn.params.size(); ++k)
        if (fn.params[k].name == e.arg_names[i]) slot = int(k);
      if (slot < 0) {
        diags_.error(DiagKind::UnknownArgument, e.operands[i]->range,
                     fmt::format("`{}` has no parameter `{}`", fn.name, e.arg_names[i]));
        return Type::error();
      }
    }
    if (filled[slot]) {
      diags_.error(DiagKind::DuplicateDefinition, e.operands[i]->range,
                   fmt::format("parameter `{}` of `{}` given twice", fn.params[slot].name, fn.name));
      return Type::error();
    }
    filled[slot] = true;
    slot_of_arg[i] = slot;
  }
  for (size_t k = 0; k < fn.params.size(); ++k)
    if (!filled[k]) {
      diags_.error(DiagKind::WrongArgumentCount, e.range,
                   fmt::format("missing argument `{}` of `{}`", fn.params[k].name, fn.name));
      return Type::error();
    }
  // Reorder arguments into parameter order so that later stages see positional calls only.
  std::vector<ExprPtr> ordered(fn.params.size());
  for (size_t i = 0; i < e.operands.size(); ++i) ordered[slot_of_arg[i]] = std::move(e.operands[i]);
  std::vector<Type> ordered_types(fn.params.size());
  for (size_t i = 0; i < args.size(); ++i) ordered_types[slot_of_arg[i]] = args[i];
  e.operands = std::move(ordered);
  e.arg_names.assign(fn.params.size(), std::string());
  if (bad) return Type::error();
  for (size_t k = 0; k < fn.params.size(); ++k) {
    const auto& want = fn.params[k].type.dim;
    if (!want) return Type::error();
    if (ordered_types[k].is_bool() || ordered_types[k].dim != *want) {
      diags_.error(DiagKind::UnitMismatch, e.operands[k]->range,
                   fmt::format("argument `{}` of `{}` must be `{}`, not {}", fn.params[k].name, fn.name,
                               dim_name(*want), describe(ordered_types[k])));
      return Type::error();
    }
  }
  return fn.result.dim ? Type::quantity(*fn.result.dim) : Type::error();
}

Type Sema::check_builtin(Expr& e, const std::vector<Type>& args) {
  const std::string& f = e.name;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].is_bool()) {
      diags_.error(DiagKind::TypeMismatch, e.operands[i]->range, fmt::format("`{}` needs a quantity", f));
      return Type::error();
    }
  if (f == "min" || f == "max") {
    if (args.size() < 2) {
      diags_.error(DiagKind::WrongArgumentCount, e.range, fmt::format("`{}` takes two or more arguments", f));
      return Type::error();
    }
    for (size_t i = 1; i < args.size(); ++i)
      if (args[i].dim != args[0].dim) {
        diags_.error(DiagKind::UnitMismatch, e.operands[i]->range,
                     fmt::format("`{}` of `{}` and `{}`", f, dim_name(args[0].dim), dim_name(args[i].dim)));
        return Type::error();
      }
    return args[0];
  }
  if (f == "mod") {  // mod(a, b) = a - b * floor(a / b): the remainder, with the sign of b
    if (args.size() != 2) {
      diags_.error(DiagKind::WrongArgumentCount, e.range, "`mod` takes two arguments: `mod(a, b)`");
      return Type::error();
    }
    if (args[1].dim != args[0].dim) {
      diags_.error(DiagKind::UnitMismatch, e.operands[1]->range,
                   fmt::format("`mod` of `{}` and `{}`", dim_name(args[0].dim), dim_name(args[1].dim)));
      return Type::error();
    }
    return args[0];
  }
  if (args.size() != 1) {
    diags_.error(DiagKind::WrongArgumentCount, e.range, fmt::format("`{}` takes one argument", f));
    return Type::error();
  }
  Dim d = args[0].dim;
  if (f == "abs") return args[0];
  if (f == "sqrt") {
    if (!d.all_even()) {
      diags_.error(DiagKind::UnitMismatch, e.operands[0]->range,
                   fmt::format("`sqrt` of `{}` has no dimension; its exponents must be even", dim_name(d)));
      return Type::error();
    }
    return Type::quantity(d.half());
  }
  if (!d.is_count()) {  // ceil, floor, log2
    diags_.error(DiagKind::UnitMismatch, e.operands[0]->range,
                 fmt::format("`{}` needs a plain count, not `{}`; divide by a unit first, e.g. `{}(x / 1 B)`", f,
                             dim_name(d), f));
    return Type::error();
  }
  return args[0];
}

Type Sema::check_chain(Expr& e, const Scope& scope) {
  Type acc = check_expr(*e.operands[0], scope);
  bool bad = acc.is_error();
  for (size_t i = 0; i < e.chain_ops.size(); ++i) {
    Op op = e.chain_ops[i];
    Expr& rhs_expr = *e.operands[i + 1];
    Type rhs = check_expr(rhs_expr, scope);
    if (bad || rhs.is_error()) {
      bad = true;
      continue;
    }
    SourceRange where = SourceRange::join(e.operands[0]->range, rhs_expr.range);
    if (op == Op::And || op == Op::Or) {
      if (!acc.is_bool() || !rhs.is_bool()) {
        diags_.error(DiagKind::TypeMismatch, where, fmt::format("`{}` needs truth values", op_spelling(op)));
        bad = true;
      }
      continue;
    }
    if (acc.is_bool() || rhs.is_bool()) {
      diags_.error(DiagKind::TypeMismatch, where, fmt::format("`{}` cannot take a truth value", op_spelling(op)));
      bad = true;
      continue;
    }
    if (op == Op::Add || op == Op::Sub) {
      if (acc.dim != rhs.dim) {
        diags_.error(DiagKind::UnitMismatch, rhs_expr.range,
                     fmt::format("cannot {} `{}` and `{}`", op == Op::Add ? "add" : "subtract", dim_name(acc.dim),
                                 dim_name(rhs.dim)));
        bad = true;
      }
    } else if (op == Op::Mul ? !acc.dim.can_mul(rhs.dim) : !acc.dim.can_div(rhs.dim)) {
      diags_.error(DiagKind::InvalidExponent, where,
                   fmt::format("the dimension of this product exceeds exponent {}", Dim::kMaxExponent));
      bad = true;
    } else {
      acc = Type::quantity(op == Op::Mul ? acc.dim * rhs.dim : acc.dim / rhs.dim);
    }
  }
  return bad ? Type::error() : acc;
}

// The value of a constant integer exponent (`2`, `-1`, `(3)`), if the expression is one.
std::optional<int> constant_integer(const Expr& e) {
  if (e.kind == ExprKind::Number && e.literal_dim.is_count() && e.value == std::floor(e.value) &&
      std::fabs(e.value) <= 16)
    return int(e.value);
  if (e.kind == ExprKind::Unary && e.op == Op::Neg)
    if (auto v = constant_integer(*e.operands[0])) return -*v;
  return std::nullopt;
}

Type Sema::check_binary(Expr& e, const Scope& scope) {
  Type a = check_expr(*e.operands[0], scope);
  Type b = check_expr(*e.operands[1], scope);
  if (a.is_error() || b.is_error()) return Type::error();
  if (a.is_bool() || b.is_bool()) {
    diags_.error(DiagKind::TypeMismatch, e.range, fmt::format("`{}` cannot take a truth value", op_spelling(e.op)));
    return Type::error();
  }
  if (e.op == Op::Pow) {
    if (!b.dim.is_count()) {
      diags_.error(DiagKind::InvalidExponent, e.operands[1]->range,
                   fmt::format("an exponent must be a plain count, not `{}`", dim_name(b.dim)));
      return Type::error();
    }
    if (a.dim.is_count()) return a;
    auto k = constant_integer(*e.operands[1]);
    if (!k) {
      diags_.error(DiagKind::InvalidExponent, e.operands[1]->range,
                   fmt::format("raising `{}` to a power needs a constant integer exponent", dim_name(a.dim)));
      return Type::error();
    }
    if (!a.dim.can_pow(*k)) {
      diags_.error(DiagKind::InvalidExponent, e.range,
                   fmt::format("`{}` to the power {} exceeds dimension exponent {}", dim_name(a.dim), *k,
                               Dim::kMaxExponent));
      return Type::error();
    }
    return Type::quantity(a.dim.pow(*k));
  }
  if (a.dim != b.dim) {  // comparisons
    diags_.error(DiagKind::UnitMismatch, e.range,
                 fmt::format("cannot compare `{}` with `{}`", dim_name(a.dim), dim_name(b.dim)));
    return Type::error();
  }
  return Type::boolean();
}

// `name(row, column)`, or `name(i)` on a table of one column or one row: counts (whole numbers, checked when the
// model is lowered, as the table's size is); the number there, a count.
Type Sema::check_table_call(Expr& e, const TableDecl& table, const std::vector<Type>& args) {
  e.target = &table;
  for (size_t i = 0; i < e.arg_names.size(); ++i)
    if (!e.arg_names[i].empty()) {
      diags_.error(DiagKind::UnknownArgument, e.operands[i]->range,
                   fmt::format("table `{}` takes no named arguments: `{}(row, column)`", table.name, table.name));
      return Type::error();
    }
  if (!table.loaded) {
    if (table.resolved.empty())  // never read (a program checked without the loader): say so
      diags_.error(DiagKind::FileNotFound, table.path_range,
                   fmt::format("table `{}`: its file `{}` was not read", table.name, table.path));
    return Type::error();
  }
  const bool vector = table.rows == 1 || table.cols == 1;
  if (args.size() != 2 && !(args.size() == 1 && vector)) {
    diags_.error(DiagKind::WrongArgumentCount, e.range,
                 fmt::format("table `{}` ({} row{} x {} column{}) takes {}, {} given", table.name, table.rows,
                             table.rows == 1 ? "" : "s", table.cols, table.cols == 1 ? "" : "s",
                             vector ? "one index, or a row and a column" : "a row and a column", args.size()));
    diags_.note(table.name_range, fmt::format("table `{}` is declared here", table.name));
    return Type::error();
  }
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].is_bool() || args[i].dim != Dim::count()) {
      diags_.error(DiagKind::UnitMismatch, e.operands[i]->range,
                   fmt::format("the {} of table `{}` is a count (from 0), not {}",
                               args.size() == 1 ? "index" : i == 0 ? "row" : "column", table.name,
                               describe(args[i])));
      return Type::error();
    }
  return Type::quantity(Dim::count());
}

}  // namespace gpm::frontend
