// jit.cpp: optimises the LLVM module (new pass manager, O2), compiles it with ORC LLJIT, and runs one evaluation.
#include "backend/jit/jit.h"

#include <chrono>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Passes/OptimizationLevel.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "backend/jit/codegen.h"
#include "backend/jit/runtime.h"

namespace gpm::backend::jit {

namespace {

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

template <typename T>
T take(llvm::Expected<T> value, const char* what) {
  if (!value) throw std::runtime_error(std::string("jit: ") + what + ": " + llvm::toString(value.takeError()));
  return std::move(*value);
}

void check(llvm::Error error, const char* what) {
  if (error) throw std::runtime_error(std::string("jit: ") + what + ": " + llvm::toString(std::move(error)));
}

// The host's target machine, with the data layout the module is optimised for.
std::unique_ptr<llvm::TargetMachine> host_machine(llvm::orc::JITTargetMachineBuilder& builder) {
  return take(builder.createTargetMachine(), "target machine");
}

void optimize(llvm::Module& module, llvm::TargetMachine& machine) {
  module.setDataLayout(machine.createDataLayout());
  module.setTargetTriple(machine.getTargetTriple().str());
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2).run(module, mam);
}

}  // namespace

struct CompiledModel::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::vector<std::shared_ptr<const ir::Engine>> engines;  // kept alive while compiled code may call them
};

CompiledModel::CompiledModel() : impl_(std::make_unique<Impl>()) {}
CompiledModel::~CompiledModel() = default;

std::unique_ptr<CompiledModel> CompiledModel::compile(const ir::Module& module, const SlotValues& bound,
                                                      const Options& options) {
  auto start = std::chrono::steady_clock::now();
  initialize_llvm();
  std::unique_ptr<CompiledModel> out(new CompiledModel());
  Options effective = options;
  if (module.instrs.size() > kOptimizeLimit) effective.optimize = false;
  auto context = std::make_unique<llvm::LLVMContext>();
  auto llvm_module = build_module(*context, module, bound, effective, false);
  auto target = take(llvm::orc::JITTargetMachineBuilder::detectHost(), "host detection");
  target.setCodeGenOptLevel(effective.optimize ? llvm::CodeGenOpt::Default : llvm::CodeGenOpt::None);
  auto machine = host_machine(target);
  if (effective.optimize) optimize(*llvm_module, *machine);
  else llvm_module->setDataLayout(machine->createDataLayout());
  auto jit = take(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(target)).create(), "LLJIT");

  // The runtime functions and one symbol per engine object: compiled code reaches them by name.
  llvm::orc::SymbolMap symbols;
  auto define = [&](const std::string& name, const void* address) {
    symbols[jit->mangleAndIntern(name)] = llvm::JITEvaluatedSymbol(
        llvm::pointerToJITTargetAddress(address), llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  };
  int count = 0;
  const RuntimeSymbol* runtime = runtime_symbols(count);
  for (int k = 0; k < count; ++k) define(runtime[k].name, runtime[k].address);
  for (size_t k = 0; k < module.engine_calls.size(); ++k) {
    out->impl_->engines.push_back(module.engine_calls[k].engine);
    define("gpmc_engine_" + std::to_string(k), module.engine_calls[k].engine.get());
  }
  check(jit->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols))), "runtime symbols");
  check(jit->addIRModule(llvm::orc::ThreadSafeModule(std::move(llvm_module), std::move(context))), "adding module");
  if (options.with_point)
    out->point_ = reinterpret_cast<PointFn>(take(jit->lookup("gpmc_point"), "gpmc_point").getAddress());
  if (options.with_values)
    out->values_ = reinterpret_cast<ValuesFn>(take(jit->lookup("gpmc_values"), "gpmc_values").getAddress());
  out->impl_->jit = std::move(jit);
  out->phase_count_ = module.root.children.size();
  out->compile_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

std::string print_llvm(const ir::Module& module, const SlotValues& bound, const Options& options) {
  initialize_llvm();
  llvm::LLVMContext context;
  auto llvm_module = build_module(context, module, bound, options, true);
  if (options.optimize) {
    auto target = take(llvm::orc::JITTargetMachineBuilder::detectHost(), "host detection");
    optimize(*llvm_module, *host_machine(target));
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm_module->print(os, nullptr);
  return os.str();
}

bool evaluate(const ir::Module& module, const SlotValues& bound, support::DiagnosticEngine& diags, Evaluation& out) {
  Options options;
  options.with_point = false;
  options.with_values = true;
  auto compiled = CompiledModel::compile(module, bound, options);
  std::vector<double> values(module.instrs.size());
  std::vector<double> phases(std::max<size_t>(compiled->phase_count(), 1));
  double total = compiled->values()(nullptr, phases.data(), values.data());
  // An invalid point: the interpreter finds the same faults and failed checks, and says where they are.
  if (!std::isfinite(total)) return backend::evaluate(module, bound, diags, out);
  return evaluate_with_values(module, bound, std::move(values), diags, out);
}

}  // namespace gpm::backend::jit
