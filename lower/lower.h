// lower.h: checked AST -> IR (parameters, inlined functions, machine topology, app task tree).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostics.h"
#include "frontend/sema.h"
#include "ir/ir.h"
#include "ir/topology.h"

namespace gpm::engines {
struct OverlapOp;
namespace congestion {
struct FabricMap;
}
}  // namespace gpm::engines
namespace gpm::mpi {
struct FabricPlacement;
struct FabricShared;
class FabricCommEngine;
enum class CommModel : uint8_t;
enum class Collective;
struct Layout;
struct Round;
struct LibraryChoice;
struct OpenmpiRules;
struct Choice;
class CommEngine;
}

namespace gpm::lower {

// Whether a `flows` block of `flows` flows may be built (a fixed cap and an estimate of its memory against the
// machine's); `why` says why not. lower_congestion.cpp.
bool flows_fit(uint64_t flows, std::string& why, std::string_view what = "this `flows` block makes");
// Whether an MPI operation's `messages` (sender, receiver) pairs may be listed before they become flows (their
// memory against the machine's); `why` says why not. lower_congestion.cpp.
bool messages_fit(uint64_t messages, std::string& why);

// The standard-library functions the lowering calls by name (Lowerer::call_stdlib), which a lazily loaded prelude
// must parse whatever the model mentions (driver::Options::lazy_prelude).
const std::vector<std::string>& stdlib_functions();

// The lowering builds the IR: the IR's names are used unqualified here (ir::Module over frontend::Module).
using namespace gpm::ir;
using ir::Module;
using support::DiagnosticEngine;

// Values given with --set, by parameter declaration, in base units.
using ParamBindings = std::map<const frontend::ParamDecl*, double>;
// Word-valued settings given with --set (`comm_model=postal`), by name.
using KeywordSettings = std::map<std::string, std::string>;
struct MpiMachineInfo;
struct MpiFabricRequest;
struct FabricWholeSpec;

class Lowerer {
 public:
  static constexpr long kMaxInlinedCalls = 500'000;
  static constexpr size_t kMaxComponents = 1'000'000;
  static constexpr int64_t kMaxLoopIterations = 10'000'000;  // all the loops of a model, expanded
  static constexpr int64_t kMaxAlltoallvRanks = 2048;         // an alltoallv's `bytes`: evaluated ranks^2 times
  // An MPI operation in a `par` shares links with the other branches as at most this many flows; beyond, a warning.
  static constexpr int64_t kParMpiFlows = 100'000;
  Lowerer(const frontend::CheckedProgram& program, const support::SourceManager& sources, DiagnosticEngine& diags,
          Module& out, const ParamBindings& bindings);
  // The global parameters and constants, and those of the given machines and apps (with range checks).
  void lower_params(const std::vector<const frontend::Decl*>& owners);
  // The parameter slot of a declaration lowered by lower_params, or -1.
  int slot_of(const frontend::ParamDecl* decl) const;
  // The instruction holding the value of a param or let lowered by lower_params, or kNoValue.
  ValueId value_of(const frontend::Decl* decl) const;
  // The machine's topology; array sizes are evaluated with the bound parameter values.
  void lower_machine(const frontend::MachineDecl& machine);
  // The app's operations as a task tree (needs the machine's topology).
  void lower_app(const frontend::AppDecl& app);
  // Word-valued --set settings (comm_model, transport) that override the models' choices.
  void set_keyword_settings(KeywordSettings settings) { keywords_ = std::move(settings); }
  // Lowers an expression in the global scope (used for --set values and tests).
  ValueId lower_global(const frontend::Expr& expr);
  // The value of an instruction at the bound parameter values (for topology shape and names); the parameters
  // it depends on are added to Module::shape_slots.
  double eager_value(ValueId id);
  // Lowers every `offload` with this strategy instead of its own (`gpmc eval --strategy`, `--compare strategy`).
  void set_strategy_override(std::string strategy) { strategy_override_ = std::move(strategy); }
  // A user's Open MPI dynamic rules (`--mpi-rules`), read from `file`: where the run's MPI library is Open MPI, a
  // rule that names an algorithm decides instead of the fixed decision. Not owned; must outlive the lowering.
  void set_openmpi_rules(const mpi::OpenmpiRules* rules, support::FileId file) {
    openmpi_rules_ = rules;
    openmpi_rules_file_ = file;
  }

