// sweep_shapes.cpp: sweeps over parameters that shape the model: one lowering per combination of their values.
#include <algorithm>
#include <map>
#include <string_view>

#include <fmt/format.h>

#include "driver/sweep.h"

namespace gpm::driver {

using support::DiagKind;

namespace {

// A sweep compiles at most this many models; each takes milliseconds to lower and compile.
constexpr uint64_t kMaxShapeVariants = 4096;

std::string value_text(const SweepAxis& axis, double value) {
  return axis.is_word() ? axis.words.at(size_t(value)) : support::format_quantity(value, axis.dim);
}

}  // namespace

bool compile_shape_variants(Session& session, const Compiled& base, std::vector<SweepAxis>& axes,
                            std::vector<std::unique_ptr<Compiled>>& owned, std::vector<SweepVariant>& variants,
                            std::vector<uint32_t>& variant_of_group) {
  auto& diags = session.diags();
  for (;;) {  // again when a variant reveals another shape parameter among the axes
    owned.clear();
    variants.clear();
    variant_of_group.clear();
    std::vector<size_t> shape;
    uint64_t groups = 1;
    for (size_t k = 0; k < axes.size(); ++k)
      if (axes[k].shape) shape.push_back(k), groups *= axes[k].values.size();
    std::string names;
    for (size_t j : shape) names += (names.empty() ? "" : ", ") + axes[j].name;
    if (groups > kMaxShapeVariants) {
      diags.error(DiagKind::UsageError, {},
                  fmt::format("the sweep needs {} compiled models, one per combination of the values of {} (they "
                              "shape the model); at most {}: vary fewer of their values at once",
                              groups, names, kMaxShapeVariants));
      return false;
    }
    std::map<std::vector<double>, uint32_t> cache;  // shape values -> variant
    bool grew = false;
    for (uint64_t g = 0; g < groups && !grew; ++g) {
      std::vector<double> values(shape.size());
      for (size_t j = shape.size(), rest = size_t(g); j-- > 0;) {
        const SweepAxis& axis = axes[shape[j]];
        values[j] = axis.values[rest % axis.values.size()];
        rest /= axis.values.size();
      }
      if (auto it = cache.find(values); it != cache.end()) {
        variant_of_group.push_back(it->second);
        continue;
      }
      std::vector<std::pair<int32_t, double>> overrides;
      lower::KeywordSettings keywords;
      std::string where;
      for (size_t j = 0; j < shape.size(); ++j) {
        const SweepAxis& axis = axes[shape[j]];
        if (axis.keyword) keywords[axis.name] = axis.words.at(size_t(values[j]));
        else overrides.emplace_back(axis.slot, values[j]);
        where += fmt::format("{}{}={}", j ? ", " : "", axis.name, value_text(axis, values[j]));
      }
      auto compiled = session.compile_variant(base, overrides, keywords);
      if (!compiled) {
        diags.note({}, fmt::format("while compiling the model for the sweep values {}; no rows are written", where));
        return false;
      }
      if (compiled->module.root.children.size() != base.module.root.children.size()) {
        diags.error(DiagKind::UsageError, {},
                    fmt::format("with {} the model has {} phases instead of {}; a sweep's rows need the same phases",
                                where, compiled->module.root.children.size(), base.module.root.children.size()));
        return false;
      }
      for (auto& axis : axes)
        if (!axis.shape && axis.slot >= 0 && compiled->module.shape_slots.count(axis.slot)) axis.shape = grew = true;
      auto index = uint32_t(variants.size());
      variants.push_back({&compiled->module, compiled->bound});
      owned.push_back(std::move(compiled));
      cache.emplace(values, index);
      variant_of_group.push_back(index);
    }
    if (!grew) return true;
  }
}

// A phase's name differs between variants where a word parameter chose an algorithm or a copy direction, which the
// name shows; the statement as written holds for every row.
std::vector<std::string> sweep_phase_names(const support::SourceManager& sources, const ir::Module& base,
                                           const std::vector<std::unique_ptr<Compiled>>& variants) {
  std::vector<std::string> names;
  for (size_t i = 0; i < base.root.children.size(); ++i) {
    const ir::Task& phase = base.root.children[i];
    bool same = true;
    for (const auto& v : variants) same = same && v->module.root.children.at(i).name == phase.name;
    if (same || !phase.range.valid()) {
      names.push_back(phase.name);
      continue;
    }
    std::string_view text = std::string_view(sources.text(phase.range.file)).substr(phase.range.begin);
    text = text.substr(0, std::min<size_t>(text.find('\n'), phase.range.end - phase.range.begin));
    std::string name;
    for (char c : text) {
      bool space = c == ' ' || c == '\t' || c == '\r';
      if (space && (name.empty() || name.back() == ' ')) continue;
      name += space ? ' ' : c;
    }
    while (!name.empty() && name.back() == ' ') name.pop_back();
    names.push_back(name);
  }
  return names;
}

}  // namespace gpm::driver
