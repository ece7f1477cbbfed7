// ast.h: the abstract syntax tree of a .gpm file; every node carries its SourceRange.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/source_manager.h"
#include "support/units.h"

namespace gpm::frontend {

// The support layer (units, sources, diagnostics, suggestions) is named unqualified throughout the frontend.
using namespace gpm::support;

// The static type of an expression: a quantity of some dimension, or a truth value.
struct Type {
  enum class Tag { Quantity, Bool, Error } tag = Tag::Error;
  Dim dim;
  static Type quantity(Dim d) { return {Tag::Quantity, d}; }
  static Type boolean() { return {Tag::Bool, {}}; }
  static Type error() { return {Tag::Error, {}}; }
  bool is_error() const { return tag == Tag::Error; }
  bool is_bool() const { return tag == Tag::Bool; }
  bool is_quantity() const { return tag == Tag::Quantity; }
};

enum class ExprKind { Number, Bool, Name, Call, Unary, Chain, Binary, If };
// Operators. Chains hold runs of + - or * / ; Binary holds ^, comparisons, and, or.
enum class Op { Add, Sub, Mul, Div, Pow, Neg, Plus, Not, Lt, Le, Gt, Ge, Eq, Ne, And, Or };
const char* op_spelling(Op op);

struct Decl;

struct Expr {
  ExprKind kind;
  SourceRange range;
  // Number: value in base units (s, B, flop), its dimension and the literal's spelling.
  double value = 0;
  Dim literal_dim;
  std::string text;
  // Name and Call: the identifier.
  std::string name;
  SourceRange name_range;
  // Operands: Unary {x}; Binary {lhs, rhs}; Chain {x0, x1, ...}; Call: args; If {cond, then, else}.
  std::vector<std::unique_ptr<Expr>> operands;
  Op op = Op::Add;                 // Unary and Binary
  std::vector<Op> chain_ops;       // Chain: the operator before operands[i + 1]
  std::vector<std::string> arg_names;  // Call: "" for a positional argument
  bool parenthesized = false;
  // Filled in by sema.
  Type type;
  const Decl* target = nullptr;  // Name: the param, let or fn parameter; Call: the fn (null for builtins)
  int fn_param_index = -1;       // Name inside a fn body: which parameter
};
using ExprPtr = std::unique_ptr<Expr>;

enum class DeclKind { Import, Table, Param, Let, Fn, Type, Machine, App };

struct Decl {
  DeclKind kind;
  std::string name;
  SourceRange range;
  SourceRange name_range;
  FileId file = kNoFile;
  virtual ~Decl() = default;

