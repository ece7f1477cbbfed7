// search_summary.cpp: the JSON summary of a congestion search (gpmc search --format json, the Python module).
#include "driver/search_summary.h"

namespace gpm::driver {

nlohmann::ordered_json search_summary_json(const ir::Module& m, const engines::congestion::CongestionEngine& engine,
                                           const engines::congestion::CongestionEngine::SearchResult& result) {
  const auto& flows = engine.flows();
  nlohmann::ordered_json doc;
  doc["machine"] = m.machine_name;
  doc["app"] = m.app_name;
  doc["orders"] = result.orders;
  doc["fastest_s"] = result.fastest_s;
  doc["median_s"] = result.median_s;
  doc["slowest_s"] = result.slowest_s;
  doc["slowest_over_fastest"] = result.slowest_s / result.fastest_s;
  doc["slowest_over_median"] = result.slowest_s / result.median_s;
  doc["fastest_index"] = result.fastest_index;
  doc["slowest_index"] = result.slowest_index;
  nlohmann::ordered_json order;
  for (size_t s = 0; s < result.fastest_order.size(); ++s) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (int f : result.fastest_order[s]) list.push_back(flows[size_t(f)].name);
    order[result.source_names[s]] = list;
  }
  doc["fastest_order"] = order;
  return doc;
}

}  // namespace gpm::driver