 private:
  struct FnEnv {
    const frontend::FnDecl* fn;
    std::vector<ValueId> args;
  };
  ValueId lower_expr(const frontend::Expr& expr);
  ValueId lower_chain(const frontend::Expr& expr);
  ValueId lower_call(const frontend::Expr& expr);
  ValueId lower_decl_value(const frontend::Decl& decl);
  ValueId call_stdlib(const std::string& fn_name, const std::vector<ValueId>& args, SourceRange site);
  ValueId inline_call(const frontend::FnDecl& fn, const std::vector<ValueId>& args);
  // `table(row, column)` (lower_table.cpp): the number there, a constant; its indices evaluated now (their
  // parameters shape the module). Inside an alltoallv's `bytes`, where they depend on the pair, a placeholder that
  // alltoallv_blocks looks up pair by pair (table_cells_).
  ValueId lower_table_call(const frontend::Expr& call, const std::vector<ValueId>& args);
  struct TableCell {
    const frontend::TableDecl* table;
    ValueId row, col;
    size_t indices;  // as written: 1 (a table of one row or one column) or 2
    SourceRange range;
  };
  // What is wrong with reading (row, col) of a table, or empty: an index that is not a whole number, or outside.
  static std::pair<support::DiagKind, std::string> table_index_problem(const TableCell& cell, double row, double col);
  // The number at (row, col), or NaN where table_index_problem finds a problem.
  static double table_cell(const TableCell& cell, double row, double col);
  // Whether `v` depends on the alltoallv pair being lowered (pair_src_, pair_dst_).
  bool depends_on_pair(ValueId v) const;
  std::map<ValueId, TableCell> table_cells_;  // placeholders of lookups that depend on the pair
  ValueId pair_src_ = kNoValue, pair_dst_ = kNoValue;
  SourceRange call_site_;  // the outermost function call being inlined (for ModelTooLarge)
  std::string source_text(SourceRange range, std::vector<std::pair<SourceRange, std::string>> replace = {}) const;
  // The word a word position holds: `written`, or the value of the word parameter standing there (which then
  // shapes the module: Module::shape_slots).
  std::string word_of(const frontend::ParamDecl* param, const std::string& written);

  // Machine helpers (lower_machine.cpp).
  void add_components(const std::vector<frontend::NodeItem>& items, const std::string& prefix);
  void add_links(const std::vector<frontend::NodeItem>& items, const std::string& prefix);
  std::vector<int> resolve(const frontend::CompRef& ref, const std::string& prefix);
  void index_paths();
  void merge_parallel_links();
  bool lower_cluster(const frontend::MachineDecl& machine);  // lower_cluster.cpp; false after an error
  bool path_exists(const std::string& path) const { return known_paths_.count(path) > 0; }
  std::optional<int> whole_number(const frontend::Expr& expr, const char* what);
  void add_check(CheckKind kind, ValueId value, SourceRange range, std::string what);
  // A component's or link's attributes: its type's, overridden by its own, with where each was written.
  struct AttrValues {
    std::map<std::string, ValueId> values;
    std::map<std::string, SourceRange> ranges;
  };
  AttrValues merged_attrs(const std::string& type_name, const std::vector<frontend::Attr>& attrs);

