// codegen.cpp: lowers the SSA list, the checks and the task fold of an IR module to straight-line LLVM IR.
//
// One LLVM value per instruction, plus one i1 "poisoned" flag that follows the interpreter's fault tracking
// (ir/semantics.h: operands' poison is inherited, a select inherits only from its condition and the branch it
// takes, fault_of adds new poison). The function is valid when no needed value is poisoned and every check
// passes; then it returns the folded total, otherwise NaN. Engine tasks call gpmc_rt_engine_time, or are evaluated
// at compile time when none of their inputs varies.
#include "backend/jit/codegen.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "ir/semantics.h"

namespace gpm::backend::jit {

using namespace ir;

namespace {

struct Codegen {
  llvm::LLVMContext& ctx;
  llvm::Module& mod;
  const Module& m;
  const SlotValues& bound;
  const Options& options;
  bool names;
  llvm::IRBuilder<> b{ctx};
  llvm::Type* f64 = llvm::Type::getDoubleTy(ctx);
  std::vector<int> input_of_slot{};
  std::vector<llvm::Value*> v{};  // the value of each instruction
  std::vector<llvm::Value*> p{};  // its poison flag (i1)
  llvm::Value* ok = nullptr;    // every needed value clean and every check passed
  // Large modules read their constants from one table: LLVM's code generator looks each floating-point
  // constant up in its constant pool by a linear search, quadratic with tens of thousands of them.
  llvm::GlobalVariable* constants = nullptr;
  std::vector<uint64_t> constant_index{};
  // Large modules are also cut into basic blocks of a few hundred instructions: instruction selection and
  // scheduling work per block and grow faster than linearly with its size.
  bool large = false;
  size_t emitted = 0;
  void maybe_split() {
    if (!large || ++emitted % 256 != 0) return;
    auto* next = llvm::BasicBlock::Create(ctx, "", b.GetInsertBlock()->getParent());
    b.CreateBr(next);
    b.SetInsertPoint(next);
  }
  // Values fixed at compile time (no input slot reaches them), computed with the interpreter's semantics: an
  // engine call whose inputs are all fixed and clean is evaluated once, here, and becomes a constant.
  std::vector<char> fixed{}, fixed_poison{};
  std::vector<double> fixed_value{};
  void analyse_fixed() {
    size_t n = m.instrs.size();
    fixed.assign(n, 0);
    fixed_poison.assign(n, 0);
    fixed_value.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      const Instr& in = m.instrs[i];
      if (in.op == Opcode::Const) {
        fixed[i] = 1, fixed_value[i] = in.imm;
        continue;
      }
      if (in.op == Opcode::Param) {
        size_t slot = size_t(in.slot);
        if (slot < input_of_slot.size() && input_of_slot[slot] >= 0) continue;
        if (slot < bound.size() && bound[slot]) {
          fixed[i] = 1, fixed_value[i] = *bound[slot];
        } else {
          size_t a = size_t(in.a);
          fixed[i] = fixed[a], fixed_value[i] = fixed_value[a], fixed_poison[i] = fixed_poison[a];
        }
        continue;
      }
      bool all = true;
      for (ValueId x : {in.a, in.b, in.c})
        if (x >= 0 && !fixed[size_t(x)]) all = false;
      if (!all) continue;
      double a = in.a >= 0 ? fixed_value[size_t(in.a)] : 0.0;
      double bv = in.b >= 0 ? fixed_value[size_t(in.b)] : 0.0;
      double c = in.c >= 0 ? fixed_value[size_t(in.c)] : 0.0;
      double r = apply(in.op, a, bv, c);
      auto flag = [&](ValueId x) { return x >= 0 && fixed_poison[size_t(x)]; };
      bool inherited = in.op == Opcode::Select ? flag(in.a) || flag(a != 0 ? in.b : in.c)
                                               : flag(in.a) || flag(in.b) || flag(in.c);
      fixed[i] = 1, fixed_value[i] = r;
      fixed_poison[i] = inherited || fault_of(in.op, a, bv, r) != Fault::None;
    }
  }

