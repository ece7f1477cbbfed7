// sema_mpi.cpp: checks a machine's `mpi` section (attributes, fits) and the app's `mpi` operations.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "frontend/mpi_schema.h"
#include "frontend/sema.h"
#include "support/suggest.h"

namespace gpm::frontend {

namespace {

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

}  // namespace

// Attributes of an MPI section or operation: quantities of their dimension, truth values, or keywords. A keyword
// attribute takes a bare word (`algorithm = ring`) or a word parameter whose words it all takes (`algorithm = alg`
// with `param alg = ring in {ring, rabenseifner}`, noted in the attribute for lowering); `mapping` also takes
// `block(b)` and `explicit(n0, n1, ...)`.
void Sema::check_mpi_attrs(std::vector<Attr>& attrs, const std::string& owner, const Scope& scope,
                           const Scope* bytes_scope) {
  for (size_t i = 0; i < attrs.size(); ++i) {
    Attr& attr = attrs[i];
    for (size_t k = 0; k < i; ++k)
      if (attrs[k].name == attr.name) {
        diags_.error(DiagKind::DuplicateDefinition, attr.name_range, fmt::format("attribute `{}` is set twice", attr.name));
        diags_.note(attrs[k].name_range, "first set here");
      }
    const MpiAttrSpec* spec = find_mpi_attr(owner, attr.name);
    std::string where = owner == "section"   ? "an mpi section"
                        : owner == "network" ? "a network section"
                        : owner == "cluster" ? "a cluster section"
                                             : fmt::format("`mpi {}`", owner);
    if (!spec) {
      std::vector<std::string> names;
      for (const auto& s : *mpi_schema(owner)) names.push_back(s.name);
      std::string hint = did_you_mean(attr.name, names);
      diags_.error(DiagKind::UnknownAttribute, attr.name_range,
                   hint.empty() ? fmt::format("{} has no attribute `{}` (it has: {})", where, attr.name, join(names))
                                : fmt::format("{} has no attribute `{}`{}", where, attr.name, hint));
      continue;
    }
    Expr& value = *attr.value;
    switch (spec->kind) {
      case MpiAttrSpec::Kind::Quantity:
        expect_dim(value, spec->dim, fmt::format("attribute `{}`", attr.name),
                   bytes_scope && attr.name == "bytes" ? *bytes_scope : scope);
        break;
      case MpiAttrSpec::Kind::Truth: {
        Type t = check_expr(value, scope);
        if (!t.is_error() && !t.is_bool())
          diags_.error(DiagKind::TypeMismatch, value.range,
                       fmt::format("attribute `{}` is a truth value (`true` or `false`)", attr.name));
        break;
      }
      case MpiAttrSpec::Kind::Keyword: {
        if (attr.name == "library" || attr.name == "mpi_library") {  // a `library` (`mpi_library`) type's name
          const std::string& kind = attr.name;
          // An MPI library is MPICH-like (`mpi_library`: its thresholds) or Open MPI (`openmpi_library`).
          auto fits = [&](const Decl* d) {
            if (!d || d->kind != DeclKind::Type) return false;
            const std::string& k = static_cast<const TypeDecl*>(d)->component_kind;
            return k == kind || (kind == "mpi_library" && k == "openmpi_library");
          };
          const Decl* named = value.kind == ExprKind::Name && !value.parenthesized ? lookup(value.name, scope) : nullptr;
          bool ok = fits(named);
          if (!ok) {
            std::vector<std::string> libraries;
            for (const auto& [name, decl] : program_.globals)
              if (fits(decl)) libraries.push_back(name);
            diags_.error(DiagKind::UnknownType, value.range,
                         fmt::format("`{}` names {} `{}` type (one of {}){}", kind, kind == "library" ? "a" : "an",
                                     kind == "library" ? kind : "mpi_library` or `openmpi_library", join(libraries),
                                     value.kind == ExprKind::Name ? did_you_mean(value.name, libraries) : ""));
          }
          break;
        }
        auto words = mpi_words(*spec);
        bool with_args = attr.name == "mapping" && value.kind == ExprKind::Call &&
                         (value.name == "block" || value.name == "explicit");
        if (with_args) {
          if (value.name == "block" && value.operands.size() != 1)
            diags_.error(DiagKind::WrongArgumentCount, value.range, "`block(b)` takes one count: the ranks per block");
          if (value.name == "explicit" && value.operands.empty())
            diags_.error(DiagKind::WrongArgumentCount, value.range, "`explicit(...)` lists the node of each rank");
          for (size_t a = 0; a < value.arg_names.size(); ++a)
            if (!value.arg_names[a].empty())
              diags_.error(DiagKind::UnknownArgument, value.operands[a]->range,
                           fmt::format("`{}(...)` takes no named arguments", value.name));
          for (auto& arg : value.operands) expect_dim(*arg, Dim::count(), "a mapping entry", scope);
          break;
        }
        bool word = value.kind == ExprKind::Name && !value.parenthesized;
        bool known = false;
        for (const auto& w : words) known = known || (word && w == value.name);
        const Decl* named = !known && word ? lookup(value.name, scope) : nullptr;
        if (named && (named->kind == DeclKind::Param || named->kind == DeclKind::Let)) {
          resolve_word(value.name, value.range, words, attr.name, scope, attr.word_param);
        } else if (!known) {
          std::string hint = word ? did_you_mean(value.name, words) : "";
          diags_.error(DiagKind::InvalidKeyword, value.range,
                       fmt::format("`{}` must be one of {}{}{}", attr.name, join(words),
                                   attr.name == "mapping" ? " (block(b), explicit(n0, n1, ...))" : "", hint));
        }
        break;
      }
    }
  }
}

// E2E section 3.2 and Tables 2-4: a fit per locality class, protocol and model.
void Sema::check_mpi_section(const MachineDecl& machine) {
  Scope scope{nullptr, &machine};
  for (size_t i = 1; i < machine.mpi.size(); ++i)
    diags_.error(DiagKind::DuplicateDefinition, machine.mpi[i]->range, "a machine has one `mpi` section");
  if (machine.mpi.empty()) return;
  const MpiDecl& section = *machine.mpi[0];
  check_mpi_attrs(const_cast<MpiDecl&>(section).attrs, "section", scope);  // sema notes word parameters in the AST
  // The nccl model reads a library type's constants: a section that makes it the machine's default names one (an
  // operation that asks for it, or --set comm_model=nccl, is checked where it is lowered).
  const Attr* model = nullptr;
  bool has_library = false;
  for (const Attr& a : section.attrs) {
    if (a.name == "model") model = &a;
    has_library = has_library || a.name == "library";
  }
  if (model && model->value->kind == ExprKind::Name && !model->value->parenthesized && model->value->name == "nccl" &&
      !has_library)
    diags_.error(DiagKind::MissingAttribute, model->value->range,
                 "`model = nccl` prices collectives with a library's constants, and the section names no library: "
                 "give it `library = nccl_volta`, `nccl_ampere`, `nccl_hopper` or `nccl_blackwell` (stdlib/nccl.gpm) "
                 "or a library type of its own");
  const std::vector<std::string> localities = {"intra_socket", "inter_socket", "inter_node"};
  const std::vector<std::string> protocols = {"short", "eager", "rendezvous"};
  std::map<std::string, SourceRange> seen;
  for (const MpiFit& f : section.fits) {
    bool ok = true;
    auto keyword = [&](const std::string& word, SourceRange range, const std::vector<std::string>& allowed,
                       const char* what) {
      if (std::find(allowed.begin(), allowed.end(), word) != allowed.end()) return;
      diags_.error(DiagKind::InvalidKeyword, range,
                   fmt::format("unknown {} `{}` (one of {}){}", what, word, join(allowed), did_you_mean(word, allowed)));
      ok = false;
    };
    keyword(f.locality, f.locality_range, localities, "locality class");
    keyword(f.protocol, f.protocol_range, protocols, "protocol");
    keyword(f.model, f.model_range, {"postal", "maxrate"}, "model");
    if (!ok) continue;
    std::string key = f.locality + " " + f.protocol + " " + f.model;
    if (auto [it, inserted] = seen.emplace(key, f.range); !inserted) {
      diags_.error(DiagKind::DuplicateDefinition, f.range, fmt::format("the {} fit is given twice", key));
      diags_.note(it->second, "first given here");
      continue;
    }
    const Dim per_byte = Dim::seconds() / Dim::byte(), rate = Dim::byte() / Dim::seconds();
    size_t n = f.args.size();
    if (f.model == "postal" && n != 2) {
      diags_.error(DiagKind::WrongArgumentCount, f.range,
                   fmt::format("postal(alpha, beta) takes 2 values, not {} (E2E eq. 1)", n));
      continue;
    }
    if (f.model == "maxrate" && n != 2 && n != 3) {
      diags_.error(DiagKind::WrongArgumentCount, f.range,
                   fmt::format("maxrate takes (alpha, R_Cb, R_Ci) or, for short messages, (alpha, beta); not {} "
                               "values (E2E eq. 2, 3)",
                               n));
      continue;
    }
    expect_dim(*f.args[0], Dim::seconds(), "alpha", scope);
    if (n == 2) expect_dim(*f.args[1], per_byte, "beta", scope);
    if (n == 3) {
      expect_dim(*f.args[1], rate, "R_Cb", scope);
      expect_dim(*f.args[2], rate, "R_Ci", scope);
    }
  }
  if (!section.fits.empty()) {
    bool has_short = false, has_eager = false;
    for (const auto& a : section.attrs) {
      has_short = has_short || a.name == "short_max";
      has_eager = has_eager || a.name == "eager_max";
    }
    if (!has_short || !has_eager)
      diags_.error(DiagKind::MissingAttribute, section.range,
                   "an mpi section with fits needs the protocol thresholds `short_max` and `eager_max`");
  }
}

// A machine's network between nodes: a tapered fat tree (GPUDirect paper section IV-a) needs its leaf size, its
// links' bandwidth and its switches' latency; MPI operations are what use it.
void Sema::check_network_section(const MachineDecl& machine) {
  Scope scope{nullptr, &machine};
  for (size_t i = 1; i < machine.networks.size(); ++i)
    diags_.error(DiagKind::DuplicateDefinition, machine.networks[i]->range, "a machine has one `network` section");
  if (machine.networks.empty()) return;
  const NetworkDecl& section = *machine.networks[0];
  check_mpi_attrs(const_cast<NetworkDecl&>(section).attrs, "network", scope);  // as for the mpi section
  std::vector<std::string> missing;
  for (const char* name : {"topology", "nodes_per_leaf", "link_bw", "switch_latency"}) {
    bool found = false;
    for (const auto& a : section.attrs) found = found || a.name == name;
    if (!found) missing.push_back(fmt::format("`{}`", name));
  }
  if (!missing.empty())
    diags_.error(DiagKind::MissingAttribute, section.range,
                 fmt::format("a network section needs {}", join(missing)));
  if (machine.mpi.empty())
    diags_.error(DiagKind::MissingAttribute, section.range,
                 "a network section prices MPI messages between nodes; the machine has no `mpi` section");
}

// A machine's cluster: N copies of its node on a network the lowering builds (lower/lower_cluster.cpp: a fat tree of
// two or three levels, rails, or a dragonfly); the attributes as for the mpi sections, then the required ones.
void Sema::check_cluster_section(const MachineDecl& machine) {
  Scope scope{nullptr, &machine};
  for (size_t i = 1; i < machine.clusters.size(); ++i)
    diags_.error(DiagKind::DuplicateDefinition, machine.clusters[i]->range, "a machine has one `cluster` section");
  if (machine.clusters.empty()) return;
  const NetworkDecl& section = *machine.clusters[0];
  check_mpi_attrs(const_cast<NetworkDecl&>(section).attrs, "cluster", scope);
  // What the topology needs is checked here when it is written as a word; a word parameter is checked by the
  // lowering, once its value is known.
  std::string topology;
  std::vector<std::string> present;
  for (const auto& a : section.attrs) {
    present.push_back(a.name);
    if (a.name == "topology" && a.value && a.value->kind == ExprKind::Name && !a.word_param) topology = a.value->name;
  }
  bool has_topology = std::find(present.begin(), present.end(), "topology") != present.end();
  if (!has_topology || !topology.empty()) {
    ClusterAttrCheck check = check_cluster_attrs(present, topology.empty() ? "fat_tree" : topology);
    std::vector<std::string> missing;
    for (const auto& name : check.missing) missing.push_back(fmt::format("`{}`", name));
    if (!missing.empty())
      diags_.error(DiagKind::MissingAttribute, section.range,
                   fmt::format("a {}cluster section needs {}", topology == "dragonfly" ? "dragonfly " : "",
                               join(missing)));
    for (const auto& name : check.foreign)
      for (const auto& a : section.attrs)
        if (a.name == name)
          diags_.error(DiagKind::ConflictingAttributes, a.name_range,
                       fmt::format("`{}` belongs to {}; this cluster is a {}", name,
                                   topology == "dragonfly" ? "a fat tree or rail network" : "a dragonfly",
                                   topology.empty() ? "fat tree" : topology == "dragonfly" ? "dragonfly" : topology));
  }
  // A third level: `cores` and `leaves_per_pod` come together; `core_taper` needs them.
  const Attr* cores = nullptr;
  const Attr* per_pod = nullptr;
  const Attr* core_taper = nullptr;
  for (const auto& a : section.attrs) {
    if (a.name == "cores") cores = &a;
    if (a.name == "leaves_per_pod") per_pod = &a;
    if (a.name == "core_taper") core_taper = &a;
  }
  if (bool(cores) != bool(per_pod))
    diags_.error(DiagKind::MissingAttribute, (cores ? cores : per_pod)->name_range,
                 cores ? "a third level of switches (`cores`) needs `leaves_per_pod`: how many leaves share a pod's spines"
                       : "`leaves_per_pod` groups leaves under a third level of switches: it needs `cores`");
  else if (core_taper && !cores)
    diags_.error(DiagKind::MissingAttribute, core_taper->name_range,
                 "`core_taper` sizes the links to a third level of switches: it needs `cores` and `leaves_per_pod`");
  for (const auto& a : machine.attrs)
    if (a.name == "nodes") {
      diags_.error(DiagKind::ConflictingAttributes, a.name_range,
                   "a machine with a cluster section takes its node count from the cluster's `nodes`");
      diags_.note(section.range, "the cluster section");
    }
}

void Sema::check_mpi_stmt(Stmt& s, const Scope& scope) {
  if (!mpi_schema(s.name) || s.name == "section" || s.name == "network" || s.name == "cluster") {
    std::vector<std::string> ops;
    std::string all = mpi_operation_names();
    for (size_t at = 0; at <= all.size();) {
      size_t comma = all.find(", ", at);
      ops.push_back(all.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
      if (comma == std::string::npos) break;
      at = comma + 2;
    }
    diags_.error(DiagKind::InvalidKeyword, s.name_range,
                 fmt::format("unknown MPI operation `{}` (one of {}){}", s.name, all, did_you_mean(s.name, ops)));
    return;
  }
  if (s.name == "alltoallv") {
    // `bytes` is an expression of the pair of ranks: `src` and `dst` are bound in it, and only there, as a loop's
    // variable is in its body; like a loop's variable they may not hide a name of the same spelling.
    bool hides = false;
    auto bind = [&](const char* name) {
      auto v = std::make_unique<LetDecl>();
      v->name = name;
      v->range = v->name_range = s.name_range;
      v->file = s.name_range.file;
      v->type = Type::quantity(Dim::count());
      state_[v.get()] = 2;
      if (const Decl* hidden = lookup(name, scope)) {
        bool outer_loop = hidden->kind == DeclKind::Let && !static_cast<const LetDecl*>(hidden)->value;
        diags_.error(DiagKind::DuplicateDefinition, s.name_range,
                     fmt::format("`mpi alltoallv` binds `{}` in its `bytes` (the {} rank of each pair), which would "
                                 "hide the {} of that name; choose another name for it",
                                 name, std::string_view(name) == "src" ? "sending" : "receiving",
                                 outer_loop                          ? "variable of an outer loop"
                                 : hidden->kind == DeclKind::Param ? "param"
                                 : hidden->kind == DeclKind::Let   ? "let"
                                                                   : "declaration"));
        diags_.note(hidden->name_range, "declared here");
        hides = true;
      }
      return v;
    };
    s.pair_src = bind("src");
    s.pair_dst = bind("dst");
    if (hides) return;
    LoopScope dst{s.pair_dst.get(), scope.loops}, src{s.pair_src.get(), &dst};
    Scope pair = scope;
    pair.loops = &src;
    check_mpi_attrs(s.attrs, s.name, scope, &pair);
  } else {
    check_mpi_attrs(s.attrs, s.name, scope);
  }
  auto has = [&](const char* name) {
    for (const auto& a : s.attrs)
      if (a.name == name) return true;
    return false;
  };
  if (s.name == "halo" && !has("face"))
    diags_.error(DiagKind::MissingAttribute, s.name_range, "`mpi halo` needs `face`, the bytes sent to a face neighbour");
  else if (s.name != "halo" && s.name != "barrier" && !has("bytes"))
    diags_.error(DiagKind::MissingAttribute, s.name_range, fmt::format("`mpi {}` needs `bytes`", s.name));
}

}  // namespace gpm::frontend
