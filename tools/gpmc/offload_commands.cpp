// offload_commands.cpp: `gpmc eval --compare strategy` (the four offload strategies ranked) and `--timeline FILE`.
#include <algorithm>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/report/report.h"
#include "engines/overlap/overlap_engine.h"
#include "tools/gpmc/commands.h"

namespace gpm::cli {

namespace {

bool has_offload(const ir::Module& m) {
  for (const auto& call : m.engine_calls)
    if (call.engine->name() == "overlap") return true;
  return false;
}

struct Ranked {
  std::string name;
  double total_s = 0;
};

}  // namespace

bool write_timeline(const backend::Evaluation& evaluation, const std::string& path, support::DiagnosticEngine& diags) {
  std::ofstream out(path, std::ios::binary);
  out << backend::timeline_json(evaluation).dump(1) << "\n";
  out.close();
  if (!out) {
    diags.error(support::DiagKind::UsageError, {}, fmt::format("--timeline: cannot write `{}`", path));
    return false;
  }
  return true;
}

int run_compare_strategies(const CommonOptions& common, const EvalOptions& options) {
  // The app as written first (its own strategy), then each strategy in the paper's order.
  const char* strategies[] = {"explicit", "implicit", "streams", "hybrid"};
  backend::Evaluation own;
  std::vector<Ranked> ranked;
  for (int i = -1; i < 4; ++i) {
    driver::Options driver_options = options_of(common);
    if (i >= 0) driver_options.strategy = strategies[i];
    driver::Session session(driver_options);
    std::vector<driver::Setting> settings;
    if (!parse_settings(options.sets, settings, session.diags())) return fail(session);
    auto compiled = session.compile(options.machine, options.app, settings);
    if (!compiled) return fail(session);
    if (i < 0 && !has_offload(compiled->module)) {
      session.diags().error(support::DiagKind::UsageError, {},
                            fmt::format("--compare strategy: app `{}` has no `offload` statement to compare",
                                        compiled->module.app_name));
      return fail(session);
    }
    backend::Evaluation evaluation;
    if (!session.evaluate(*compiled, evaluation)) return fail(session);
    if (i < 0) {
      if (!options.timeline.empty() && !write_timeline(evaluation, options.timeline, session.diags()))
        return fail(session);
      own = std::move(evaluation);
    } else {
      ranked.push_back({strategies[i], evaluation.total_s});
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) { return a.total_s < b.total_s; });
  if (options.format == "json") {
    auto doc = nlohmann::ordered_json::parse(backend::json_report(own));
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& r : ranked) list.push_back({{"name", r.name}, {"total_s", r.total_s}});
    doc["strategies"] = list;
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::string out = fmt::format("{} on {}: offload strategies, fastest first\n\n", own.app, own.machine);
  out += fmt::format("{:<6}{:<10}{:>14}{:>12}\n", "rank", "strategy", "total", "vs first");
  for (size_t k = 0; k < ranked.size(); ++k)
    out += fmt::format("{:<6}{:<10}{:>14}{:>11.3f}x\n", k + 1, ranked[k].name, backend::format_seconds(ranked[k].total_s),
                       ranked[k].total_s / ranked[0].total_s);
  std::cout << out;
  return 0;
}

}  // namespace gpm::cli