  std::vector<bool> always{};   // needed whatever the selects choose (reached without a select's branch)
  std::vector<bool> needed{};   // needed for some choice of the selects

  // Which instructions the checks and the fold need: `always` follows every operand but a select's branches,
  // `needed` follows them all. Operands precede their users, so one backward pass suffices.
  void analyse_needs() {
    size_t n = m.instrs.size();
    always.assign(n, false);
    needed.assign(n, false);
    auto root = [&](ValueId x) {
      if (x >= 0) always[size_t(x)] = needed[size_t(x)] = true;
    };
    for (const auto& param : m.params) root(param.value);
    for (const auto& let : m.lets) root(let.second);
    for (const Check& check : m.checks) root(check.value), root(check.lo), root(check.hi);
    std::vector<const Task*> stack = {&m.root};
    while (!stack.empty()) {
      const Task* t = stack.back();
      stack.pop_back();
      if (t->kind == TaskKind::Op || t->kind == TaskKind::Iterate) root(t->value);
      if (t->kind == TaskKind::Engine)
        for (ValueId x : m.engine_calls.at(size_t(t->engine_call)).inputs) root(x);
      for (const auto& child : t->children) stack.push_back(&child);
    }
    for (size_t i = n; i-- > 0;) {
      const Instr& in = m.instrs[i];
      if (in.op == Opcode::Const) continue;
      if (in.op == Opcode::Param) {
        size_t slot = size_t(in.slot);
        bool from_default = !(slot < input_of_slot.size() && input_of_slot[slot] >= 0) && !(slot < bound.size() && bound[slot]);
        if (!from_default) continue;
      }
      for (ValueId x : {in.a, in.b, in.c}) {
        if (x < 0) continue;
        bool branch = in.op == Opcode::Select && x != in.a;
        if (always[i] && !branch) always[size_t(x)] = true;
        if (needed[i]) needed[size_t(x)] = true;
      }
    }
  }

  llvm::Constant* num(double x) { return llvm::ConstantFP::get(f64, x); }
  llvm::Value* f() { return b.getFalse(); }