  // MPI (lower_mpi.cpp): the machine's section, and the app's operations as engine tasks.
  void lower_mpi_section(const frontend::MachineDecl& machine);
  template <class Count>
  void lower_network(const frontend::MachineDecl& machine, MpiMachineInfo& info, Count& count);
  Task lower_mpi(const frontend::Stmt& stmt);
  // The fabric model (lower_mpi_fabric.cpp): the defaults of a machine without an `mpi` section, and an operation's
  // messages as flows on the machine's links; nullopt after an error.
  std::shared_ptr<MpiMachineInfo> fabric_mpi_defaults(const frontend::MachineDecl& machine);
  // An operation's NCCL algorithm and protocol (`algorithm` word `word`, `protocol`) into `request`; false after a
  // diagnostic (an NCCL word under another model, a word NCCL does not run).
  bool lower_nccl_choice(const frontend::Stmt& stmt, mpi::CommModel model, const frontend::Attr* algorithm,
                         const std::string& word, MpiFabricRequest& request);
  // An MPI library's choice of a collective's algorithm (lower_mpi_library.cpp), where the operation names none
  // and the machine's mpi section (or `--set mpi_library=...`) names an `mpi_library` type: 1 with `out` set, 0
  // without a library, -1 after a diagnostic. `bytes` is evaluated now (it becomes a shape parameter).
  // The MPI library the run names (`--set mpi_library`, else the machine's): 1 and `lib`, 0 for none, -1 after an
  // error.
  int mpi_library_of(const MpiMachineInfo& info, const frontend::TypeDecl*& lib);
  // True unless --mpi-rules is given and the run's MPI library is not Open MPI (then reported, once); a note at a rule.
  bool openmpi_rules_fit_library(const frontend::Stmt& stmt, const frontend::TypeDecl* lib);
  void note_openmpi_rule(int64_t at);
  void warn_openmpi_han(const frontend::Stmt& s, mpi::Collective c, const mpi::Layout& layout,
                        const std::string& name);
  // A classic rules file that Open MPI 5.0 and earlier read otherwise for this operation: a warning naming what they
  // would run (`released`, non-empty), a note at their rule (`at`, or -1); lower_mpi_library.cpp.
  void warn_released_rule(const frontend::Stmt& stmt, int64_t ranks, const std::string& released, int64_t at,
                          const std::string& library);
  int lower_library_choice(const frontend::Stmt& stmt, const MpiMachineInfo& info, mpi::Collective collective,
                           const mpi::Layout& layout, ValueId bytes, mpi::LibraryChoice& out, std::string& library);
  // The nccl model (lower_mpi_nccl.cpp): NCCL's tuner over bandwidths the fabric gives.
  std::optional<EngineCall> lower_mpi_nccl(const frontend::Stmt& stmt, const MpiMachineInfo& info,
                                           const MpiFabricRequest& request);
  // Each rank's GPU (and host memory with staging); nullopt after a diagnostic.
  std::optional<mpi::FabricPlacement> fabric_placement(const frontend::Stmt& stmt, const MpiMachineInfo& info,
                                                       const MpiFabricRequest& request);
  // An all-reduce reduced in the switches (`algorithm = in_network`): its one pipelined round of flows on the links of
  // the reduction tree, or nullopt after a diagnostic.
  std::optional<mpi::Round> in_network_round(const frontend::Stmt& stmt, const MpiFabricRequest& request,
                                             const mpi::FabricPlacement& placement);
  // An alltoallv's blocks (lower_mpi_alltoallv.cpp): `bytes` evaluated for every pair of ranks, matrix[src * ranks
  // + dst] (0 on the diagonal), over at most kMaxAlltoallvRanks; beyond, where `bytes` reads the pair only as
  // `dst - src` (or `src - dst`) and `by_distance_ok`, once per distance: by_distance[dst - src + ranks - 1]. False
  // after an error.
  struct AlltoallvBlocks {
    std::vector<double> matrix, by_distance;
  };
  bool alltoallv_blocks(const frontend::Stmt& stmt, int64_t ranks, bool by_distance_ok, AlltoallvBlocks& out);
  // `mpi alltoallv` (lower_mpi_alltoallv.cpp): its algorithm and blocks; its size inputs appended to `inputs`, and
  // either the fitted model's `engine` or the fabric model's `request`; false after an error.
  bool lower_alltoallv(const frontend::Stmt& stmt, const MpiMachineInfo& info, const mpi::Choice& choice,
                       const mpi::Layout& layout, bool on_fabric, std::vector<ValueId>& inputs,
                       MpiFabricRequest& request, std::shared_ptr<mpi::CommEngine>& engine, std::string& title,
                       std::string& library_note);
  std::optional<EngineCall> lower_mpi_fabric(const frontend::Stmt& stmt, const MpiMachineInfo& info,
                                             const MpiFabricRequest& request);
  // Any other collective (lower_mpi_collective.cpp), with the same outputs as lower_alltoallv.
  bool lower_collective(const frontend::Stmt& stmt, const MpiMachineInfo& info, const mpi::Choice& choice,
                        const mpi::Layout& layout, bool on_fabric, int64_t ranks, std::vector<ValueId>& inputs,
                        MpiFabricRequest& request, std::shared_ptr<mpi::CommEngine>& engine, std::string& title,
                        std::string& library_note);
  // An operation's whole-number attribute in [lo, hi] (`fallback` when absent; nullopt after a diagnostic), and a
  // byte attribute (0 B when absent, an error saying `why` when `required`); lower_mpi.cpp.
  std::optional<int64_t> mpi_count(const frontend::Stmt& stmt, const char* name, int64_t lo, int64_t hi,
                                   int64_t fallback);
  ValueId mpi_bytes(const frontend::Stmt& stmt, const char* name, bool required, const char* why);

