// runtime.h: the C functions compiled models call: libm functions whose results must match the interpreter.
#pragma once
#include <cstdint>

extern "C" {
// ir::apply's Pow and std::log2, called rather than inlined as LLVM intrinsics, so that no rewrite (pow(x, 0.5)
// to sqrt, pow(2, x) to exp2) can make the JIT differ from the interpreter by one rounding.
double gpmc_rt_pow(double a, double b);
double gpmc_rt_log2(double a);
// The time of an engine (a `const gpm::ir::Engine*`) at these inputs: Engine::time, NaN on any error. Remembers
// each engine's last inputs and result on the calling thread and returns that result when the inputs are the same.
double gpmc_rt_engine_time(const void* engine, const double* inputs, int64_t n);
}

namespace gpm::backend::jit {

// A runtime function by the name compiled code calls it, and its address.
struct RuntimeSymbol {
  const char* name;
  void* address;
};
// Every function compiled models may call.
const RuntimeSymbol* runtime_symbols(int& count);

}  // namespace gpm::backend::jit
