// lower.h: checked AST -> IR (parameters, inlined functions, machine topology, app task tree).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/sema.h"
#include "ir/ir.h"

namespace gpm::ir {

using frontend::DiagnosticEngine;

// Values given with --set, by parameter name, in base units.
using ParamBindings = std::map<std::string, double>;

class Lowerer {
 public:
  Lowerer(const frontend::CheckedProgram& program, const frontend::SourceManager& sources, DiagnosticEngine& diags,
          Module& out, const ParamBindings& bindings);
  // Every parameter and constant of the program (with range checks).
  void lower_params();
  // The machine's topology; array sizes are evaluated with the bound parameter values.
  void lower_machine(const frontend::MachineDecl& machine);
  // The app's operations as a task tree (needs the machine's topology).
  void lower_app(const frontend::AppDecl& app);
  // Lowers an expression in the global scope (used for --set values and tests).
  ValueId lower_global(const frontend::Expr& expr);
  // The value of an instruction at the bound parameter values (for topology shape and names).
  double eager_value(ValueId id);

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
  std::string source_text(SourceRange range) const;

  // Machine helpers (lower_machine.cpp).
  struct Scope;
  void add_components(const std::vector<frontend::NodeItem>& items, const std::string& prefix);
  void add_links(const std::vector<frontend::NodeItem>& items, const std::string& prefix);
  std::vector<int> resolve(const frontend::CompRef& ref, const std::string& prefix);
  std::optional<int> whole_number(const frontend::Expr& expr, const char* what);
  void add_positive_check(ValueId value, SourceRange range, std::string what);
  std::map<std::string, ValueId> merged_attrs(const std::string& type_name, const std::vector<frontend::Attr>& attrs);

  // App helpers (lower_app.cpp).
  Task lower_stmt(const frontend::AppDecl& app, const frontend::Stmt& stmt);
  Task lower_run(const frontend::AppDecl& app, const frontend::Stmt& stmt);
  Task lower_copy(const frontend::Stmt& stmt);
  int gpu_for(const std::optional<frontend::CompRef>& on, SourceRange site);
  ValueId gpu_attr(int gpu, const std::string& attr, SourceRange site, const std::string& why);

  const frontend::CheckedProgram& program_;
  const frontend::SourceManager& sources_;
  DiagnosticEngine& diags_;
  Module& m_;
  Builder b_;
  const ParamBindings& bindings_;
  std::map<const frontend::Decl*, ValueId> decl_values_;
  std::vector<FnEnv> fn_stack_;
  std::vector<double> eager_;
  std::map<std::string, ValueId> type_attr_cache_;
};

}  // namespace gpm::ir
