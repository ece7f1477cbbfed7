// sweep_spec.cpp: --vary NAME=SPEC: splitting, resolving the parameter, parsing values with units, expansion.
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "driver/sweep.h"
#include "support/suggest.h"

namespace gpm::driver {

using support::DiagKind;

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t at; (at = s.find(sep, start)) != std::string::npos; start = at + 1) out.push_back(trim(s.substr(start, at - start)));
  out.push_back(trim(s.substr(start)));
  return out;
}

}  // namespace

bool parse_vary(const std::string& argument, VarySpec& out, support::DiagnosticEngine& diags) {
  auto usage = [&](const std::string& why) {
    diags.error(DiagKind::UsageError, {},
                fmt::format("--vary `{}` {}; write NAME=a,b,c (a list), NAME=a:b:step (linear) or NAME=a..b*factor "
                            "(geometric), units included, e.g. --vary bytes=1B..1GiB*2",
                            argument, why));
    return false;
  };
  size_t eq = argument.find('=');
  if (eq == std::string::npos || eq == 0) return usage("has no NAME=");
  out.name = trim(argument.substr(0, eq));
  out.spec = trim(argument.substr(eq + 1));
  if (out.spec.empty()) return usage("has no values");
  if (size_t dots = out.spec.find(".."); dots != std::string::npos) {
    size_t star = out.spec.rfind('*');
    if (star == std::string::npos || star < dots) return usage("is a geometric range without `*factor`");
    out.kind = VarySpec::Kind::Geometric;
    out.parts = {trim(out.spec.substr(0, dots)), trim(out.spec.substr(dots + 2, star - dots - 2)),
                 trim(out.spec.substr(star + 1))};
  } else if (out.spec.find(':') != std::string::npos) {
    out.kind = VarySpec::Kind::Linear;
    out.parts = split(out.spec, ':');
    if (out.parts.size() != 3) return usage("is a linear range without exactly three parts a:b:step");
  } else {
    out.kind = VarySpec::Kind::List;
    out.parts = split(out.spec, ',');
  }
  for (const auto& part : out.parts)
    if (part.empty()) return usage("has an empty value");
  return true;
}

std::unique_ptr<Compiled> compile_sweep_base(Session& session, const std::string& machine, const std::string& app,
                                             const std::vector<Setting>& settings, const std::vector<VarySpec>& specs) {
  auto& diags = session.diags();
  const auto mark = diags.mark();
  auto compiled = session.compile(machine, app, settings);
  if (compiled) return compiled;
  std::vector<Setting> first = settings;
  for (const auto& spec : specs) {
    if (keyword_setting_words(spec.name)) continue;  // a word setting: plan_axes refuses it beside --set
    bool set = std::any_of(settings.begin(), settings.end(), [&](const Setting& s) { return s.name == spec.name; });
    if (!set && !spec.parts.empty()) first.push_back({spec.name, spec.parts[0], "--vary"});
  }
  if (first.size() == settings.size()) return nullptr;
  if (!diags.rollback(mark)) return nullptr;  // already written out: keep what the first attempt said
  if ((compiled = session.compile(machine, app, first))) return compiled;
  std::string where;
  for (size_t k = settings.size(); k < first.size(); ++k)
    where += fmt::format("{}{}={}", where.empty() ? "" : ", ", first[k].name, first[k].value);
  diags.note({}, fmt::format("while compiling the model at the sweep's first values {}; no rows are written", where));
  return nullptr;
}

uint64_t point_count(const std::vector<SweepAxis>& axes) {
  uint64_t n = 1;
  for (const auto& axis : axes) {
    uint64_t k = axis.values.size();
    if (k != 0 && n > UINT64_MAX / k) return UINT64_MAX;
    n *= k;
  }
  return n;
}