 protected:
  Decl(DeclKind k) : kind(k) {}
};

struct ImportDecl : Decl {
  ImportDecl() : Decl(DeclKind::Import) {}
  std::string path;  // as written, without quotes
};

// `table name = "file.csv"`: a CSV file of numbers, read by the loader (frontend/table_file.cpp); `name(i, j)` is
// the number at row i, column j, from 0.
struct TableDecl : Decl {
  TableDecl() : Decl(DeclKind::Table) {}
  std::string path;         // as written, without quotes
  SourceRange path_range;   // the string
  std::string resolved;     // the file read, as diagnostics show it; set by the loader
  FileId table_file = kNoFile;  // the file's text in the source manager, for diagnostics at its cells
  bool loaded = false;      // false when the file could not be read (reported)
  size_t rows = 0, cols = 0;
  std::vector<double> cells;  // row by row
};

struct ParamDecl : Decl {
  ParamDecl() : Decl(DeclKind::Param) {}
  ExprPtr value;
  ExprPtr range_lo, range_hi;  // optional `in lo .. hi`
  // A word parameter (`param direction = h2d in {h2d, d2h}`): its words in declared order. Sema replaces
  // `value` by the index of the default word; the IR holds the index, a count.
  std::vector<std::string> words;
  std::vector<SourceRange> word_ranges;
  Type type;                   // set by sema
  bool is_word() const { return !words.empty(); }
};

struct LetDecl : Decl {
  LetDecl() : Decl(DeclKind::Let) {}
  ExprPtr value;
  Type type;
};

struct DimTypeSyntax {
  std::string text;
  SourceRange range;
  std::optional<Dim> dim;  // empty when the builder reported it invalid
};

struct FnParam {
  std::string name;
  SourceRange range;
  DimTypeSyntax type;
};

struct FnDecl : Decl {
  FnDecl() : Decl(DeclKind::Fn) {}
  std::vector<FnParam> params;
  DimTypeSyntax result;
  ExprPtr body;
};

struct ParamDecl;

struct Attr {
  std::string name;
  SourceRange name_range;
  ExprPtr value;
  // A keyword attribute (`algorithm = alg`) whose value names a word parameter: set by sema, read by lowering.
  const ParamDecl* word_param = nullptr;
};

struct TypeDecl : Decl {
  TypeDecl() : Decl(DeclKind::Type) {}
  std::string component_kind;
  SourceRange kind_range;
  std::vector<Attr> attrs;
};

// `s[0].p9`, `g[*]`, `gpu[1]`.
struct RefPart {
  std::string name;
  SourceRange range;
  ExprPtr index;  // null when absent
  bool star = false;
};
struct CompRef {
  std::vector<RefPart> parts;
  SourceRange range;
};

struct ComponentDecl {
  std::string kind;
  SourceRange kind_range;
  std::string name;
  SourceRange name_range;
  ExprPtr count;  // array size, null when not an array
  std::string type_name;
  SourceRange type_range;
  std::vector<Attr> attrs;
  SourceRange range;
};

struct LinkPair {
  CompRef a, b;
  bool bidirectional = true;
  SourceRange range;
};

struct LinkDecl {
  std::vector<LinkPair> pairs;
  std::string type_name;
  SourceRange type_range;
  std::vector<Attr> attrs;
  SourceRange range;
};

struct SocketDecl;
// What a node or socket body holds, in source order.
struct NodeItem {
  enum class Kind { Component, Socket, Link, Attr } kind;
  std::unique_ptr<ComponentDecl> component;
  std::unique_ptr<SocketDecl> socket;
  std::unique_ptr<LinkDecl> link;
  std::unique_ptr<Attr> attr;
};

struct SocketDecl {
  std::string name;
  SourceRange name_range;
  ExprPtr count;
  std::vector<NodeItem> items;
  SourceRange range;
};

struct NodeDecl {
  std::vector<NodeItem> items;
  SourceRange range;
};

// `arbitration KIND [on LINKTYPE] { attrs }`: how the links of a fabric share their bandwidth among flows.
struct ArbitrationDecl {
  std::string kind;  // pcie | maxmin
  SourceRange kind_range;
  std::string link_type;  // empty: every link no other arbitration names
  SourceRange link_type_range;
  std::vector<Attr> attrs;
  SourceRange range;
};

// A machine's `mpi { ... }` section: attributes and fits such as `inter_node eager postal(2.86 us, 1.55e-10 s/B)`.
struct MpiFit {
  std::string locality, protocol, model;
  SourceRange locality_range, protocol_range, model_range, range;
  std::vector<ExprPtr> args;
};
struct MpiDecl {
  std::vector<Attr> attrs;
  std::vector<MpiFit> fits;
  SourceRange range;
};
// A machine's `network { ... }` section: the topology between its nodes (a fat tree), for MPI messages.
struct NetworkDecl {
  std::vector<Attr> attrs;
  SourceRange range;
};
struct MachineDecl : Decl {
  MachineDecl() : Decl(DeclKind::Machine) {}
  std::vector<std::unique_ptr<ParamDecl>> params;
  std::vector<std::unique_ptr<LetDecl>> lets;
  std::vector<Attr> attrs;
  std::vector<std::unique_ptr<NodeDecl>> nodes;  // exactly one is valid; sema reports others
  std::vector<ArbitrationDecl> arbitrations;
  std::vector<std::unique_ptr<MpiDecl>> mpi;     // at most one is valid; sema reports others
  std::vector<std::unique_ptr<NetworkDecl>> networks;  // at most one is valid; sema reports others
  std::vector<std::unique_ptr<NetworkDecl>> clusters;  // `cluster { ... }` (attributes alone, as a network section)
};

struct DataDecl {
  std::vector<std::pair<std::string, SourceRange>> names;
  std::string placement;  // host | device
  SourceRange placement_range;
  std::string host_kind;  // pinned | pageable | "" for device
  SourceRange host_kind_range;
  ExprPtr size;
  SourceRange range;
};

struct KernelDecl {
  std::string name;
  SourceRange name_range;
  std::optional<CompRef> on;
  std::vector<Attr> attrs;
  SourceRange range;
};

// One flow of a `flows` block: source, destination, size, and a start time or the flow it waits for. Or a pattern
// of flows among the members of a set (`all_to_all h[*] 1 MB`), expanded by the lowering. Or a loop over flows
// (`for i in 0 .. 6 { ... }`, `loop_var` set), whose body the lowering repeats once per value.
struct FlowItem {
  std::string label;  // empty when unlabelled
  SourceRange label_range;
  CompRef src, dst;
  std::string pattern;  // all_to_all, ring, shift, pairs or permutation; empty for one flow
  SourceRange pattern_range;
  ExprPtr pattern_arg;  // `shift(K)`, `pairs(D)`, `permutation(SEED)`; null when absent
  CompRef members;      // the pattern's endpoints, in component order
  ExprPtr bytes;
  ExprPtr start;  // `at`; null when absent
  std::string after;  // `after`; empty when absent
  SourceRange after_range;
  std::unique_ptr<LetDecl> loop_var;  // a loop: its variable (a count, bound by the lowering), bounds and body
  ExprPtr loop_lo, loop_hi;
  std::vector<FlowItem> body;
  SourceRange range;
};

// A cross-stream dependency of an offload: `kernel after h2d(next), h2d(first)`: in every stream, `op` waits
// for each target operation of the stream that `which` names (first, previous, next, last or all).
struct OffloadWaitTarget {
  std::string op, which;
  SourceRange op_range, which_range;
};
struct OffloadWait {
  std::string op;
  SourceRange op_range;
  std::vector<OffloadWaitTarget> targets;
  SourceRange range;
};

enum class StmtKind { Run, Copy, Seq, Par, Iterate, Phase, Overhead, Flows, Mpi, Offload, For };

struct Stmt {
  StmtKind kind;
  SourceRange range;
  std::string name;  // Run: kernel; Phase: phase name; Mpi: the operation (halo, allreduce...)
  SourceRange name_range;
  std::string direction;  // Copy: h2d | d2h | d2d
  SourceRange direction_range;
  std::string host_kind;  // Copy: pinned | pageable | ""
  SourceRange host_kind_range;
  ExprPtr expr;  // Copy: bytes or buffer; Iterate: count; Overhead: time; For: the first value
  ExprPtr expr_hi;                    // For: the last value (included)
  std::unique_ptr<LetDecl> loop_var;  // For: the loop's variable, a count bound once per iteration by the lowering
  // Mpi alltoallv (made by sema): `src` and `dst`, counts visible in its `bytes` only, bound to each pair of ranks in
  // turn by the lowering.
  std::unique_ptr<LetDecl> pair_src, pair_dst;
  std::optional<CompRef> on;
  // Copy p2p (`copy p2p SIZE from REF to REF`): the two GPUs, and whether the words between were `from` and `to`.
  std::optional<CompRef> peer_from, peer_to;
  std::string peer_word;        // the first of the two words that is not `from` / `to`, when one is not
  SourceRange peer_word_range;
  // Copy h2d/d2h: the host memory written after `from` (h2d) or `to` (d2h); absent: the memory nearest the GPU.
  std::optional<CompRef> host_memory;
  std::string host_memory_word;  // `from` or `to` as written
  SourceRange host_memory_word_range;
  std::vector<Attr> attrs;  // Copy: `{ streams = N }`; Run: `{ mapped_in = ...; mapped_out = ... }`; Offload, Mpi
  std::string strategy;     // Offload: explicit | implicit | streams | hybrid (set by sema)
  std::vector<OffloadWait> waits;  // Offload: cross-stream dependencies
  // Set by sema where a word parameter stands for the word: a copy's direction and host memory kind, an
  // offload's strategy; the lowering takes the parameter's value.
  const ParamDecl* direction_param = nullptr;
  const ParamDecl* host_kind_param = nullptr;
  const ParamDecl* strategy_param = nullptr;
  std::vector<std::unique_ptr<Stmt>> body;
  std::vector<FlowItem> flows;  // Flows
  bool unordered = false;       // Flows: each source's flows may go in any order (gpmc search)
  // Filled in by sema for a copy whose operand names a data buffer.
  const DataDecl* buffer = nullptr;
};

struct AppDecl : Decl {
  AppDecl() : Decl(DeclKind::App) {}
  std::vector<std::unique_ptr<ParamDecl>> params;
  std::vector<std::unique_ptr<LetDecl>> lets;
  std::vector<std::unique_ptr<DataDecl>> data;
  std::vector<std::unique_ptr<KernelDecl>> kernels;
  std::vector<std::unique_ptr<Stmt>> body;
};

// One parsed file.
struct Module {
  FileId file = kNoFile;
  std::string path;  // as displayed
  std::vector<std::unique_ptr<Decl>> decls;  // top-level declarations in source order
};

}  // namespace gpm::frontend
