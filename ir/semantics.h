// semantics.h: the meaning of each IR opcode on numbers, shared by the interpreter and the lowering.
#pragma once
#include <cmath>

#include "ir/ir.h"

namespace gpm::ir {

// Applies a value-producing opcode (not Const or Param). Truth values are 1 and 0.
inline double apply(Opcode op, double a, double b, double c) {
  switch (op) {
    case Opcode::Add: return a + b;
    case Opcode::Sub: return a - b;
    case Opcode::Mul: return a * b;
    case Opcode::Div: return a / b;
    case Opcode::Pow: return b == 2 ? a * a : std::pow(a, b);  // a square correctly rounded, and 30x faster
    case Opcode::Min: return std::fmin(a, b);
    case Opcode::Max: return std::fmax(a, b);
    case Opcode::Neg: return -a;
    case Opcode::Ceil: return std::ceil(a);
    case Opcode::Floor: return std::floor(a);
    case Opcode::Sqrt: return std::sqrt(a);
    case Opcode::Abs: return std::fabs(a);
    case Opcode::Log2: return std::log2(a);
    case Opcode::Lt: return a < b;
    case Opcode::Le: return a <= b;
    case Opcode::Gt: return a > b;
    case Opcode::Ge: return a >= b;
    case Opcode::Eq: return a == b;
    case Opcode::Ne: return a != b;
    case Opcode::And: return (a != 0) && (b != 0);
    case Opcode::Or: return (a != 0) || (b != 0);
    case Opcode::Not: return a == 0;
    case Opcode::Select: return a != 0 ? b : c;
    default: return NAN;
  }
}

// Whether applying `op` to these operands is a user error (a division by zero, a square root of a
// negative number...). Such results are "poisoned" and reported with the instruction's location.
enum class Fault { None, DivisionByZero, Domain };
inline Fault fault_of(Opcode op, double a, double b, double result) {
  if (op == Opcode::Div && b == 0) return Fault::DivisionByZero;
  if (op == Opcode::Sqrt && a < 0) return Fault::Domain;
  if (op == Opcode::Log2 && a <= 0) return Fault::Domain;
  if (op == Opcode::Pow && (!std::isfinite(result))) return a == 0 ? Fault::DivisionByZero : Fault::Domain;
  if (!std::isnan(a) && !std::isnan(b) && !std::isfinite(result) && op != Opcode::Select) return Fault::Domain;
  return Fault::None;
}

}  // namespace gpm::ir
