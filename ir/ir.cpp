// ir.cpp: IR factories (the only way instructions are made) with their type assertions.
#include "ir/ir.h"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace gpm::ir {

const char* opcode_name(Opcode op) {
  switch (op) {
    case Opcode::Const: return "const";
    case Opcode::Param: return "param";
    case Opcode::Add: return "add";
    case Opcode::Sub: return "sub";
    case Opcode::Mul: return "mul";
    case Opcode::Div: return "div";
    case Opcode::Pow: return "pow";
    case Opcode::Min: return "min";
    case Opcode::Max: return "max";
    case Opcode::Neg: return "neg";
    case Opcode::Ceil: return "ceil";
    case Opcode::Floor: return "floor";
    case Opcode::Sqrt: return "sqrt";
    case Opcode::Abs: return "abs";
    case Opcode::Log2: return "log2";
    case Opcode::Lt: return "lt";
    case Opcode::Le: return "le";
    case Opcode::Gt: return "gt";
    case Opcode::Ge: return "ge";
    case Opcode::Eq: return "eq";
    case Opcode::Ne: return "ne";
    case Opcode::And: return "and";
    case Opcode::Or: return "or";
    case Opcode::Not: return "not";
    case Opcode::Select: return "select";
  }
  return "?";
}

int operand_count(Opcode op) {
  switch (op) {
    case Opcode::Const: return 0;
    case Opcode::Param: return 1;
    case Opcode::Neg:
    case Opcode::Ceil:
    case Opcode::Floor:
    case Opcode::Sqrt:
    case Opcode::Abs:
    case Opcode::Log2:
    case Opcode::Not: return 1;
    case Opcode::Select: return 3;
    default: return 2;
  }
}

int Topology::find(const std::string& path) const {
  for (size_t i = 0; i < components.size(); ++i)
    if (components[i].path == path) return int(i);
  return -1;
}

int Module::find_param(const std::string& name) const {
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == name) return int(i);
  return -1;
}

// Type errors here are compiler bugs: sema has already rejected ill-typed programs.
static void require(bool ok, const char* what) {
  if (!ok) throw std::logic_error(fmt::format("ill-typed IR ({})", what));
}

ValueId Builder::push(Instr instr) {
  uint64_t bits;
  std::memcpy(&bits, &instr.imm, sizeof bits);
  int dim = instr.dim.time * 65536 + instr.dim.bytes * 256 + instr.dim.flops;
  auto key = std::make_tuple(int(instr.op), instr.a, instr.b, instr.c, instr.slot, bits, dim, instr.is_bool);
  if (instr.op != Opcode::Param)
    if (auto it = existing_.find(key); it != existing_.end()) return it->second;
  if (m_.instrs.size() >= kMaxInstructions)
    throw ModelTooLarge(fmt::format("the model lowers to more than {} IR instructions", kMaxInstructions), instr.range);
  m_.instrs.push_back(instr);
  ValueId id = ValueId(m_.instrs.size() - 1);
  if (instr.op != Opcode::Param) existing_.emplace(key, id);
  return id;
}

void Builder::truncate(size_t size) {
  if (size >= m_.instrs.size()) return;
  for (auto it = existing_.begin(); it != existing_.end();)
    it = size_t(it->second) >= size ? existing_.erase(it) : std::next(it);
  m_.instrs.resize(size);
}

ValueId Builder::constant(double value, Dim dim, SourceRange range) {
  Instr i;
  i.op = Opcode::Const;
  i.imm = value;
  i.dim = dim;
  i.range = range;
  return push(i);
}

ValueId Builder::param(int32_t slot, ValueId default_value, SourceRange range) {
  require(default_value >= 0 && default_value < ValueId(m_.instrs.size()), "param default");
  Instr i;
  i.op = Opcode::Param;
  i.slot = slot;
  i.a = default_value;
  i.dim = at(default_value).dim;
  i.range = range;
  return push(i);
}

ValueId Builder::binary(Opcode op, ValueId a, ValueId b, SourceRange range) {
  const Instr &x = at(a), &y = at(b);
  Instr i;
  i.op = op;
  i.a = a;
  i.b = b;
  i.range = range;
  switch (op) {
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Min:
    case Opcode::Max:
      require(!x.is_bool && !y.is_bool && x.dim == y.dim, "same dimensions");
      i.dim = x.dim;
      break;
    case Opcode::Mul: require(!x.is_bool && !y.is_bool, "mul"); i.dim = x.dim * y.dim; break;
    case Opcode::Div: require(!x.is_bool && !y.is_bool, "div"); i.dim = x.dim / y.dim; break;
    case Opcode::Pow: {
      require(y.dim.is_count() && !x.is_bool, "pow");
      if (!x.dim.is_count()) {
        require(y.op == Opcode::Const && y.imm == double(int(y.imm)), "constant exponent");
        i.dim = x.dim.pow(int(y.imm));
      }
      break;
    }
    case Opcode::And:
    case Opcode::Or: require(x.is_bool && y.is_bool, "logic"); i.is_bool = true; break;
    default:  // comparisons
      require(!x.is_bool && !y.is_bool && x.dim == y.dim, "compare");
      i.is_bool = true;
  }
  return push(i);
}

ValueId Builder::unary(Opcode op, ValueId a, SourceRange range) {
  const Instr& x = at(a);
  Instr i;
  i.op = op;
  i.a = a;
  i.range = range;
  if (op == Opcode::Not) {
    require(x.is_bool, "not");
    i.is_bool = true;
  } else if (op == Opcode::Sqrt) {
    require(x.dim.all_even(), "sqrt");
    i.dim = x.dim.half();
  } else {
    require(!x.is_bool, "unary");
    if (op == Opcode::Ceil || op == Opcode::Floor || op == Opcode::Log2) require(x.dim.is_count(), "count");
    i.dim = x.dim;
  }
  return push(i);
}

ValueId Builder::select(ValueId cond, ValueId a, ValueId b, SourceRange range) {
  require(at(cond).is_bool && at(a).dim == at(b).dim && at(a).is_bool == at(b).is_bool, "select");
  Instr i;
  i.op = Opcode::Select;
  i.a = cond;
  i.b = a;
  i.c = b;
  i.dim = at(a).dim;
  i.is_bool = at(a).is_bool;
  i.range = range;
  return push(i);
}

}  // namespace gpm::ir