  // i1 logic that keeps the constant cases constant (most flags are false).
  llvm::Value* or_(llvm::Value* x, llvm::Value* y) {
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(x)) return c->isZero() ? y : x;
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(y)) return c->isZero() ? x : y;
    return b.CreateOr(x, y);
  }
  llvm::Value* and_(llvm::Value* x, llvm::Value* y) {
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(x)) return c->isZero() ? x : y;
    if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(y)) return c->isZero() ? y : x;
    return b.CreateAnd(x, y);
  }
  void require(llvm::Value* condition) { ok = and_(ok, condition); }
  void need(ValueId id) { require(b.CreateNot(p[size_t(id)])); }

  llvm::Function* declare(const char* name, int arity) {
    std::vector<llvm::Type*> args(size_t(arity), f64);
    auto* type = llvm::FunctionType::get(f64, args, false);
    auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, mod);
    fn->setDoesNotThrow();
    fn->setDoesNotAccessMemory();
    fn->addFnAttr(llvm::Attribute::WillReturn);
    return fn;
  }
  llvm::Value* intrinsic(llvm::Intrinsic::ID id, std::vector<llvm::Value*> args) {
    auto* fn = llvm::Intrinsic::getDeclaration(&mod, id, {f64});
    return b.CreateCall(fn, args);
  }
  llvm::Value* not_finite(llvm::Value* x) {
    return b.CreateFCmpUGE(intrinsic(llvm::Intrinsic::fabs, {x}), num(std::numeric_limits<double>::infinity()));
  }
  llvm::Value* truth(llvm::Value* i1) { return b.CreateSelect(i1, num(1), num(0)); }
  llvm::Value* nonzero(llvm::Value* x) { return b.CreateFCmpUNE(x, num(0)); }  // C++ `x != 0`, NaN included

  void instruction(size_t i, llvm::Value* inputs) {
    const Instr& in = m.instrs[i];
    if (in.op == Opcode::Const) {
      v[i] = num(in.imm);
      if (constants) {  // a large module: from the constant table, not one constant-pool entry each
        llvm::Value* at = b.CreateConstInBoundsGEP2_64(constants->getValueType(), constants, 0, constant_index[i]);
        v[i] = b.CreateLoad(f64, at);
      }
      p[i] = f();
      return;
    }
    if (in.op == Opcode::Param) {
      size_t slot = size_t(in.slot);
      if (slot < input_of_slot.size() && input_of_slot[slot] >= 0) {
        auto* at = b.CreateConstInBoundsGEP1_64(f64, inputs, uint64_t(input_of_slot[slot]));
        v[i] = b.CreateLoad(f64, at);
        p[i] = f();
      } else if (slot < bound.size() && bound[slot]) {
        v[i] = num(*bound[slot]);
        p[i] = f();
      } else {
        v[i] = v[size_t(in.a)];
        p[i] = p[size_t(in.a)];
      }
      return;
    }
    llvm::Value* a = in.a >= 0 ? v[size_t(in.a)] : num(0);
    llvm::Value* bv = in.b >= 0 ? v[size_t(in.b)] : num(0);
    llvm::Value* c = in.c >= 0 ? v[size_t(in.c)] : num(0);
    llvm::Value* r = nullptr;
    bool may_fault = true;  // comparisons and logic give 0 or 1: never a fault
    switch (in.op) {
      case Opcode::Add: r = b.CreateFAdd(a, bv); break;
      case Opcode::Sub: r = b.CreateFSub(a, bv); break;
      case Opcode::Mul: r = b.CreateFMul(a, bv); break;
      case Opcode::Div: r = b.CreateFDiv(a, bv); break;
      case Opcode::Pow: {  // ir::apply squares by a multiplication: the same here when the exponent is a constant 2
        auto* k = llvm::dyn_cast<llvm::ConstantFP>(bv);
        r = k && k->isExactlyValue(2.0) ? b.CreateFMul(a, a) : b.CreateCall(mod.getFunction("gpmc_rt_pow"), {a, bv});
        break;
      }
      case Opcode::Min: r = intrinsic(llvm::Intrinsic::minnum, {a, bv}); break;  // fmin
      case Opcode::Max: r = intrinsic(llvm::Intrinsic::maxnum, {a, bv}); break;  // fmax
      case Opcode::Neg: r = b.CreateFNeg(a); break;
      case Opcode::Ceil: r = intrinsic(llvm::Intrinsic::ceil, {a}); break;
      case Opcode::Floor: r = intrinsic(llvm::Intrinsic::floor, {a}); break;
      case Opcode::Sqrt: r = intrinsic(llvm::Intrinsic::sqrt, {a}); break;
      case Opcode::Abs: r = intrinsic(llvm::Intrinsic::fabs, {a}); break;
      case Opcode::Log2: r = b.CreateCall(mod.getFunction("gpmc_rt_log2"), {a}); break;
      case Opcode::Lt: r = truth(b.CreateFCmpOLT(a, bv)), may_fault = false; break;
      case Opcode::Le: r = truth(b.CreateFCmpOLE(a, bv)), may_fault = false; break;
      case Opcode::Gt: r = truth(b.CreateFCmpOGT(a, bv)), may_fault = false; break;
      case Opcode::Ge: r = truth(b.CreateFCmpOGE(a, bv)), may_fault = false; break;
      case Opcode::Eq: r = truth(b.CreateFCmpOEQ(a, bv)), may_fault = false; break;
      case Opcode::Ne: r = truth(b.CreateFCmpUNE(a, bv)), may_fault = false; break;
      // (Instructions are created one statement at a time: the order in which a compiler evaluates the arguments of
      // one call is unspecified, and the IR dump must not depend on it.)
      case Opcode::And: {
        llvm::Value* second = nonzero(bv);
        r = truth(b.CreateAnd(nonzero(a), second)), may_fault = false;
        break;
      }
      case Opcode::Or: {
        llvm::Value* second = nonzero(bv);
        r = truth(b.CreateOr(nonzero(a), second)), may_fault = false;
        break;
      }
      case Opcode::Not: r = truth(b.CreateFCmpOEQ(a, num(0))), may_fault = false; break;
      case Opcode::Select: r = b.CreateSelect(nonzero(a), bv, c), may_fault = false; break;
      default: throw std::logic_error("jit: unexpected opcode");
    }
    v[i] = r;
    auto flag = [&](ValueId x) { return x >= 0 ? p[size_t(x)] : f(); };
    if (!needed[i]) {  // nothing reads its poison: a branch no needed value can take
      p[i] = f();
      return;
    }
    if (always[i]) {
      // Needed whatever the branches: any poison makes the point invalid, so it goes straight into `ok`,
      // and the flag itself stays false. Its operands (the condition of a select) are `always` too and
      // report their own faults; NaN is only ever produced by a fault, so a fresh fault is exactly a
      // non-finite result (x / 0, sqrt and log2 out of their domain and overflows all give one).
      if (in.op == Opcode::Select) require(b.CreateNot(b.CreateSelect(nonzero(a), flag(in.b), flag(in.c))));
      if (may_fault) require(b.CreateNot(not_finite(r)));
      p[i] = f();
      return;
    }
    llvm::Value* poison;
    if (in.op == Opcode::Select) {
      llvm::Value* fb = flag(in.b);
      llvm::Value* fc = flag(in.c);
      auto is_false = [](llvm::Value* x) {
        auto* k = llvm::dyn_cast<llvm::ConstantInt>(x);
        return k && k->isZero();
      };
      llvm::Value* taken = is_false(fb) && is_false(fc) ? f() : b.CreateSelect(nonzero(a), fb, fc);
      poison = or_(flag(in.a), taken);
    } else {
      poison = or_(or_(flag(in.a), flag(in.b)), flag(in.c));
    }
    if (may_fault) {
      llvm::Value* fault = f();
      if (in.op == Opcode::Div) fault = b.CreateFCmpOEQ(bv, num(0));
      if (in.op == Opcode::Sqrt) fault = b.CreateFCmpOLT(a, num(0));
      if (in.op == Opcode::Log2) fault = b.CreateFCmpOLE(a, num(0));
      if (in.op == Opcode::Pow) fault = not_finite(r);
      // Any non-finite result from operands that are not NaN.
      llvm::Value* infinite = not_finite(r);
      llvm::Value* b_ordered = b.CreateFCmpORD(bv, bv);
      llvm::Value* fresh = and_(and_(b.CreateFCmpORD(a, a), b_ordered), infinite);
      poison = or_(poison, or_(fault, fresh));
    }
    p[i] = poison;
  }

  void checks() {
    for (const auto& param : m.params) need(param.value);
    for (const auto& [name, value] : m.lets) need(value);
    for (const Check& check : m.checks) {
      maybe_split();
      need(check.value);
      llvm::Value* x = v[size_t(check.value)];
      switch (check.kind) {
        case CheckKind::Positive: require(b.CreateFCmpOGT(x, num(0))); break;
        case CheckKind::NonNegative: require(b.CreateFCmpOGE(x, num(0))); break;
        case CheckKind::InRange: {
          need(check.lo);
          need(check.hi);
          llvm::Value* lo = v[size_t(check.lo)];
          llvm::Value* hi = v[size_t(check.hi)];
          require(b.CreateFCmpOLE(lo, hi));
          require(b.CreateFCmpOGE(x, lo));
          require(b.CreateFCmpOLE(x, hi));
          break;
        }
        case CheckKind::AtMost:
          need(check.hi);
          require(b.CreateFCmpOLE(x, v[size_t(check.hi)]));
          break;
        case CheckKind::WholeNumber:
          require(b.CreateFCmpOGE(x, num(0)));
          require(b.CreateFCmpOEQ(x, intrinsic(llvm::Intrinsic::floor, {x})));
          require(b.CreateNot(not_finite(x)));
          break;
      }
    }
  }

  // An engine's time: gpmc_rt_engine_time(engine, inputs, n), the inputs in a stack array; or, when every input is
  // fixed at compile time, the engine's time computed now (an engine is a pure function of its inputs).
  llvm::Value* engine_time(const Task& task) {
    const EngineCall& call = m.engine_calls.at(size_t(task.engine_call));
    for (ValueId x : call.inputs) need(x);
    std::vector<double> known;
    for (ValueId x : call.inputs)
      if (fixed[size_t(x)] && !fixed_poison[size_t(x)]) known.push_back(fixed_value[size_t(x)]);
    if (known.size() == call.inputs.size()) {
      double t = NAN;
      try {
        t = call.engine->time(known);
      } catch (...) {
      }
      if (!std::isnan(t)) return num(t);  // otherwise the call at run time reports the point invalid
    }
    auto* i64 = b.getInt64Ty();
    auto* ptr = b.getInt8PtrTy();
    size_t n = call.inputs.size();
    auto* array_type = llvm::ArrayType::get(f64, std::max<size_t>(n, 1));
    llvm::IRBuilder<> entry(&b.GetInsertBlock()->getParent()->getEntryBlock(),
                            b.GetInsertBlock()->getParent()->getEntryBlock().begin());
    llvm::Value* array = entry.CreateAlloca(array_type);
    for (size_t k = 0; k < n; ++k)
      b.CreateStore(v[size_t(call.inputs[k])], b.CreateConstInBoundsGEP2_64(array_type, array, 0, k));
    std::string global_name = "gpmc_engine_" + std::to_string(task.engine_call);
    auto* engine = mod.getOrInsertGlobal(global_name, b.getInt8Ty());
    auto* fn = mod.getFunction("gpmc_rt_engine_time");
    llvm::Value* first = b.CreateConstInBoundsGEP2_64(array_type, array, 0, 0);
    llvm::Value* t = b.CreateCall(fn, {b.CreateBitCast(engine, ptr), first, llvm::ConstantInt::get(i64, n)});
    require(b.CreateFCmpORD(t, t));  // NaN: the engine has an error to report
    return t;
  }

  // The time of one execution of `task`, as the interpreter's Folder computes it.
  llvm::Value* fold(const Task& task) {
    maybe_split();
    if (task.kind == TaskKind::Engine) return engine_time(task);
    if (task.kind == TaskKind::Op) {
      if (task.value == kNoValue) return num(0);
      need(task.value);
      return v[size_t(task.value)];
    }
    llvm::Value* count = num(1);
    if (task.kind == TaskKind::Iterate) {
      need(task.value);
      count = v[size_t(task.value)];
    }
    llvm::Value* inner = num(0);
    for (const auto& child : task.children) {
      llvm::Value* t = fold(child);
      inner = task.kind == TaskKind::Par ? b.CreateSelect(b.CreateFCmpOLT(inner, t), t, inner) : b.CreateFAdd(inner, t);
    }
    return b.CreateFMul(inner, count);
  }

  void declare_runtime() {
    declare("gpmc_rt_pow", 2);
    declare("gpmc_rt_log2", 1);
    auto* type = llvm::FunctionType::get(f64, {b.getInt8PtrTy(), llvm::PointerType::getUnqual(f64), b.getInt64Ty()},
                                         false);
    auto* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "gpmc_rt_engine_time", mod);
    fn->setDoesNotThrow();
  }

  void function(const char* name, bool store_values) {
    auto* dptr = llvm::PointerType::getUnqual(f64);
    std::vector<llvm::Type*> args = {dptr, dptr};
    if (store_values) args.push_back(dptr);
    auto* fn = llvm::Function::Create(llvm::FunctionType::get(f64, args, false), llvm::Function::ExternalLinkage,
                                      name, mod);
    fn->setDoesNotThrow();
    for (unsigned k = 0; k < fn->arg_size(); ++k) fn->addParamAttr(k, llvm::Attribute::NoAlias);
    fn->addParamAttr(0, llvm::Attribute::ReadOnly);
    llvm::Value* inputs = fn->getArg(0);
    llvm::Value* phases = fn->getArg(1);
    inputs->setName("inputs");
    phases->setName("phases_out");
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
    size_t n = m.instrs.size();
    v.assign(n, nullptr);
    p.assign(n, nullptr);
    ok = b.getTrue();
    analyse_needs();
    analyse_fixed();
    for (size_t i = 0; i < n; ++i) {
      maybe_split();
      instruction(i, inputs);
      if (names && !llvm::isa<llvm::Constant>(v[i])) v[i]->setName("v" + std::to_string(i));
    }
    if (store_values) {
      llvm::Value* out = fn->getArg(2);
      out->setName("values_out");
      for (size_t i = 0; i < n; ++i) {
        maybe_split();
        b.CreateStore(v[i], b.CreateConstInBoundsGEP1_64(f64, out, i));
      }
    }
    checks();
    llvm::Value* total = num(0);
    size_t k = 0;
    for (const auto& phase : m.root.children) {
      llvm::Value* t = fold(phase);
      b.CreateStore(t, b.CreateConstInBoundsGEP1_64(f64, phases, k++));
      total = b.CreateFAdd(total, t);
    }
    b.CreateRet(b.CreateSelect(ok, total, num(std::numeric_limits<double>::quiet_NaN())));
    std::string problems;
    llvm::raw_string_ostream os(problems);
    if (llvm::verifyFunction(*fn, &os)) throw std::logic_error("jit: invalid LLVM function: " + os.str());
  }
};

}  // namespace

