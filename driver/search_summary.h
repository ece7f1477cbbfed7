// search_summary.h: the JSON summary of a congestion search, shared by `gpmc search --format json` and the Python
// module's search.
#pragma once
#include <nlohmann/json.hpp>

#include "engines/congestion/engine.h"
#include "ir/ir.h"

namespace gpm::driver {

// machine, app, orders, fastest/median/slowest times and their ratios, the fastest and slowest orders' indices, and
// the fastest order (each source's flows, by name, in the order it sends them).
nlohmann::ordered_json search_summary_json(const ir::Module& m, const engines::congestion::CongestionEngine& engine,
                                           const engines::congestion::CongestionEngine::SearchResult& result);

}  // namespace gpm::driver
