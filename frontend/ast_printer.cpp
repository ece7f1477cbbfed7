// ast_printer.cpp: prints declarations as an indented outline and expressions fully parenthesized.
#include "frontend/ast_printer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace gpm::frontend {

std::string print_expr(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Number: return e.text.empty() ? fmt::format("{}", e.value) : e.text;
    case ExprKind::Bool: return e.value != 0 ? "true" : "false";
    case ExprKind::Name: return e.name;
    case ExprKind::Call: {
      std::string out = e.name + "(";
      for (size_t i = 0; i < e.operands.size(); ++i) {
        if (i) out += ", ";
        if (i < e.arg_names.size() && !e.arg_names[i].empty()) out += e.arg_names[i] + " = ";
        out += print_expr(*e.operands[i]);
      }
      return out + ")";
    }
    case ExprKind::Unary:
      return fmt::format("({}{}{})", op_spelling(e.op), e.op == Op::Not ? " " : "", print_expr(*e.operands[0]));
    case ExprKind::Chain: {
      std::string out = "(" + print_expr(*e.operands[0]);
      for (size_t i = 0; i < e.chain_ops.size(); ++i)
        out += fmt::format(" {} {}", op_spelling(e.chain_ops[i]), print_expr(*e.operands[i + 1]));
      return out + ")";
    }
    case ExprKind::Binary:
      return fmt::format("({} {} {})", print_expr(*e.operands[0]), op_spelling(e.op), print_expr(*e.operands[1]));
    case ExprKind::If:
      return fmt::format("(if {} then {} else {})", print_expr(*e.operands[0]), print_expr(*e.operands[1]),
                         print_expr(*e.operands[2]));
  }
  return "?";
}

namespace {

struct Printer {
  const SourceManager& sources;
  std::string out;

