// lower_machine.cpp: expands a machine's node description (sockets, arrays, types) into the topology graph.
#include <cmath>

#include <fmt/format.h>

#include "frontend/schema.h"
#include "ir/lower.h"

namespace gpm::ir {

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

void Lowerer::add_positive_check(ValueId value, SourceRange range, std::string what) {
  for (const auto& c : m_.checks)
    if (c.kind == CheckKind::Positive && c.value == value) return;
  m_.checks.push_back({CheckKind::Positive, value, kNoValue, kNoValue, range, std::move(what)});
}

std::map<std::string, ValueId> Lowerer::merged_attrs(const std::string& type_name, const std::vector<Attr>& attrs) {
  std::map<std::string, ValueId> out;
  if (!type_name.empty()) {
    const auto& type = static_cast<const TypeDecl&>(*program_.globals.at(type_name));
    for (const auto& a : type.attrs) {
      std::string key = type_name + "." + a.name;
      auto it = type_attr_cache_.find(key);
      if (it == type_attr_cache_.end()) it = type_attr_cache_.emplace(key, lower_expr(*a.value)).first;
      out[a.name] = it->second;
    }
  }
  for (const auto& a : attrs) out[a.name] = lower_expr(*a.value);
  return out;
}

static bool must_be_positive(const std::string& attr) {
  return attr == "bw" || attr == "mem_bw" || attr.rfind("peak_", 0) == 0 || attr == "mem_size" || attr == "size" ||
         attr == "cores" || attr == "freq";
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
      for (const auto& [name, value] : attrs)
        if (must_be_positive(name))
          add_positive_check(value, c.range, fmt::format("`{}` of {} `{}`", name, c.kind, path));
      m_.topology.components.push_back({c.kind, path, c.type_name, attrs, c.name_range});
    }
  }
}

static bool path_exists(const Topology& t, const std::string& path) {
  for (const auto& c : t.components)
    if (c.path == path || c.path.rfind(path + ".", 0) == 0) return true;
  return false;
}

std::vector<int> Lowerer::resolve(const CompRef& ref, const std::string& prefix) {
  // Within a socket, names refer to the socket's own components first, then to the node's.
  std::vector<std::string> scopes = {prefix};
  if (!prefix.empty()) scopes.push_back("");
  for (const auto& scope : scopes) {
    std::vector<std::string> current = {scope.empty() ? "" : scope.substr(0, scope.size() - 1)};
    for (const auto& part : ref.parts) {
      std::vector<std::string> next;
      for (const auto& base_prefix : current) {
        std::string base = base_prefix.empty() ? part.name : base_prefix + "." + part.name;
        if (part.star) {
          for (int i = 0; path_exists(m_.topology, fmt::format("{}[{}]", base, i)); ++i)
            next.push_back(fmt::format("{}[{}]", base, i));
        } else if (part.index) {
          auto idx = whole_number(*part.index, "an index");
          if (!idx) return {};
          std::string path = fmt::format("{}[{}]", base, *idx);
          if (!path_exists(m_.topology, path) && path_exists(m_.topology, base + "[0]")) {
            int size = 0;
            while (path_exists(m_.topology, fmt::format("{}[{}]", base, size))) ++size;
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
      if (int id = m_.topology.find(path); id >= 0) found.push_back(id);
    if (!found.empty() && found.size() == current.size()) return found;
  }
  std::string text = source_text(ref.range);
  diags_.error(DiagKind::UnknownComponent, ref.range, fmt::format("the node has no component `{}`", text));
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
      auto it = attrs.find(dir);
      if (it != attrs.end()) return it->second;
      it = attrs.find(both);
      return it != attrs.end() ? it->second : kNoValue;
    };
    ValueId bw[2] = {pick("bw_fwd", "bw"), pick("bw_rev", "bw")};
    ValueId lat[2] = {pick("latency_fwd", "latency"), pick("latency_rev", "latency")};
    for (const auto& pair : l.pairs) {
      if (bw[0] == kNoValue || (pair.bidirectional && bw[1] == kNoValue)) {
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
            link.bw[d] = bw[d];
            link.latency[d] = lat[d] != kNoValue ? lat[d] : b_.constant(0, Dim::seconds(), pair.range);
            add_positive_check(bw[d], pair.range, fmt::format("bandwidth of {}", name));
          }
          m_.topology.links.push_back(link);
        }
    }
  }
}

void Lowerer::lower_machine(const MachineDecl& machine) {
  m_.machine_name = machine.name;
  for (const auto& a : machine.attrs)
    if (a.name == "nodes") {
      m_.topology.node_count = lower_expr(*a.value);
      m_.checks.push_back({CheckKind::WholeNumber, m_.topology.node_count, kNoValue, kNoValue, a.value->range,
                           "the node count"});
      add_positive_check(m_.topology.node_count, a.name_range, "the node count");
    }
  if (m_.topology.node_count == kNoValue) m_.topology.node_count = b_.constant(1, Dim::count(), machine.name_range);
  if (machine.nodes.empty()) return;
  add_components(machine.nodes[0]->items, "");
  add_links(machine.nodes[0]->items, "");
}

}  // namespace gpm::ir
