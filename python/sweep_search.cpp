// sweep_search.cpp: sweep and search for the Python module, as `gpmc sweep --format json` and `gpmc search --format
// json` compute them (tools/gpmc/sweep_command.cpp, search.cpp), every point or order kept in memory.
#include <unistd.h>

#include <algorithm>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "backend/report/report.h"
#include "driver/search_summary.h"
#include "driver/sweep.h"
#include "engines/congestion/engine.h"
#include "python/api.h"

namespace gpm::python {

namespace {

std::string value_text(const driver::SweepAxis& axis, double value) {
  return axis.is_word() ? axis.words[size_t(value)] : support::format_quantity(value, axis.dim);
}

// A point's value of each varied parameter: a word parameter's word, else the number in base units.
Json coordinates_json(const driver::Sweep& sweep, uint64_t index) {
  std::vector<double> at(sweep.axes().size());
  sweep.coordinates(index, at.data());
  Json point;
  for (size_t k = 0; k < at.size(); ++k) {
    const auto& axis = sweep.axes()[k];
    if (axis.is_word()) point[axis.name] = axis.words[size_t(at[k])];
    else point[axis.name] = at[k];
  }
  return point;
}

// Why point `index` is invalid: the interpreter's first diagnostic, located, as the CSV's error column says it; with
// `strict`, throws Failure with all of them instead.
std::string point_error(driver::Session& session, const driver::Sweep& sweep, uint64_t index, bool strict) {
  std::set<int32_t> varied;
  for (const auto& axis : sweep.axes())
    if (axis.slot >= 0) varied.insert(int32_t(axis.slot));
  backend::Evaluation ignored;
  support::DiagnosticEngine diags(session.sources());
  if (backend::evaluate(sweep.module_at(index), sweep.bound_at(index), strict ? session.diags() : diags, ignored,
                        &varied))
    throw std::logic_error("sweep: a point the interpreter accepts was found invalid");
  if (strict) {
    std::vector<double> where(sweep.axes().size());
    sweep.coordinates(index, where.data());
    std::string point;
    for (size_t k = 0; k < where.size(); ++k)
      point += fmt::format("{}{}={}", k ? ", " : "", sweep.axes()[k].name, value_text(sweep.axes()[k], where[k]));
    session.diags().note({}, fmt::format("at sweep point {} ({})", index + 1, point));
    fail(session.diags());
  }
  const support::Diagnostic& first = diags.diagnostics().front();
  auto at = diags.location(first.range);
  std::string message = at.path.empty() ? "" : fmt::format("{}:{}:{}: ", at.path, at.line, at.column);
  return message + first.message + " [" + support::diag_kind_name(first.kind) + "]";
}

// The Engine tasks of the tree whose engine is a congestion engine with an open order.
void find_unordered(const ir::Module& m, const ir::Task& t, std::vector<const ir::Task*>& out) {
  if (t.kind == ir::TaskKind::Engine && t.engine_call >= 0) {
    auto* e = dynamic_cast<const engines::congestion::CongestionEngine*>(m.engine_calls[size_t(t.engine_call)].engine.get());
    if (e && e->unordered()) out.push_back(&t);
  }
  for (const auto& c : t.children) find_unordered(m, c, out);
}

}  // namespace

Json sweep(const Request& request, const std::string& machine, const std::string& app, const SweepRequest& options) {
  if (options.backend != "interp" && options.backend != "jit")
    throw std::invalid_argument(fmt::format("backend `{}`: interp or jit", options.backend));
  driver::Session session(options_of(request));
  auto& diags = session.diags();
  std::vector<driver::VarySpec> specs(options.varies.size());
  for (size_t k = 0; k < specs.size(); ++k)
    if (!driver::parse_vary(options.varies[k], specs[k], diags)) fail(diags);
  auto compiled = driver::compile_sweep_base(session, machine, app, settings_of(request, diags), specs);
  if (!compiled) fail(diags);
  std::vector<driver::SweepAxis> axes;
  uint64_t max_points = options.max_points ? options.max_points : driver::kDefaultMaxPoints;
  if (!driver::plan_axes(session, *compiled, specs, max_points, axes)) fail(diags);
  auto backend = options.backend == "interp" ? driver::Sweep::Backend::Interp : driver::Sweep::Backend::Jit;
  std::vector<std::unique_ptr<driver::Compiled>> shaped;
  std::unique_ptr<driver::Sweep> owner;
  if (std::none_of(axes.begin(), axes.end(), [](const driver::SweepAxis& a) { return a.shape; })) {
    owner = std::make_unique<driver::Sweep>(compiled->module, compiled->bound, std::move(axes), backend);
  } else {
    std::vector<driver::SweepVariant> variants;
    std::vector<uint32_t> variant_of_group;
    if (!driver::compile_shape_variants(session, *compiled, axes, shaped, variants, variant_of_group)) fail(diags);
    owner = std::make_unique<driver::Sweep>(std::move(variants), std::move(variant_of_group), std::move(axes), backend);
  }
  const driver::Sweep& sweep = *owner;
  Json doc;
  doc["machine"] = compiled->module.machine_name;
  doc["app"] = compiled->module.app_name;
  doc["varied"] = Json::array();
  for (const auto& axis : sweep.axes())
    doc["varied"].push_back({{"name", axis.name}, {"dimension", axis.is_word() ? "word" : support::dim_name(axis.dim)}});
  doc["phases"] = driver::sweep_phase_names(session.sources(), compiled->module, shaped);
  doc["provenance"] = provenance_json({&session.sources()}, {}, request.sets, options.varies);
  doc["warnings"] = diagnostics_json(diags, true);

  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  size_t p = sweep.phase_count();
  Json points = Json::array();
  uint64_t errors = 0;
  auto add_rows = [&](uint64_t begin, uint64_t end, const double* totals, const double* phases) {
    for (uint64_t i = begin; i < end; ++i) {
      Json point = coordinates_json(sweep, i);
      point["total_s"] = totals[i - begin];
      point["phases_s"] = std::vector<double>(phases + (i - begin) * p, phases + (i - begin + 1) * p);
      points.push_back(std::move(point));
    }
  };
  const uint64_t batch = 1 << 16;
  std::vector<double> totals(batch), phases(batch * p);
  for (uint64_t start = 0; start < sweep.size(); start += batch) {
    uint64_t begin = start, end = std::min(sweep.size(), start + batch);
    // run() fills the buffers from its own `begin`: totals[i - begin].
    int64_t invalid = sweep.run(begin, end, threads, totals.data(), phases.data());
    while (invalid >= 0) {
      add_rows(begin, uint64_t(invalid), totals.data(), phases.data());
      Json point = coordinates_json(sweep, uint64_t(invalid));
      point["total_s"] = nullptr;
      point["phases_s"] = nullptr;
      point["error"] = point_error(session, sweep, uint64_t(invalid), options.strict);
      points.push_back(std::move(point));
      ++errors;
      begin = uint64_t(invalid) + 1;
      if (begin >= end) break;
      invalid = sweep.run(begin, end, threads, totals.data(), phases.data());
    }
    if (begin < end) add_rows(begin, end, totals.data(), phases.data());
  }
  doc["points"] = std::move(points);
  doc["errors"] = errors;
  return doc;
}

SearchResult search(const Request& request, const std::string& machine, const std::string& app, int threads,
                    uint64_t max_orders, bool keep_makespans) {
  namespace cg = engines::congestion;
  driver::Session session(options_of(request));
  auto& diags = session.diags();
  auto compiled = compile(session, request, machine, app);
  backend::Evaluation evaluation;  // checks every value and evaluates the written order once
  if (!session.evaluate(*compiled, evaluation)) fail(diags);
  const ir::Module& m = compiled->module;
  std::vector<const ir::Task*> blocks;
  find_unordered(m, m.root, blocks);
  if (blocks.size() != 1) {
    diags.error(support::DiagKind::NothingToSearch, blocks.empty() ? support::SourceRange{} : blocks[1]->range,
                blocks.empty()
                    ? fmt::format("app `{}` has no `flows unordered {{ ... }}` block: nothing to search", m.app_name)
                    : fmt::format("app `{}` has {} `flows unordered` blocks; a search varies one", m.app_name,
                                  blocks.size()));
    fail(diags);
  }
  const ir::EngineCall& call = m.engine_calls[size_t(blocks[0]->engine_call)];
  const auto& engine = static_cast<const cg::CongestionEngine&>(*call.engine);
  uint64_t orders = engine.order_count();
  if (orders > max_orders) {
    diags.error(support::DiagKind::TooManyOrders, blocks[0]->range,
                orders == UINT64_MAX
                    ? fmt::format("this block has more orders than can be counted; the search is refused")
                    : fmt::format("this block has {} orders, more than max_orders {}; raise max_orders to evaluate "
                                  "them all",
                                  orders, max_orders));
    fail(diags);
  }
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  double have = pages > 0 && page > 0 ? double(pages) * double(page) : 0;
  double need = double(orders) * sizeof(double) * (keep_makespans ? 3 : 1);  // and a Python float each
  if (have > 0 && need > have / 2) {
    diags.error(support::DiagKind::TooManyOrders, blocks[0]->range,
                fmt::format("this block has {} orders, whose makespans need {} of memory, more than half of this "
                            "machine's; search fewer flows at a time",
                            orders, support::format_quantity(need, support::Dim::byte())));
    fail(diags);
  }
  std::vector<double> values = backend::compute_values(m, compiled->bound);
  std::vector<double> inputs;
  for (ir::ValueId v : call.inputs) inputs.push_back(values[size_t(v)]);
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  auto result = engine.search(inputs, threads, nullptr, keep_makespans);
  if (!result.error.empty()) {
    diags.error(support::DiagKind::EngineError, blocks[0]->range, result.error);
    fail(diags);
  }
  Json doc = driver::search_summary_json(m, engine, result);
  doc["provenance"] = provenance_json({&session.sources()}, {}, request.sets);
  doc["warnings"] = diagnostics_json(diags, true);
  return {std::move(doc), std::move(result.makespans)};
}

}  // namespace gpm::python