  std::string at(SourceRange r) const {
    if (!r.valid()) return "";
    auto lc = sources.line_column(r.file, r.begin);
    return fmt::format("  @{}:{}", lc.line, lc.column);
  }
  void line(int depth, const std::string& text, SourceRange r = {}) {
    out += std::string(size_t(depth) * 2, ' ') + text + at(r) + "\n";
  }
  static std::string ref(const CompRef& ref) {
    std::string s;
    for (const auto& p : ref.parts) {
      if (!s.empty()) s += '.';
      s += p.name;
      if (p.star) s += "[*]";
      else if (p.index) s += "[" + print_expr(*p.index) + "]";
    }
    return s;
  }
  void attrs(int depth, const std::vector<Attr>& list) {
    for (const auto& a : list) line(depth, fmt::format("attr {} = {}", a.name, print_expr(*a.value)), a.name_range);
  }
  void param(int depth, const ParamDecl& p) {
    std::string range = p.range_lo ? fmt::format(" in {} .. {}", print_expr(*p.range_lo), print_expr(*p.range_hi)) : "";
    if (p.is_word()) range = fmt::format(" in {{{}}}", fmt::join(p.words, ", "));
    line(depth, fmt::format("param {} = {}{}", p.name, print_expr(*p.value), range), p.name_range);
  }
  void let(int depth, const LetDecl& l) { line(depth, fmt::format("let {} = {}", l.name, print_expr(*l.value)), l.name_range); }
  void node_items(int depth, const std::vector<NodeItem>& items) {
    for (const auto& item : items) {
      switch (item.kind) {
        case NodeItem::Kind::Component: {
          const auto& c = *item.component;
          std::string count = c.count ? "[" + print_expr(*c.count) + "]" : "";
          std::string type = c.type_name.empty() ? "" : " : " + c.type_name;
          line(depth, fmt::format("{} {}{}{}", c.kind, c.name, count, type), c.name_range);
          attrs(depth + 1, c.attrs);
          break;
        }
        case NodeItem::Kind::Socket: {
          const auto& s = *item.socket;
          line(depth, fmt::format("socket {}{}", s.name, s.count ? "[" + print_expr(*s.count) + "]" : ""), s.name_range);
          node_items(depth + 1, s.items);
          break;
        }
        case NodeItem::Kind::Link: {
          const auto& l = *item.link;
          std::string pairs;
          for (const auto& p : l.pairs)
            pairs += (pairs.empty() ? "" : ", ") + ref(p.a) + (p.bidirectional ? " <-> " : " -> ") + ref(p.b);
          line(depth, fmt::format("link {}{}", pairs, l.type_name.empty() ? "" : " : " + l.type_name), l.range);
          attrs(depth + 1, l.attrs);
          break;
        }
        case NodeItem::Kind::Attr:
          line(depth, fmt::format("attr {} = {}", item.attr->name, print_expr(*item.attr->value)), item.attr->name_range);
          break;
      }
    }
  }
  void flow(int depth, const FlowItem& f) {
    if (f.loop_var) {
      line(depth, fmt::format("for {} in {} .. {}", f.loop_var->name, print_expr(*f.loop_lo), print_expr(*f.loop_hi)),
           f.range);
      for (const auto& inner : f.body) flow(depth + 1, inner);
      return;
    }
    if (!f.pattern.empty()) {
      line(depth,
           fmt::format("pattern {}{} {} {}{}", f.pattern, f.pattern_arg ? "(" + print_expr(*f.pattern_arg) + ")" : "",
                       ref(f.members), print_expr(*f.bytes), f.start ? " at " + print_expr(*f.start) : ""),
           f.range);
      return;
    }
    line(depth,
         fmt::format("flow {}{} -> {} {}{}{}", f.label.empty() ? "" : f.label + ": ", ref(f.src), ref(f.dst),
                     print_expr(*f.bytes), f.start ? " at " + print_expr(*f.start) : "",
                     f.after.empty() ? "" : " after " + f.after),
         f.range);
  }
  void stmt(int depth, const Stmt& s) {
    std::string on = s.on ? " on " + ref(*s.on) : "";
    switch (s.kind) {
      case StmtKind::Run: line(depth, "run " + s.name + on, s.range); break;
      case StmtKind::Copy:
        if (s.peer_from) {
          line(depth, fmt::format("copy {} {} from {} to {}", s.direction, print_expr(*s.expr), ref(*s.peer_from),
                                  ref(*s.peer_to)),
               s.range);
          break;
        }
        line(depth, fmt::format("copy {} {}{}{}{}", s.direction, print_expr(*s.expr), s.host_kind.empty() ? "" : " " + s.host_kind, on,
                                s.host_memory ? " " + s.host_memory_word + " " + ref(*s.host_memory) : ""),
             s.range);
        break;
      case StmtKind::Seq: line(depth, "seq", s.range); break;
      case StmtKind::Par: line(depth, "par", s.range); break;
      case StmtKind::Iterate: line(depth, "iterate " + print_expr(*s.expr), s.range); break;
      case StmtKind::Phase: line(depth, "phase " + s.name, s.range); break;
      case StmtKind::For:
        line(depth, fmt::format("for {} in {} .. {}", s.loop_var->name, print_expr(*s.expr), print_expr(*s.expr_hi)),
             s.range);
        break;
      case StmtKind::Overhead: line(depth, "overhead " + print_expr(*s.expr), s.range); break;
      case StmtKind::Flows:
        line(depth, s.unordered ? "flows unordered" : "flows", s.range);
        for (const auto& f : s.flows) flow(depth + 1, f);
        break;
      case StmtKind::Mpi:
        line(depth, "mpi " + s.name, s.range);
        attrs(depth + 1, s.attrs);
        break;
      case StmtKind::Offload:
        line(depth, "offload " + s.name + on, s.range);
        for (const auto& w : s.waits) {
          std::string targets;
          for (const auto& t : w.targets) targets += (targets.empty() ? "" : ", ") + t.op + "(" + t.which + ")";
          line(depth + 1, fmt::format("wait {} after {}", w.op, targets), w.range);
        }
        break;
    }
    if (!s.attrs.empty() && s.kind != StmtKind::Mpi) attrs(depth + 1, s.attrs);  // Mpi prints its own
    for (const auto& child : s.body) stmt(depth + 1, *child);
  }
  void decl(const Decl& d) {
    switch (d.kind) {
      case DeclKind::Import: line(1, fmt::format("import \"{}\"", static_cast<const ImportDecl&>(d).path), d.range); break;
      case DeclKind::Table: {
        const auto& t = static_cast<const TableDecl&>(d);
        line(1, fmt::format("table {} = \"{}\" ({} x {})", t.name, t.path, t.rows, t.cols), t.name_range);
        break;
      }
      case DeclKind::Param: param(1, static_cast<const ParamDecl&>(d)); break;
      case DeclKind::Let: let(1, static_cast<const LetDecl&>(d)); break;
      case DeclKind::Fn: {
        const auto& f = static_cast<const FnDecl&>(d);
        std::string params;
        for (const auto& p : f.params) params += (params.empty() ? "" : ", ") + p.name + ": " + p.type.text;
        line(1, fmt::format("fn {}({}) -> {} = {}", f.name, params, f.result.text, print_expr(*f.body)), f.name_range);
        break;
      }
      case DeclKind::Type: {
        const auto& t = static_cast<const TypeDecl&>(d);
        line(1, fmt::format("type {} : {}", t.name, t.component_kind), t.name_range);
        attrs(2, t.attrs);
        break;
      }
      case DeclKind::Machine: {
        const auto& m = static_cast<const MachineDecl&>(d);
        line(1, "machine " + m.name, m.name_range);
        for (const auto& p : m.params) param(2, *p);
        for (const auto& l : m.lets) let(2, *l);
        attrs(2, m.attrs);
        for (const auto& a : m.arbitrations) {
          line(2, "arbitration " + a.kind + (a.link_type.empty() ? "" : " on " + a.link_type), a.range);
          attrs(3, a.attrs);
        }
        for (const auto& n : m.nodes) {
          line(2, "node", n->range);
          node_items(3, n->items);
        }
        for (const auto& section : m.mpi) {
          line(2, "mpi", section->range);
          attrs(3, section->attrs);
          for (const auto& f : section->fits) {
            std::string args;
            for (const auto& e : f.args) args += (args.empty() ? "" : ", ") + print_expr(*e);
            line(3, fmt::format("fit {} {} {}({})", f.locality, f.protocol, f.model, args), f.range);
          }
        }
        for (const auto& section : m.networks) {
          line(2, "network", section->range);
          attrs(3, section->attrs);
        }
        for (const auto& section : m.clusters) {
          line(2, "cluster", section->range);
          attrs(3, section->attrs);
        }
        break;
      }
      case DeclKind::App: {
        const auto& a = static_cast<const AppDecl&>(d);
        line(1, "app " + a.name, a.name_range);
        for (const auto& p : a.params) param(2, *p);
        for (const auto& l : a.lets) let(2, *l);
        for (const auto& data : a.data) {
          std::string names;
          for (const auto& [n, _] : data->names) names += (names.empty() ? "" : ", ") + n;
          line(2, fmt::format("data {} : {}{} {}", names, data->placement, data->host_kind.empty() ? "" : " " + data->host_kind,
                              print_expr(*data->size)),
               data->range);
        }
        for (const auto& k : a.kernels) {
          line(2, "kernel " + k->name + (k->on ? " on " + ref(*k->on) : ""), k->name_range);
          attrs(3, k->attrs);
        }
        for (const auto& s : a.body) stmt(2, *s);
        break;
      }
    }
  }
};

}  // namespace

std::string print_module(const Module& module, const SourceManager& sources) {
  Printer p{sources, {}};
  p.line(0, "module " + module.path);
  for (const auto& d : module.decls) p.decl(*d);
  return p.out;
}

}  // namespace gpm::frontend
