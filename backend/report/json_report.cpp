// json_report.cpp: the JSON document of `gpmc eval --format json` (contract in docs/output.md).
#include <nlohmann/json.hpp>

#include "backend/report/report.h"
#include "support/units.h"

namespace gpm::backend {

using Json = nlohmann::ordered_json;

std::string json_report(const Evaluation& e) {
  auto share = [&](double part) { return e.total_s > 0 ? part / e.total_s : 0.0; };
  Json doc;
  doc["machine"] = e.machine;
  doc["app"] = e.app;
  doc["total_s"] = e.total_s;
  Parts parts = iteration_parts(e);
  doc["iterations"] = parts.iterations;
  doc["parts"] = {{"communication_s", parts.communication_s}, {"kernels_s", parts.kernels_s},
                  {"overhead_s", parts.overhead_s}};
  Json phases = Json::array();
  for (const auto& phase : e.phases) {
    Json p;
    p["name"] = phase.name;
    p["time_s"] = phase.time_s;
    p["share"] = share(phase.time_s);
    p["model"] = phase.model;
    Json ops = Json::array();
    for (const auto& row : phase.rows) {
      Json r;
      r["name"] = row.name;
      r["kind"] = row.is_block ? "block" : "operation";
      r["model"] = row.model;
      r["bound"] = row.bound;
      r["depth"] = row.depth;
      r["count"] = row.count;
      r["time_each_s"] = row.each_s;
      r["time_s"] = row.total_s;
      r["share"] = share(row.total_s);
      Json terms = Json::array();
      for (const auto& t : row.terms)
        terms.push_back({{"name", t.name}, {"value", t.value.value}, {"dimension", support::dim_name(t.value.dim)}});
      r["terms"] = terms;
      if (!row.detail.is_null()) r["detail"] = row.detail;
      ops.push_back(r);
    }
    p["operations"] = ops;
    phases.push_back(p);
  }
  doc["phases"] = phases;
  if (Json flows = flows_json(e); !flows.is_null()) doc["flows"] = flows;
  if (Json links = links_json(e); !links.is_null()) doc["links"] = links;
  Json params = Json::array();
  for (const auto& p : e.params)
    params.push_back({{"name", p.name},
                      {"owner", p.owner},
                      {"value", p.word.empty() ? Json(p.value.value) : Json(p.word)},
                      {"dimension", p.word.empty() ? support::dim_name(p.value.dim) : std::string("word")},
                      {"overridden", p.overridden}});
  doc["params"] = params;
  // Located warnings (docs/output.md): present only when the run reported some.
  if (e.warnings.is_array() && !e.warnings.empty()) doc["warnings"] = e.warnings;
  if (!e.provenance.is_null()) doc["provenance"] = e.provenance;
  return doc.dump(2) + "\n";
}

}  // namespace gpm::backend
