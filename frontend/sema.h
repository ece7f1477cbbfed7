// sema.h: semantic checks over loaded modules: names, duplicates, types and units, model structure.
#pragma once
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"

namespace gpm::frontend {

// The checked view of everything loaded for one command.
struct CheckedProgram {
  std::map<std::string, const Decl*, std::less<>> globals;
  std::vector<const ParamDecl*> params;  // every param, in load order
  std::vector<const LetDecl*> lets;
  std::vector<const MachineDecl*> machines;
  std::vector<const AppDecl*> apps;
};

class Sema {
 public:
  explicit Sema(DiagnosticEngine& diags) : diags_(diags) {}
  // Checks every module; returns false when errors were reported.
  bool check(const std::vector<std::unique_ptr<Module>>& modules);
  // Types an expression in the global scope (for --set values); returns the type.
  Type check_global_expr(Expr& expr);
  const CheckedProgram& program() const { return program_; }

  // Builtin functions, resolved by name when no fn of that name exists.
  static bool is_builtin(std::string_view name);

 private:
  struct Scope {
    const FnDecl* fn = nullptr;  // inside a fn body: its parameters are visible
  };
  void collect(const Module& module);
  void declare(const Decl& decl);
  Type type_of(const Decl& decl, SourceRange use);
  void check_value_decl(const Decl& decl);
  void check_fn(const FnDecl& fn);
  void check_fn_recursion();
  void check_type_decl(const TypeDecl& type);
  void check_machine(const MachineDecl& machine);
  void check_node_items(const std::vector<NodeItem>& items, bool in_socket);
  void check_comp_ref(const CompRef& ref);
  void check_app(const AppDecl& app);
  void check_stmt(const AppDecl& app, Stmt& stmt);
  void check_attrs(const std::vector<Attr>& attrs, const std::string& owner);
  void expect_dim(Expr& expr, Dim dim, const std::string& what);

  // Expressions (sema_expr.cpp).
  Type check_expr(Expr& expr, const Scope& scope);
  Type check_name(Expr& expr, const Scope& scope);
  Type check_call(Expr& expr, const Scope& scope);
  Type check_builtin(Expr& expr, const std::vector<Type>& args);
  Type check_chain(Expr& expr, const Scope& scope);
  Type check_binary(Expr& expr, const Scope& scope);

  DiagnosticEngine& diags_;
  CheckedProgram program_;
  std::map<const Decl*, int> state_;  // 1 while a param or let is being typed, 2 when done
  std::map<const FnDecl*, std::set<const FnDecl*>> calls_;
  const FnDecl* current_fn_ = nullptr;
};

}  // namespace gpm::frontend
