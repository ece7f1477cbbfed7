// sema.h: semantic checks over loaded modules: names, duplicates, types and units, model structure.
#pragma once
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "support/diagnostics.h"

namespace gpm::frontend {

// The support layer (units, sources, diagnostics, suggestions) is named unqualified throughout the frontend.
using namespace gpm::support;

using SymbolTable = std::map<std::string, const Decl*, std::less<>>;

// The checked view of everything loaded for one command. Top-level declarations are global; the params
// and lets declared inside a machine or an app belong to it (`owner`) and are visible only there.
struct CheckedProgram {
  SymbolTable globals;
  std::map<const Decl*, SymbolTable> scoped;        // machine or app -> its params and lets
  std::map<const Decl*, const Decl*> owner;         // param or let -> its machine or app (absent: global)
  std::vector<const ParamDecl*> params;             // every param, in load order
  std::vector<const LetDecl*> lets;
  std::vector<const FnDecl*> fns;
  std::vector<const MachineDecl*> machines;
  std::vector<const AppDecl*> apps;
  const Decl* owner_of(const Decl* d) const {
    auto it = owner.find(d);
    return it == owner.end() ? nullptr : it->second;
  }
};

// The value of a constant integer exponent (`2`, `-1`, `(3)`), if the expression is one; a quantity
// with a dimension can only be raised to such a power.
std::optional<int> constant_integer(const Expr& expr);

class Sema {
 public:
  explicit Sema(DiagnosticEngine& diags) : diags_(diags) {}
  // Checks every module; returns false when errors were reported.
  bool check(const std::vector<Module*>& modules);
  bool check(const std::vector<std::unique_ptr<Module>>& modules) {
    std::vector<Module*> all;
    for (const auto& m : modules) all.push_back(m.get());
    return check(all);
  }
  // Types an expression in the global scope (for --set values); returns the type.
  Type check_global_expr(Expr& expr);
  const CheckedProgram& program() const { return program_; }

  // Builtin functions, resolved by name when no fn of that name exists.
  static bool is_builtin(std::string_view name);

 private:
  // The variables of the `for` loops around a statement or flow, innermost first.
  struct LoopScope {
    const LetDecl* var;
    const LoopScope* outer;
  };
  struct Scope {
    const FnDecl* fn = nullptr;     // inside a fn body: its parameters are visible
    const Decl* owner = nullptr;    // inside a machine or app: its params and lets are visible
    const LoopScope* loops = nullptr;  // inside `for` loops: their variables are visible, and hide nothing
  };
  void collect(const Module& module);
  void declare(const Decl& decl, const Decl* owner);
  const Decl* lookup(const std::string& name, const Scope& scope) const;
  Type type_of(const Decl& decl);
  // Word parameters (sema_words.cpp): the declaration, and a word position (copy direction, host memory kind,
  // offload strategy) that may name one. `resolve_word` returns the words the position can take: the written
  // word, or every word of the parameter it names (then set in `param`); empty after an error.
  Type check_word_param(ParamDecl& p);
  std::vector<std::string> resolve_word(const std::string& written, SourceRange where,
                                        const std::vector<std::string>& allowed, const std::string& what,
                                        const Scope& scope, const ParamDecl*& param);
  void check_fn(const FnDecl& fn);
  void check_recursion();
  void check_type_decl(const TypeDecl& type);
  void check_machine(const MachineDecl& machine);
  void check_node_items(const std::vector<NodeItem>& items, bool in_socket, const Scope& scope);
  void check_comp_ref(const CompRef& ref, const Scope& scope);
  void check_flow_pattern(FlowItem& f, const Scope& scope);
  void check_app(const AppDecl& app);
  void check_offload(Stmt& s, const Scope& scope);  // sema_offload.cpp
  void check_offload_waits(const Stmt& s);
  void check_stmt(const AppDecl& app, Stmt& stmt, const LoopScope* loops);
  // A `for` loop's variable (a count) and bounds; false after an error.
  bool check_loop(LetDecl& var, Expr& lo, Expr& hi, const Scope& scope);
  void check_peer_copy(const AppDecl& app, Stmt& stmt, const Scope& scope);
  // Congestion (sema_congestion.cpp): a machine's arbitration declarations and an app's `flows` blocks.
  void check_arbitrations(const MachineDecl& machine);
  void check_flows(const AppDecl& app, Stmt& stmt, const LoopScope* loops);
  void check_flow_items(Stmt& s, std::vector<FlowItem>& items, const Scope& scope,
                        const std::map<std::string, const FlowItem*>& labels, const std::vector<std::string>& names,
                        const std::set<const FlowItem*>& cycles);
  void check_attrs(const std::vector<Attr>& attrs, const std::string& owner_kind, const Scope& scope);
  void expect_dim(Expr& expr, Dim dim, const std::string& what, const Scope& scope);
  // MPI sections and operations (sema_mpi.cpp).
  void check_mpi_section(const MachineDecl& machine);
  void check_network_section(const MachineDecl& machine);
  void check_cluster_section(const MachineDecl& machine);
  void check_mpi_stmt(Stmt& stmt, const Scope& scope);
  // `bytes_scope`, when given, is where the attribute `bytes` is checked (an alltoallv's, with its pair bound).
  void check_mpi_attrs(std::vector<Attr>& attrs, const std::string& owner, const Scope& scope,
                       const Scope* bytes_scope = nullptr);

  // Expressions (sema_expr.cpp).
  Type check_expr(Expr& expr, const Scope& scope);
  Type check_name(Expr& expr, const Scope& scope);
  Type check_call(Expr& expr, const Scope& scope);
  Type check_table_call(Expr& expr, const TableDecl& table, const std::vector<Type>& args);
  Type check_builtin(Expr& expr, const std::vector<Type>& args);
  Type check_chain(Expr& expr, const Scope& scope);
  Type check_binary(Expr& expr, const Scope& scope);

  DiagnosticEngine& diags_;
  CheckedProgram program_;
  std::map<const Decl*, int> state_;  // 1 while a param or let is being typed, 2 when done
  // What each fn, param and let refers to (fns called, params and lets named), for recursion checks.
  std::map<const Decl*, std::vector<const Decl*>> uses_;
  const Decl* current_ = nullptr;  // the fn, param or let whose expression is being checked
};

}  // namespace gpm::frontend
