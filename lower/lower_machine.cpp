// lower_machine.cpp: expands a machine's node description (sockets, arrays, types) into the topology graph.
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "frontend/schema.h"
#include "lower/lower.h"

namespace gpm::lower {

using namespace frontend;

std::optional<int> Lowerer::whole_number(const Expr& expr, const char* what) {
  double v = eager_value(lower_expr(expr));
  if (!std::isfinite(v) || v < 0 || v != std::floor(v) || v > 1e6) {
    diags_.error(DiagKind::NotAnInteger, expr.range,
                 fmt::format("{} must be a whole number from 0 to 1000000, not {}", what, v));
    return std::nullopt;
  }
  return int(v);
}

void Lowerer::add_check(CheckKind kind, ValueId value, SourceRange range, std::string what) {
  if (!checked_.insert({int(kind), value}).second) return;  // the same value is checked once
  m_.checks.push_back({kind, value, kNoValue, kNoValue, range, std::move(what)});
}

Lowerer::AttrValues Lowerer::merged_attrs(const std::string& type_name, const std::vector<Attr>& attrs) {
  AttrValues out;
  if (!type_name.empty()) {
    const auto& type = static_cast<const TypeDecl&>(*program_.globals.at(type_name));
    for (const auto& a : type.attrs) {
      std::string key = type_name + "." + a.name;
      auto it = type_attr_cache_.find(key);
      if (it == type_attr_cache_.end()) it = type_attr_cache_.emplace(key, lower_expr(*a.value)).first;
      out.values[a.name] = it->second;
      out.ranges[a.name] = a.value->range;
    }
  }
  for (const auto& a : attrs) {
    out.values[a.name] = lower_expr(*a.value);
    out.ranges[a.name] = a.value->range;
  }
  return out;
}

// Which attribute values must be positive (rates, sizes, counts) or at least not negative (times).
static std::optional<CheckKind> attribute_check(const std::string& attr) {
  if (attr == "bw" || attr == "mem_bw" || attr == "l2_bw" || attr == "shared_bw" || attr.rfind("peak_", 0) == 0 ||
      attr == "mem_size" || attr == "size" || attr == "cores" || attr == "freq")
    return CheckKind::Positive;
  if (attr == "latency" || attr == "d2d_latency" || attr == "copy_engines" || attr == "sms" || attr == "implicit_sync" ||
      attr == "kernel_issue")
    return CheckKind::NonNegative;
  return std::nullopt;
}

void Lowerer::add_components(const std::vector<NodeItem>& items, const std::string& prefix) {
  for (const auto& item : items) {
    if (item.kind == NodeItem::Kind::Socket) {
      const auto& s = *item.socket;
      std::optional<int> count = s.count ? whole_number(*s.count, "a socket count") : std::optional<int>(-1);
      if (!count) continue;
      if (*count < 0) add_components(s.items, prefix + s.name + ".");
      for (int i = 0; i < *count; ++i) add_components(s.items, fmt::format("{}{}[{}].", prefix, s.name, i));
      continue;
    }
    if (item.kind != NodeItem::Kind::Component) continue;
    const auto& c = *item.component;
    std::optional<int> count = c.count ? whole_number(*c.count, "an array size") : std::optional<int>(-1);
    if (!count) continue;
    auto attrs = merged_attrs(c.type_name, c.attrs);
    for (int i = (*count < 0 ? -1 : 0); i < (*count < 0 ? 0 : *count); ++i) {
      std::string path = i < 0 ? prefix + c.name : fmt::format("{}{}[{}]", prefix, c.name, i);
      for (const auto& [name, value] : attrs.values)
        if (auto kind = attribute_check(name))
          add_check(*kind, value, attrs.ranges[name], fmt::format("`{}` of {} `{}`", name, c.kind, path));
      if (m_.topology.components.size() >= kMaxComponents)
        throw ModelTooLarge(fmt::format("the node has more than {} components", kMaxComponents), c.name_range);
      m_.topology.components.push_back({c.kind, path, c.type_name, attrs.values, c.name_range, attrs.ranges});
    }
  }
}

// Indexes component paths and their socket prefixes (`s[0]` for `s[0].g[1]`) for name resolution.
void Lowerer::index_paths() {
  for (size_t i = 0; i < m_.topology.components.size(); ++i) {
    const std::string& path = m_.topology.components[i].path;
    component_of_path_.emplace(path, int(i));
    for (size_t dot = path.find('.'); dot != std::string::npos; dot = path.find('.', dot + 1))
      known_paths_.insert(path.substr(0, dot));
    known_paths_.insert(path);
  }
}

std::vector<int> Lowerer::resolve(const CompRef& ref, const std::string& prefix) {
  // The common case, one component named at the top (`h[3]`, `cpu`, every end of a large `flows` block): one look-up.
  if (prefix.empty() && ref.parts.size() == 1 && !ref.parts[0].star) {
    const RefPart& part = ref.parts[0];
    std::string path = part.name;
    if (part.index) {
      auto idx = whole_number(*part.index, "an index");
      if (!idx) return {};
      path += fmt::format("[{}]", *idx);
    }
    if (auto it = component_of_path_.find(path); it != component_of_path_.end()) return {it->second};
  }
  // Within a socket, names refer to the socket's own components first, then to the node's (then, in a cluster,
  // to the cluster's): `node[1].s[0].` looks in `node[1].s[0].`, `node[1].` and at the top.
  std::vector<std::string> scopes = {prefix};
  for (std::string p = prefix; !p.empty();) {
    size_t cut = p.size() >= 2 ? p.find_last_of('.', p.size() - 2) : std::string::npos;
    p = cut == std::string::npos ? "" : p.substr(0, cut + 1);
    scopes.push_back(p);
  }
  for (const auto& scope : scopes) {
    std::vector<std::string> current = {scope.empty() ? "" : scope.substr(0, scope.size() - 1)};
    for (const auto& part : ref.parts) {
      std::vector<std::string> next;
      for (const auto& base_prefix : current) {
        std::string base = base_prefix.empty() ? part.name : base_prefix + "." + part.name;
        if (part.star) {
          for (int i = 0; path_exists(fmt::format("{}[{}]", base, i)); ++i)
            next.push_back(fmt::format("{}[{}]", base, i));
        } else if (part.index) {
          auto idx = whole_number(*part.index, "an index");
          if (!idx) return {};
          std::string path = fmt::format("{}[{}]", base, *idx);
          if (!path_exists(path) && path_exists(base + "[0]")) {
            int size = 0;
            while (path_exists(fmt::format("{}[{}]", base, size))) ++size;
            diags_.error(DiagKind::IndexOutOfRange, part.range,
                         fmt::format("index {} is out of range: `{}` has {} elements", *idx, part.name, size));
            return {};
          }
          next.push_back(path);
        } else {
          next.push_back(base);
        }
      }
      current = std::move(next);
    }
    std::vector<int> found;
    for (const auto& path : current)
      if (auto it = component_of_path_.find(path); it != component_of_path_.end()) found.push_back(it->second);
    if (!found.empty() && found.size() == current.size()) return found;
  }
  std::string text = source_text(ref.range);
  // Suggest the full names that end with what was written (`g[0]` -> `s[0].g[0]`).
  std::string suggestions;
  int shown = 0;
  for (const auto& c : m_.topology.components)
    if (c.path.size() > text.size() && c.path.compare(c.path.size() - text.size() - 1, std::string::npos, "." + text) == 0 &&
        shown++ < 4)
      suggestions += (suggestions.empty() ? "" : ", ") + ("`" + c.path + "`");
  diags_.error(DiagKind::UnknownComponent, ref.range,
               fmt::format("the node has no component `{}`{}", text,
                           suggestions.empty() ? "" : "; did you mean " + suggestions + "?"));
  return {};
}

void Lowerer::add_links(const std::vector<NodeItem>& items, const std::string& prefix) {
  for (const auto& item : items) {
    if (item.kind == NodeItem::Kind::Socket) {
      const auto& s = *item.socket;
      double value = s.count ? eager_value(lower_expr(*s.count)) : -1;
      if (!std::isfinite(value) || value > 1e6 || value != std::floor(value)) continue;  // reported already
      int count = int(value);
      if (count < 0) add_links(s.items, prefix + s.name + ".");
      for (int i = 0; i < count; ++i) add_links(s.items, fmt::format("{}{}[{}].", prefix, s.name, i));
      continue;
    }
    if (item.kind != NodeItem::Kind::Link) continue;
    const auto& l = *item.link;
    auto attrs = merged_attrs(l.type_name, l.attrs);
    auto pick = [&](const char* dir, const char* both) {
      auto it = attrs.values.find(dir);
      if (it == attrs.values.end()) it = attrs.values.find(both);
      return it != attrs.values.end() ? std::make_pair(it->second, attrs.ranges[it->first])
                                      : std::make_pair(kNoValue, SourceRange{});
    };
    std::pair<ValueId, SourceRange> bw[2] = {pick("bw_fwd", "bw"), pick("bw_rev", "bw")};
    std::pair<ValueId, SourceRange> lat[2] = {pick("latency_fwd", "latency"), pick("latency_rev", "latency")};
    std::pair<ValueId, SourceRange> gap[2] = {pick("gap_fwd", "gap"), pick("gap_rev", "gap")};
    std::pair<ValueId, SourceRange> duplex[2] = {pick("bw_duplex_fwd", "bw_duplex"), pick("bw_duplex_rev", "bw_duplex")};
    std::pair<ValueId, SourceRange> mapped[2] = {pick("bw_mapped_fwd", "bw_mapped"), pick("bw_mapped_rev", "bw_mapped")};
    for (const auto& pair : l.pairs) {
      if (bw[0].first == kNoValue || (pair.bidirectional && bw[1].first == kNoValue)) {
        diags_.error(DiagKind::MissingAttribute, pair.range,
                     "a link needs a bandwidth: `bw` (both directions) or `bw_fwd` and `bw_rev`");
        continue;
      }
      std::vector<int> as = resolve(pair.a, prefix), bs = resolve(pair.b, prefix);
      if (as.empty() || bs.empty()) continue;
      if (as.size() > 1 && bs.size() > 1) {
        diags_.error(DiagKind::MisplacedDeclaration, pair.range, "only one end of a link may name several components");
        continue;
      }
      for (int a : as)
        for (int b : bs) {
          if (a == b) {
            diags_.error(DiagKind::MisplacedDeclaration, pair.range, "a link joins two different components");
            continue;
          }
          Link link;
          link.a = a;
          link.b = b;
          link.bidirectional = pair.bidirectional;
          link.type_name = l.type_name;
          link.range = pair.range;
          std::string name = fmt::format("link {} {} {}", m_.topology.components[size_t(a)].path,
                                         pair.bidirectional ? "<->" : "->", m_.topology.components[size_t(b)].path);
          for (int d = 0; d < (pair.bidirectional ? 2 : 1); ++d) {
            // Name the direction only where the two directions have values of their own.
            auto direction = [&](const std::pair<ValueId, SourceRange>* values) {
              return !pair.bidirectional || values[0].first == values[1].first ? ""
                     : d == 0                                                ? " (forward)"
                                                                             : " (reverse)";
            };
            link.bw[d] = bw[d].first;
            add_check(CheckKind::Positive, bw[d].first, bw[d].second,
                      fmt::format("the bandwidth of {}{}", name, direction(bw)));
            if (lat[d].first == kNoValue) {
              link.latency[d] = b_.constant(0, Dim::seconds(), pair.range);
            } else {
              link.latency[d] = lat[d].first;
              add_check(CheckKind::NonNegative, lat[d].first, lat[d].second,
                        fmt::format("the latency of {}{}", name, direction(lat)));
            }
            if (gap[d].first != kNoValue) {
              link.gap[d] = gap[d].first;
              add_check(CheckKind::NonNegative, gap[d].first, gap[d].second,
                        fmt::format("the gap of {}{}", name, direction(gap)));
            }
            if (duplex[d].first != kNoValue) {
              link.bw_duplex[d] = duplex[d].first;
              add_check(CheckKind::Positive, duplex[d].first, duplex[d].second,
                        fmt::format("the duplex bandwidth of {}{}", name, direction(duplex)));
            }
            if (mapped[d].first != kNoValue) {
              link.bw_mapped[d] = mapped[d].first;
              add_check(CheckKind::Positive, mapped[d].first, mapped[d].second,
                        fmt::format("the mapped bandwidth of {}{}", name, direction(mapped)));
            }
          }
          m_.topology.links.push_back(link);
        }
    }
  }
}

// Links declared between the same two components, the same way (both bidirectional, or one-way in the same
// direction), are one bundle: a transfer spreads over all of them, so the bandwidths add up per direction
// (DGX-1's double NVLinks, a GPU's links to one NVSwitch). The bundle's latency is the largest of theirs (a
// transfer striped over the links ends with the slowest), its LogGP gap the largest, and its duplex and mapped
// bandwidths the sums where every member has one. It keeps the first declaration's name and place.
void Lowerer::merge_parallel_links() {
  auto& links = m_.topology.links;
  std::map<std::tuple<int, int, bool>, size_t> first;  // (low end, high end, bidirectional) or (a, b, false)
  std::vector<Link> kept;
  kept.reserve(links.size());
  for (const Link& l : links) {
    auto key = l.bidirectional ? std::make_tuple(std::min(l.a, l.b), std::max(l.a, l.b), true)
                               : std::make_tuple(l.a, l.b, false);
    auto [it, fresh] = first.emplace(key, kept.size());
    if (fresh) {
      kept.push_back(l);
      continue;
    }
    Link& into = kept[it->second];
    into.global = into.global || l.global;
    for (int d = 0; d < (l.bidirectional ? 2 : 1); ++d) {
      int e = l.a == into.a ? d : 1 - d;  // the same direction of travel in `into`
      SourceRange r = l.range;
      into.bw[e] = b_.binary(Opcode::Add, into.bw[e], l.bw[d], r);
      into.latency[e] = b_.binary(Opcode::Max, into.latency[e], l.latency[d], r);
      auto both = [&](ValueId& a, ValueId b, Opcode op) {
        a = (a == kNoValue || b == kNoValue) ? kNoValue : b_.binary(op, a, b, r);
      };
      both(into.gap[e], l.gap[d], Opcode::Max);
      both(into.bw_duplex[e], l.bw_duplex[d], Opcode::Add);
      both(into.bw_mapped[e], l.bw_mapped[d], Opcode::Add);
    }
  }
  links = std::move(kept);
}

void Lowerer::lower_machine(const MachineDecl& machine) {
  m_.machine_name = machine.name;
  for (const auto& a : machine.attrs)
    if (a.name == "nodes") {
      m_.topology.node_count = lower_expr(*a.value);
      m_.checks.push_back({CheckKind::WholeNumber, m_.topology.node_count, kNoValue, kNoValue, a.value->range,
                           "the node count"});
      add_check(CheckKind::Positive, m_.topology.node_count, a.value->range, "the node count");
    }
  if (m_.topology.node_count == kNoValue) m_.topology.node_count = b_.constant(1, Dim::count(), machine.name_range);
  if (machine.nodes.empty()) return;
  if (!machine.clusters.empty()) {
    if (!lower_cluster(machine)) return;
  } else {
    add_components(machine.nodes[0]->items, "");
    index_paths();
    add_links(machine.nodes[0]->items, "");
  }
  merge_parallel_links();
  lower_mpi_section(machine);
}

}  // namespace gpm::lower