std::unique_ptr<llvm::Module> build_module(llvm::LLVMContext& context, const Module& module, const SlotValues& bound,
                                           const Options& options, bool names) {
  auto out = std::make_unique<llvm::Module>("gpmc." + module.machine_name + "." + module.app_name, context);
  Codegen g{context, *out, module, bound, options, names};
  g.input_of_slot.assign(module.params.size(), -1);
  for (size_t k = 0; k < options.inputs.size(); ++k) {
    size_t slot = size_t(options.inputs[k]);
    if (slot >= g.input_of_slot.size()) throw std::logic_error("jit: input slot out of range");
    g.input_of_slot[slot] = int(k);
  }
  g.large = module.instrs.size() > CompiledModel::kOptimizeLimit;
  if (g.large) {
    std::vector<double> table;
    g.constant_index.assign(module.instrs.size(), 0);
    for (size_t i = 0; i < module.instrs.size(); ++i)
      if (module.instrs[i].op == Opcode::Const) {
        g.constant_index[i] = table.size();
        table.push_back(module.instrs[i].imm);
      }
    auto* init = llvm::ConstantDataArray::get(context, table);
    g.constants = new llvm::GlobalVariable(*out, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init,
                                           "gpmc_constants");
  }
  g.declare_runtime();
  if (options.with_point) g.function("gpmc_point", false);
  if (options.with_values) g.function("gpmc_values", true);
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(*out, &os)) throw std::logic_error("jit: invalid LLVM module: " + os.str());
  return out;
}

}  // namespace gpm::backend::jit
