// runtime.cpp: the C functions compiled models call, and the table of their names the JIT defines.
#include "backend/jit/runtime.h"

#include <array>
#include <cmath>
#include <cstring>
#include <span>
#include <vector>

#include "ir/engine.h"
#include "ir/semantics.h"

namespace {

// The last result of each engine on this thread (direct-mapped by the engine's memo key). A sweep varies a few
// parameters; an engine whose inputs did not change since its last call on this thread (the parameters it reads
// are on a slower axis of the sweep) gets its previous result back. Engines are pure functions of their inputs,
// so the memo returns exactly what the call would: the inputs are compared bit for bit.
struct MemoEntry {
  uint64_t key = 0;
  std::vector<double> inputs;
  double time = 0;
};
constexpr size_t kMemoEntries = 64;
// Inputs above this many are not memoised: comparing them would cost a sizeable part of what the engine costs.
constexpr int64_t kMemoMaxInputs = 4096;
thread_local std::array<MemoEntry, kMemoEntries> memo;

}  // namespace

extern "C" {
double gpmc_rt_pow(double a, double b) { return gpm::ir::apply(gpm::ir::Opcode::Pow, a, b, 0); }
double gpmc_rt_log2(double a) { return std::log2(a); }
double gpmc_rt_engine_time(const void* engine, const double* inputs, int64_t n) {
  const auto* e = static_cast<const gpm::ir::Engine*>(engine);
  MemoEntry* slot = nullptr;
  if (n <= kMemoMaxInputs) {
    slot = &memo[e->memo_key() % kMemoEntries];
    if (slot->key == e->memo_key() && slot->inputs.size() == size_t(n) &&
        (n == 0 || std::memcmp(slot->inputs.data(), inputs, size_t(n) * sizeof(double)) == 0))
      return slot->time;
  }
  double t;
  try {
    t = e->time(std::span<const double>(inputs, size_t(n)));
  } catch (...) {  // compiled code has no unwind tables: nothing may pass through it
    t = NAN;
  }
  if (slot) {
    slot->key = 0;
    try {
      slot->inputs.assign(inputs, inputs + n);
      slot->key = e->memo_key();
      slot->time = t;
    } catch (...) {  // out of memory: no memo this time
      slot->key = 0;
    }
  }
  return t;
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
