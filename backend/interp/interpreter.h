// interpreter.h: the reference evaluator: runs the IR at bound parameter values and folds the task tree.
#pragma once
#include <functional>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/diagnostics.h"
#include "ir/ir.h"

namespace gpm::backend {

// Values for parameter slots; an empty entry means "use the default".
using SlotValues = std::vector<std::optional<double>>;

struct Quantity {
  double value = 0;  // base units
  support::Dim dim;
};

struct TermValue {
  std::string name;
  Quantity value;
};

// One row of the breakdown: an operation or a block, with how often it runs.
struct Row {
  std::string name, model;
  int depth = 0;             // nesting below its phase
  bool is_block = false;     // seq / par / iterate
  double count = 1;          // executions over the whole run (product of enclosing iterate counts)
  double each_s = 0;         // time of one execution
  double total_s = 0;        // each_s * count
  std::vector<TermValue> terms;
  std::string bound;  // the term that bounds the operation (the largest of a max), or empty
  nlohmann::ordered_json detail;  // an engine's own report (flows, timeline...); null for closed forms
  std::string part;               // kernels, communication, overhead or empty (E2E section 3.4)
  double kernels_each_s = -1;     // the share of each_s that is kernel time, the rest being `part`; -1: all `part`
  // Whether this row's time lies on the critical path of the run (1) or in a `par` branch shorter than another
  // (0): the parts add up only rows on the path, so that they sum to the total.
  double critical = 1;
  std::string block;        // blocks: seq, par or iterate (a phase is a seq); empty for operations
  double iterations = 1;    // iterate: the count
  std::string track;        // operations: the resource a timeline puts it on (ir::Task::track)
  std::function<void(std::ostream&, const std::string&)> write_flows;  // every flow as CSV rows, or empty
};

struct PhaseResult {
  std::string name;
  std::string model;  // for an iterate phase, its iteration count
  double time_s = 0;
  std::vector<Row> rows;
  std::string block = "seq";  // how the phase lays out its rows of depth 0: seq, par or iterate
  double iterations = 1;      // iterate: the count
};

struct ParamValue {
  std::string name;
  std::string owner;  // the machine or app declaring it; empty for a global parameter
  Quantity value;
  bool overridden = false;
  std::string word;  // a word parameter's value (then `value` is its index); empty for a number
};

struct Evaluation {
  std::string machine, app;
  double total_s = 0;
  std::vector<PhaseResult> phases;
  std::vector<ParamValue> params;
  nlohmann::ordered_json warnings;  // the located warnings of the run (set by the command line); null or [] when none
  nlohmann::ordered_json provenance;  // what produced the result (set by the command line); null when not given
};

// Computes every instruction; faults (division by zero...) are reported with their source location.
// Returns false, with diagnostics, when any value the model needs is faulty or a check fails. A value out of its
// range names where it was bound: `--vary` for the slots in `varied` (a sweep's axes), `--set` for the others.
bool evaluate(const ir::Module& module, const SlotValues& bound, support::DiagnosticEngine& diags, Evaluation& out,
              const std::set<int32_t>* varied = nullptr);

// The same report from instruction values computed elsewhere (the JIT), for a point known to be valid:
// the values are taken as fault-free, and the checks and the fold run on them.
bool evaluate_with_values(const ir::Module& module, const SlotValues& bound, std::vector<double> values,
                          support::DiagnosticEngine& diags, Evaluation& out);

// Only the instruction values (no checks, no report); entries faulted are NaN. For tests and tools.
std::vector<double> compute_values(const ir::Module& module, const SlotValues& bound);

}  // namespace gpm::backend
