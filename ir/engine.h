// engine.h: the interface of run-time models (stream schedules, congestion, MPI): scalar inputs in, a time out.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/units.h"

namespace gpm::ir {

// A named quantity an engine reports beside its time (like a closed form's terms).
// `limits` marks the alternatives of a max: the largest one is what bounds the operation.
struct EngineTerm {
  std::string name;
  double value = 0;
  support::Dim dim;
  bool limits = false;
};

struct EngineResult {
  double time_s = 0;               // one execution, in seconds
  std::vector<EngineTerm> terms;   // shown beside the operation
  nlohmann::ordered_json detail;   // engine-specific report (flows, timeline...); null when none
  std::string error;               // non-empty when the inputs admit no result; reported at the operation
  double kernel_s = -1;            // the kernels' own time within time_s (E2E parts); -1 when it runs none
  // Writes one CSV row per flow (`eval --flows-out`), each line starting with `prefix`; empty for engines
  // without flows. The engine outlives the result (both belong to the lowered module).
  std::function<void(std::ostream& out, const std::string& prefix)> write_flows;
};

// A model that is not a closed form. The lowering builds one object per operation holding the static structure
// (flows, streams, ranks); what may vary between evaluations (sizes, bandwidths, latencies) arrives as `inputs`,
// the values of the call's input instructions in base units, in the order the lowering listed them.
// Engines are immutable after lowering: `time` and `run` are const and may be called from many threads at once.
class Engine {
 public:
  Engine() = default;
  Engine(const Engine&) : key_(next_key()) {}  // a copy is another engine: never the same memo key
  Engine& operator=(const Engine&) = delete;
  virtual ~Engine() = default;
  // A short name for dumps and reports: "overlap", "congestion", "mpi".
  virtual std::string name() const = 0;
  // The time of one execution; NaN when `run` would report an error. The fast path used by sweeps and the JIT.
  virtual double time(std::span<const double> inputs) const = 0;
  // The full result for reports; its time equals `time(inputs)`.
  virtual EngineResult run(std::span<const double> inputs) const = 0;
  // The static structure for `gpmc dump-ir`, one item per line, or empty.
  virtual std::string describe() const { return {}; }
  // A number no other engine of this process has, live or destroyed: compiled code keys its memo of engine
  // results by it (an address may be reused by a later engine).
  uint64_t memo_key() const { return key_; }

 private:
  static uint64_t next_key() {
    static std::atomic<uint64_t> counter{0};
    return ++counter;
  }
  uint64_t key_ = next_key();
};

// A call of an engine from a TaskKind::Engine task.
struct EngineCall {
  std::shared_ptr<const Engine> engine;
  std::vector<int32_t> inputs;  // ValueIds
};

}  // namespace gpm::ir
