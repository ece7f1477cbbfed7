// ir.h: the IR: typed SSA expressions over parameters, the machine topology graph and the app task tree.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>
#include <string>
#include <string_view>
#include <vector>

#include "support/source_manager.h"
#include "support/units.h"
#include "ir/engine.h"

namespace gpm::ir {

using support::Dim;
using support::SourceRange;
using ValueId = int32_t;
inline constexpr ValueId kNoValue = -1;

enum class Opcode {
  Const,   // imm
  Param,   // slot; a = the default value (used when the slot is not bound)
  Add, Sub, Mul, Div, Pow, Min, Max,  // a, b
  Neg, Ceil, Floor, Sqrt, Abs, Log2,  // a
  Lt, Le, Gt, Ge, Eq, Ne, And, Or,    // a, b -> truth value (1 or 0)
  Not,                                // a
  Select,                             // a ? b : c
};
const char* opcode_name(Opcode op);
int operand_count(Opcode op);

// One SSA instruction; operands always refer to earlier instructions.
struct Instr {
  Opcode op = Opcode::Const;
  ValueId a = kNoValue, b = kNoValue, c = kNoValue;
  double imm = 0;
  int32_t slot = -1;
  Dim dim;
  bool is_bool = false;
  SourceRange range;
};

struct ParamInfo {
  std::string name;
  std::string owner;  // the machine or app that declares it; empty for a global parameter
  Dim dim;
  ValueId value = kNoValue;  // the Param instruction
  ValueId range_lo = kNoValue, range_hi = kNoValue;
  SourceRange range;
  std::vector<std::string> words;  // a word parameter's words; its value is the index of one
};

enum class CheckKind { Positive, InRange, WholeNumber, NonNegative, AtMost };
// A condition on a value that evaluation must verify (bandwidths > 0, params in range, counts whole, a copy's
// bytes within its GPU's memory: AtMost, value <= hi).
struct Check {
  CheckKind kind;
  ValueId value;
  ValueId lo = kNoValue, hi = kNoValue;
  SourceRange range;
  std::string what;  // "bandwidth of link p9 <-> g[0]", "parameter `n`"
};

struct Component {
  std::string kind;  // cpu, gpu, memory, switch, root, nic
  std::string path;  // s[0].g[1]
  std::string type_name;
  std::map<std::string, ValueId> attrs;
  SourceRange range;
  std::map<std::string, SourceRange> attr_ranges;  // where each attribute's value is written (for diagnostics)
};

// A link between components a and b; index 0 is the a -> b direction, 1 is b -> a.
struct Link {
  int a = -1, b = -1;
  bool bidirectional = true;
  ValueId bw[2] = {kNoValue, kNoValue};
  ValueId latency[2] = {kNoValue, kNoValue};
  ValueId gap[2] = {kNoValue, kNoValue};  // LogGP gap g per direction; kNoValue when not given
  ValueId bw_duplex[2] = {kNoValue, kNoValue};  // bandwidth while copies run both ways; kNoValue when not given
  ValueId bw_mapped[2] = {kNoValue, kNoValue};  // bandwidth beside device-mapped accesses; kNoValue when not given
  bool global = false;  // a dragonfly's link between two groups: among routes of the fewest links, the fewest of these
  std::string type_name;
  SourceRange range;
};

struct Topology {
  std::vector<Component> components;
  std::vector<Link> links;
  ValueId node_count = kNoValue;
  int find(const std::string& path) const;
};

// Engine: an operation whose time a run-time engine computes (Task::engine_call indexes Module::engine_calls).
enum class TaskKind { Seq, Par, Iterate, Phase, Op, Engine };

// A named term of an operation's model, reported beside its time (roofline compute vs memory time).
// `limits` marks the alternatives of a max: the largest of them is what bounds the operation.
struct Term {
  std::string name;
  ValueId value;
  bool limits = false;
};

struct Task {
  static Task make(TaskKind kind, std::string name, SourceRange range = {}) {
    Task t;
    t.kind = kind;
    t.name = std::move(name);
    t.range = range;
    return t;
  }
  TaskKind kind = TaskKind::Seq;
  std::string name;       // phase name, or the operation as written (`run stencil`)
  std::string model;      // Op, Engine: which model and source, e.g. "AHEAD eq. 10 (pinned copy)"
  ValueId value = kNoValue;  // Op: time of one execution; Iterate: count
  std::vector<Term> terms;
  int32_t engine_call = -1;  // Engine: index into Module::engine_calls
  std::string part;          // Op, Engine: kernels, communication or overhead (E2E section 3.4); empty: none
  ValueId kernel_part = kNoValue;  // Op: the kernel time within one execution, counted as kernels; the rest is `part`
  std::vector<Task> children;
  SourceRange range;
  std::string track;  // Op, Engine: the resource it occupies on a timeline (`g[0] kernels`, `g[0] copies`, `mpi`...)
  // Op: the GPU whose compute a roofline kernel takes, or whose memory a d2d copy reads and writes, whole (a `par`
  // shares or warns); -1 for anything else.
  int32_t gpu = -1;
  // Op copies priced on a route: the (link, direction) pairs crossed, for the warning on copies in a par.
  std::vector<std::pair<int32_t, int32_t>> route;
  // Op copies whose time is their route's L+O, then their bytes at the route's bandwidth (AHEAD eq. 10): the flow a
  // `par` of copies that share a link prices them as (lower/lower_par_copies.cpp). src < 0: none. A pageable copy
  // (AHEAD eq. 9) stages through host memory `staging` in pipelined chunks: as a flow it moves at most at `rate`,
  // eq. 9's n / (n / bw + 2 n / host_bw), so that alone it ends at eq. 9's time.
  struct CopyFlow {
    int32_t src = -1, dst = -1;  // components
    ValueId bytes = kNoValue, latency = kNoValue;
    int32_t staging = -1;
    ValueId rate = kNoValue;
  } flow;
  // Engine (an explicit offload): the same work as one stream's operations (its h2d copy, its kernel, its d2h copy),
  // which a `par` whose branches share links runs as flows (lower/lower_par_copies.cpp); empty otherwise.
  std::vector<Task> stream_form;
  // Engine (a `streams` or `hybrid` offload), or Op (a run through device-mapped host memory): its
  // operations as flows, in issue order, for a `par` whose branches share links (lower/lower_par_copies.cpp); empty
  // otherwise. `after` and `turn_after` index `flow_form`; `flow_tail` is a delay after the last of them ends.
  struct FlowOp {
    std::string name, kind;        // kind: h2d, d2h (also a mapped write), kernel
    int32_t src = -1, dst = -1;    // a copy's ends; a kernel's GPU, both
    std::vector<std::pair<int32_t, int32_t>> route;  // a copy's (link, direction) pairs
    ValueId size = kNoValue;       // a copy's bytes, a kernel's time
    ValueId delay = kNoValue;      // after its waits: a copy's L+o (kNoValue: none)
    ValueId cap = kNoValue;        // the bandwidth its strategy gives a copy ([WERK] Table II), kNoValue: its links'
    int engine = 0;                // on its GPU: 0 copies (h2d, or both ways with one copy engine), 1 d2h copies,
                                   // 2 compute, 3 mapped writes of a hybrid offload; -1 none (eq. 6's accesses)
    std::vector<int> after;        // the operations it waits for; none: it starts with the offload
    int turn_after = -1;           // the operation before it on its engine, -1: none
    ValueId turn_gap = kNoValue;   // after that one's end: LogGP's g, or L+o after the other direction
  };
  std::vector<FlowOp> flow_form;
  ValueId flow_tail = kNoValue;
  // Op (a pinned copy split over streams, van Werkhoven et al. section V): what a `par` whose branches share links
  // writes as flows (lower/lower_par_copies.cpp): `streams` copies of bytes / streams each from src to dst, after
  // the route's L+O, one after another on the GPU's copy engine with LogGP's gap g between. streams kNoValue: none.
  // A pageable one (`staging` >= 0): the same copies one after another, each an AHEAD eq. 9 copy staged through
  // host memory `staging` (CopyFlow: at most at `rate`), no gap (each returns only when done).
  struct SplitCopy {
    int32_t src = -1, dst = -1;
    ValueId bytes = kNoValue, latency = kNoValue, gap = kNoValue, streams = kNoValue;
    int32_t staging = -1;
    ValueId rate = kNoValue;
  } split;
};

struct Module {
  std::string machine_name, app_name;
  std::vector<Instr> instrs;
  std::vector<ParamInfo> params;
  std::vector<Check> checks;
  Topology topology;
  Task root;  // Seq of phases
  std::vector<std::pair<std::string, ValueId>> lets;  // named constants, evaluated and checked like params
  std::vector<EngineCall> engine_calls;
  // Parameter slots whose values the lowering used to decide the module's shape (array sizes, indices,
  // precision, placement): changing one needs lowering again.
  std::set<int32_t> shape_slots;
  // An MPI library chose some operation's algorithm (reports show the choice per point).
  bool library_choices = false;
  int find_param(const std::string& name) const;
};

// Whether the module calls an engine of that name (engine.h's name(): "mpi-nccl", "overlap", ...).
inline bool has_engine(const Module& module, std::string_view name) {
  for (const auto& call : module.engine_calls)
    if (call.engine && call.engine->name() == name) return true;
  return false;
}

// Raised when a model would lower to an unreasonable amount of IR; reported as a ModelTooLarge error at `range`
// (the declaration, call or expression being lowered when the limit was reached).
struct ModelTooLarge : std::runtime_error {
  explicit ModelTooLarge(const std::string& what, SourceRange where = {}) : std::runtime_error(what), range(where) {}
  SourceRange range;
};

// Builds instructions through factories that check operand types (dimensions and truth values).
class Builder {
 public:
  explicit Builder(Module& module) : m_(module) {}
  ValueId constant(double value, Dim dim, SourceRange range = {});
  ValueId param(int32_t slot, ValueId default_value, SourceRange range);
  ValueId binary(Opcode op, ValueId a, ValueId b, SourceRange range);
  ValueId unary(Opcode op, ValueId a, SourceRange range);
  ValueId select(ValueId cond, ValueId a, ValueId b, SourceRange range);
  const Instr& at(ValueId id) const { return m_.instrs.at(size_t(id)); }
  Module& module() { return m_; }
  // Drops the instructions from `size` on (built to be evaluated at lowering and then not kept): nothing that
  // stays may use them.
  void truncate(size_t size);

 static constexpr size_t kMaxInstructions = 20'000'000;

 private:
  ValueId push(Instr instr);
  Module& m_;
  // Identical instructions are built once (hash-consing), so shared subexpressions stay shared.
  std::map<std::tuple<int, ValueId, ValueId, ValueId, int32_t, uint64_t, int, bool>, ValueId> existing_;
};

}  // namespace gpm::ir