bool plan_axes(Session& session, const Compiled& compiled, const std::vector<VarySpec>& specs, uint64_t max_points,
               std::vector<SweepAxis>& axes) {
  auto& diags = session.diags();
  auto usage = [&](const std::string& message) {
    diags.error(DiagKind::UsageError, {}, message);
    return false;
  };
  std::set<int32_t> seen;
  std::set<std::string> seen_keywords;
  double product = 1;
  auto too_many = [&] {
    return usage(fmt::format("the sweep has {:.4g} points or more, above the limit of {}; narrow the ranges, or "
                             "raise the limit with --max-points if you mean it",
                             product, max_points));
  };
  for (const auto& spec : specs) {
    SweepAxis axis;
    axis.name = spec.name;
    std::string label = "--vary " + spec.name;
    if (auto words = keyword_setting_words(spec.name)) {
      // A word-valued setting: each of its words lowers the model again (compile_shape_variants).
      if (!seen_keywords.insert(spec.name).second) return usage(fmt::format("{}: the setting is varied twice", label));
      if (compiled.keywords.count(spec.name))
        return usage(fmt::format("{}: `{}` is also given with --set; give it one way", label, spec.name));
      if (spec.kind != VarySpec::Kind::List)
        return usage(fmt::format("{}: `{}` takes words; list them, e.g. --vary {}={}", label, spec.name, spec.name,
                                 fmt::join(*words, ",")));
      axis.keyword = axis.shape = true;
      axis.words = *words;
      for (const auto& part : spec.parts) {
        auto at = std::find(words->begin(), words->end(), part);
        if (at == words->end()) {
          diags.error(DiagKind::InvalidSetValue, {},
                      fmt::format("{}={}: the value must be one of {}{}", label, part, fmt::join(*words, ", "),
                                  support::did_you_mean(part, *words)));
          return false;
        }
        axis.values.push_back(double(at - words->begin()));
      }
      product *= double(axis.values.size());
      if (!(product <= double(max_points))) return too_many();
      axes.push_back(std::move(axis));
      continue;
    }
    axis.slot = session.find_slot(compiled, "--vary", spec.name);
    if (axis.slot < 0) return false;
    const ir::ParamInfo& param = compiled.module.params[size_t(axis.slot)];
    axis.dim = param.dim;
    if (!seen.insert(axis.slot).second) return usage(fmt::format("{}: the parameter is varied twice", label));
    // A parameter that shapes the model is swept by lowering once per value (compile_shape_variants).
    axis.shape = compiled.module.shape_slots.count(axis.slot) > 0;
    axis.words = param.words;
    if (axis.is_word()) {
      if (spec.kind != VarySpec::Kind::List)
        return usage(fmt::format("{}: `{}` is a word parameter; list its words, e.g. --vary {}={}", label, spec.name,
                                 spec.name, fmt::join(param.words, ",")));
      const frontend::ParamDecl* decl = Session::param_of_slot(compiled, axis.slot);
      for (const auto& part : spec.parts) {
        double index = 0;
        if (!decl || !session.word_or_number(label, *decl, part, index)) return false;
        axis.values.push_back(index);
      }
      product *= double(axis.values.size());
      if (!(product <= double(max_points))) return too_many();
      axes.push_back(std::move(axis));
      continue;
    }
    if (const frontend::ParamDecl* decl = Session::param_of_slot(compiled, axis.slot))
      for (const auto& part : spec.parts) {
        double ignored = 0;
        if (!session.word_or_number(label, *decl, part, ignored)) return false;
      }
    std::string what = "`" + param.name + "`";
    std::vector<double> numbers;
    for (size_t k = 0; k < spec.parts.size(); ++k) {
      bool factor = spec.kind == VarySpec::Kind::Geometric && k == 2;
      double value = 0;
      if (!session.constant_value(label, factor ? "the factor" : what, factor ? support::Dim{} : param.dim,
                                  spec.parts[k], value))
        return false;
      numbers.push_back(value);
    }
    double count = double(numbers.size());
    if (spec.kind == VarySpec::Kind::Linear) {
      double a = numbers[0], b = numbers[1], step = numbers[2];
      if (step == 0 || (b - a) / step < 0)
        return usage(fmt::format("--vary {}={}: the step must be nonzero and lead from {} to {}", spec.name, spec.spec,
                                 support::format_quantity(a, param.dim), support::format_quantity(b, param.dim)));
      count = std::floor((b - a) / step + 1e-9) + 1;
    } else if (spec.kind == VarySpec::Kind::Geometric) {
      double a = numbers[0], b = numbers[1], f = numbers[2];
      if (!(a > 0 && b > 0))
        return usage(fmt::format("--vary {}={}: a geometric range needs positive ends", spec.name, spec.spec));
      if (!(f > 0) || f == 1 || (b - a) * (f - 1) < 0)
        return usage(fmt::format("--vary {}={}: the factor must be positive, not 1, and lead from {} to {}", spec.name,
                                 spec.spec, support::format_quantity(a, param.dim),
                                 support::format_quantity(b, param.dim)));
      count = std::floor(std::log(b / a) / std::log(f) + 1e-9) + 1;
    }
    product *= count;
    if (!(count <= double(max_points)) || !(product <= double(max_points))) return too_many();
    size_t n = size_t(count);
    if (spec.kind == VarySpec::Kind::List) axis.values = numbers;
    for (size_t i = 0; spec.kind == VarySpec::Kind::Linear && i < n; ++i)
      axis.values.push_back(numbers[0] + double(i) * numbers[2]);
    for (size_t i = 0; spec.kind == VarySpec::Kind::Geometric && i < n; ++i)
      axis.values.push_back(numbers[0] * std::pow(numbers[2], double(i)));
    axes.push_back(std::move(axis));
  }
  return true;
}

}  // namespace gpm::driver