  // Loops (lower_loops.cpp): `body` runs once per value of the variable, bound in turn (its uses in the source
  // shown as that value in names); stops, with a note on the iteration, at the first iteration that reports an
  // error. False after an error. Iterations count against kMaxLoopIterations unless `count_work` is false.
  bool for_each_iteration(const frontend::LetDecl& var, const frontend::Expr& lo, const frontend::Expr& hi,
                          SourceRange loop, const std::vector<SourceRange>& uses, const std::function<bool(int64_t)>& body,
                          bool count_work = true);
  std::vector<SourceRange> loop_uses(const frontend::Stmt& loop) const;
  std::vector<SourceRange> loop_uses(const frontend::FlowItem& loop) const;
  void lower_into(const frontend::AppDecl& app, const frontend::Stmt& stmt, std::vector<Task>& out);
  bool walk_flows(const std::vector<frontend::FlowItem>& items, const std::function<void(const frontend::FlowItem&)>& visit,
                  bool count_work);

  // App helpers (lower_app.cpp).
  Task lower_stmt(const frontend::AppDecl& app, const frontend::Stmt& stmt);
  void warn_shared_links(const frontend::Stmt& par, const Task& task);
  void warn_shared_gpus(const frontend::Stmt& par, const Task& task);
  // A `par` whose branches are copies that share a link: one congestion-engine task of their flows, or the par
  // itself (with warn_shared_links' warning where they share a link it cannot price). lower_par_copies.cpp.
  Task share_par_copies(const frontend::Stmt& par, Task task);
  void check_fits(int gpu, ValueId bytes, SourceRange site, const std::string& what, const char* who = "copy");
  // What one rank of an MPI operation must hold on its GPU is at most the largest `mem_size` of the machine's GPUs
  // (checked at evaluation, ExceedsMemory; unchecked where a GPU declares none). lower_app.cpp.
  void check_rank_buffer(const frontend::Stmt& stmt, ValueId bytes, const std::string& what);
  Task lower_run(const frontend::AppDecl& app, const frontend::Stmt& stmt);
  Task lower_copy(const frontend::Stmt& stmt);
  Task lower_peer_copy(const frontend::Stmt& stmt, Task task, ValueId bytes);  // lower_peer_copy.cpp
  Task lower_staged_peer_copy(const frontend::Stmt& stmt, Task task, ValueId bytes, int src, int dst);
  bool peer_access(int gpu, SourceRange site);
  Task lower_mapped_run(const frontend::Stmt& stmt, Task kernel, int gpu);      // lower_mapped_run.cpp
  struct PathCost {
    ValueId lo, bw, gap;  // L+O (sum), bandwidth (minimum), LogGP gap (maximum; kNoValue when no link has one)
  };
  PathCost path_cost(const std::vector<Hop>& path);
  // The router's view of a link (ir::Router): its latency and bandwidth at the bound values. Only links of routes
  // that tie on the number of links are asked, and their parameters then shape the module.
  LinkCostFn link_costs();
  // What the MPI fabric engines of one lowering share (lower_mpi_fabric.cpp): one router, made with link_costs(),
  // that keeps its routes (statements among the same ranks ask for the same ones), and the components' names.
  ir::Router& fabric_router();
  std::shared_ptr<const std::vector<std::string>> component_names();
  // Both, with the flow limit of flows_fit ("its messages make"): a refused build sets *too_large (ModelTooLarge).
  mpi::FabricShared fabric_shared(bool* too_large);
  std::string route_name(int from, const std::vector<Hop>& path) const;
  Task lower_flows(const frontend::Stmt& stmt);  // lower_congestion.cpp
  // Each link's arbitration (the one declared `on` its type, else the machine's default, else max-min) and the
  // PCIe arbitration's `tau` (kNoValue when none is declared). lower_congestion.cpp.
  engines::congestion::FabricMap fabric_map(ValueId& tau);
  Task lower_offload(const frontend::Stmt& stmt);  // lower_offload.cpp
  // A pinned copy over streams (Task::split) as its pieces for a `par` (Task::flow_form; none when its stream count is
  // not a whole number from 1 to 4096). lower_app.cpp.
  Task split_copy(const Task& copy);
  // A pageable copy over streams (Task::split with a staging memory) as its per-stream copies, one after another, for
  // a `par` (none when its stream count is not a whole number from 1 to 4096). lower_app.cpp.
  std::vector<Task> split_pageable_copy(const Task& copy);
  // Eq. 6 (a kernel reading and writing host memory through device-mapped memory) as flows for a `par`
  // (Task::flow_form): the kernel, its reads and its writes side by side after the host-to-device L+o, then the
  // device-to-host L+o; each direction's accesses at most at `cap` (kNoValue: the links'), none where its bytes are
  // kNoValue. lower_mapped_run.cpp.
  void eq6_flow_form(Task& task, const std::string& name, int gpu, int memory,
                     const std::vector<std::pair<int32_t, int32_t>> route[2], const ValueId lo[2], ValueId b_hd,
                     ValueId b_dh, ValueId kernel, const ValueId cap[2]);
  void add_offload_waits(const frontend::Stmt& stmt, int streams, std::vector<engines::OverlapOp>& ops);
  Task lower_stream_copy(const frontend::Stmt& stmt, Task task, ValueId host_bw, ValueId lo, ValueId bytes, ValueId bw,
                         ValueId gap);
  int gpu_for(const std::optional<frontend::CompRef>& on, SourceRange site);
  ValueId gpu_attr(int gpu, const std::string& attr, SourceRange site, const std::string& why);
  // The GPU attribute of a kernel's `precision` (peak_fp64 by default); empty, with an error, for another precision.
  std::string peak_attr_name(const frontend::Attr* precision);

