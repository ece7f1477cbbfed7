// runtime.cpp: the C functions compiled models call, and the table of their names the JIT defines.
#include "backend/jit/runtime.h"

#include <cmath>
#include <cstring>
#include <span>

#include "ir/engine.h"
#include "ir/semantics.h"

extern "C" {
double gpmc_rt_pow(double a, double b) { return gpm::ir::apply(gpm::ir::Opcode::Pow, a, b, 0); }
double gpmc_rt_log2(double a) { return std::log2(a); }
double gpmc_rt_engine_time(const void* engine, const double* inputs, int64_t n) {
  try {
    return static_cast<const gpm::ir::Engine*>(engine)->time(std::span<const double>(inputs, size_t(n)));
  } catch (...) {  // compiled code has no unwind tables: nothing may pass through it
    return NAN;
  }
}
}

namespace gpm::backend::jit {

const RuntimeSymbol* runtime_symbols(int& count) {
  static const RuntimeSymbol symbols[] = {
      {"gpmc_rt_pow", reinterpret_cast<void*>(&gpmc_rt_pow)},
      {"gpmc_rt_log2", reinterpret_cast<void*>(&gpmc_rt_log2)},
      {"gpmc_rt_engine_time", reinterpret_cast<void*>(&gpmc_rt_engine_time)},
      // LLVM lowers large array initialisations (an engine call's inputs) to these C library calls.
      {"memset", reinterpret_cast<void*>(&std::memset)},
      {"memcpy", reinterpret_cast<void*>(&std::memcpy)},
      {"memmove", reinterpret_cast<void*>(&std::memmove)},
  };
  count = int(sizeof(symbols) / sizeof(symbols[0]));
  return symbols;
}

}  // namespace gpm::backend::jit
