// codegen.h: IR module -> LLVM module (internal to the JIT library; the only header besides jit.cpp that sees LLVM).
#pragma once
#include <memory>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "backend/jit/jit.h"

namespace gpm::backend::jit {

// Builds `gpmc_point` and/or `gpmc_values` (options.with_point, with_values) and verifies them; throws
// std::logic_error when LLVM's verifier rejects the result (a compiler bug). `names` gives each LLVM value
// the number of its IR instruction (%v12), for reading the printed module.
std::unique_ptr<llvm::Module> build_module(llvm::LLVMContext& context, const ir::Module& module,
                                           const SlotValues& bound, const Options& options, bool names);

}  // namespace gpm::backend::jit