  const frontend::CheckedProgram& program_;
  const support::SourceManager& sources_;
  DiagnosticEngine& diags_;
  Module& m_;
  Builder b_;
  const ParamBindings& bindings_;
  std::map<const frontend::Decl*, ValueId> decl_values_;
  std::vector<const frontend::ParamDecl*> slot_decls_;
  std::vector<FnEnv> fn_stack_;
  std::map<std::pair<const frontend::FnDecl*, std::vector<ValueId>>, ValueId> inlined_;
  long inline_work_ = 0;
  std::vector<double> eager_;
  std::vector<bool> shape_seen_;  // instructions whose parameters are already in Module::shape_slots
  std::map<std::string, ValueId> type_attr_cache_;
  std::set<std::string> known_paths_;
  std::set<std::pair<int, ValueId>> checked_;
  std::map<std::string, int> component_of_path_;
  KeywordSettings keywords_;
  std::shared_ptr<MpiMachineInfo> mpi_;
  std::string strategy_override_;
  const mpi::OpenmpiRules* openmpi_rules_ = nullptr;
  support::FileId openmpi_rules_file_ = support::kNoFile;
  bool openmpi_rules_refused_ = false;
  bool han_warned_ = false;  // Open MPI 5's `han` component across nodes: said once (lower_mpi_library.cpp)
  std::unique_ptr<ir::Router> fabric_router_;
  std::shared_ptr<const std::vector<std::string>> component_names_;
  // The fabric engines built so far, by what decides them (lower_mpi_fabric.cpp): statements alike share one.
  std::map<std::string, std::shared_ptr<mpi::FabricCommEngine>> fabric_engines_;
  // A fabric-model operation solved on one period (its fast path) whose messages are few enough to be written out
  // in a `par` (kParMpiFlows): what builds it with every flow (lower_mpi.h), and that engine once built.
  std::map<const mpi::FabricCommEngine*, std::shared_ptr<FabricWholeSpec>> fabric_whole_;
  // The engine whose flows a `par` writes out for `e`: itself, or without its fast path (null: none can be built).
  std::shared_ptr<const mpi::FabricCommEngine> fabric_unrolled(const std::shared_ptr<const mpi::FabricCommEngine>& e);
  ValueId largest_gpu_memory_ = kNoValue;  // check_rank_buffer's bound, made once
  bool gpu_memory_looked_ = false;
  // The nccl model's rings over a node's direct GPU links (lower_mpi_nccl.cpp), by the node's GPUs and the channels
  // asked for: searched once for every operation.
  std::map<std::pair<std::vector<int>, int64_t>, std::vector<std::vector<int>>> nccl_rings_;
  bool fabric_overhead_warned_ = false;  // the AssumedZero warning of a fabric model without `overhead`, said once
  bool tcp_mtu_warned_ = false, tcp_stack_warned_ = false;  // `transport = tcp`'s warnings, said once a run
  int64_t loop_work_ = 0;                                     // iterations expanded so far
  std::vector<std::pair<SourceRange, std::string>> loop_text_;  // uses of bound loop variables -> their values
};

}  // namespace gpm::lower
