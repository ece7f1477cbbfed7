// search.cpp: `gpmc search`: evaluates every order of an app's `flows unordered` block on all threads (and under
// mpirun over the ranks) and reports the fastest, median and slowest makespans, their ratios and the fastest order.
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <chrono>
#include <iostream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/report/report.h"
#include "driver/ranks.h"
#include "driver/search_summary.h"
#include "engines/congestion/engine.h"
#include "tools/gpmc/commands.h"

namespace gpm::cli {

namespace {

namespace cg = engines::congestion;

// The Engine tasks of the tree whose engine is a congestion engine with an open order.
void find_unordered(const ir::Module& m, const ir::Task& t, std::vector<const ir::Task*>& out) {
  if (t.kind == ir::TaskKind::Engine && t.engine_call >= 0) {
    auto* e = dynamic_cast<const cg::CongestionEngine*>(m.engine_calls[size_t(t.engine_call)].engine.get());
    if (e && e->unordered()) out.push_back(&t);
  }
  for (const auto& c : t.children) find_unordered(m, c, out);
}

// A progress bar on stderr, only on a terminal and only once the search has run for a second.
// `total`: the orders of this process (its share, under mpirun), of `orders` in all.
void show_progress(const std::atomic<uint64_t>& done, uint64_t total, uint64_t orders,
                   const std::atomic<bool>& finished) {
  if (!isatty(2)) return;
  auto begin = std::chrono::steady_clock::now();
  bool shown = false;
  while (!finished.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (std::chrono::steady_clock::now() - begin < std::chrono::seconds(1)) continue;
    double share = total ? double(done.load()) / double(total) : 1;
    int filled = int(share * 40);
    std::cerr << fmt::format("\r[{}{}] {:5.1f}% of {} orders", std::string(size_t(filled), '#'),
                             std::string(size_t(40 - filled), ' '), share * 100, orders)
              << std::flush;
    shown = true;
  }
  if (shown) std::cerr << "\r" << std::string(70, ' ') << "\r" << std::flush;
}

// --orders-out: one row per order (its index, as `order #N` in the report, and its makespan in seconds, shortest
// round-trip form), after comment lines that say how an index maps to an order.
bool write_orders(std::FILE* out, const cg::CongestionEngine::SearchResult& r) {
  std::string text = "# every order of the block's flows: an index is a mixed-radix number over the sources, in\n"
                     "# order of first appearance (";
  for (size_t s = 0; s < r.source_names.size(); ++s) text += (s ? ", " : "") + r.source_names[s];
  text += "), each digit the Lehmer code of that source's permutation (0 = the order written)\n";
  text += fmt::format("# orders: {}; fastest #{}, slowest #{}\norder,makespan_s\n", r.orders, r.fastest_index,
                      r.slowest_index);
  bool ok = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  std::string chunk;
  for (size_t i = 0; i < r.makespans.size() && ok; ++i) {
    chunk += fmt::format("{},{}\n", i, r.makespans[i]);
    if (chunk.size() > (1u << 20) || i + 1 == r.makespans.size()) {
      ok = std::fwrite(chunk.data(), 1, chunk.size(), out) == chunk.size();
      chunk.clear();
    }
  }
  return std::fclose(out) == 0 && ok;
}

}  // namespace

int run_search(const CommonOptions& common, const SearchOptions& options) {
  driver::Ranks ranks;  // this process alone, or (under mpirun) one of the ranks sharing the orders
  std::string ranks_error;
  bool joined = ranks.start(ranks_error);
  driver::Session session(options_of(common));
  auto fail = [&] {
    session.diags().flush(std::cerr);
    return 1;
  };
  if (!joined) {
    session.diags().error(support::DiagKind::UsageError, {}, ranks_error);
    return fail();
  }
  std::vector<driver::Setting> settings;
  if (!parse_settings(options.eval.sets, settings, session.diags())) return fail();
  auto compiled = session.compile(options.eval.machine, options.eval.app, settings);
  if (!compiled) return fail();
  backend::Evaluation evaluation;  // checks every value and evaluates the written order once
  if (!session.evaluate(*compiled, evaluation)) return fail();
  session.diags().flush(std::cerr);  // warnings
  const ir::Module& m = compiled->module;
  std::vector<const ir::Task*> blocks;
  find_unordered(m, m.root, blocks);
  if (blocks.size() != 1) {
    session.diags().error(support::DiagKind::NothingToSearch, blocks.empty() ? support::SourceRange{} : blocks[1]->range,
                          blocks.empty() ? fmt::format("app `{}` has no `flows unordered {{ ... }}` block: nothing to "
                                                       "search",
                                                       m.app_name)
                                         : fmt::format("app `{}` has {} `flows unordered` blocks; a search varies one",
                                                       m.app_name, blocks.size()));
    return fail();
  }
  const ir::EngineCall& call = m.engine_calls[size_t(blocks[0]->engine_call)];
  const auto& engine = static_cast<const cg::CongestionEngine&>(*call.engine);
  uint64_t orders = engine.order_count();
  if (orders > options.max_orders) {
    session.diags().error(support::DiagKind::TooManyOrders, blocks[0]->range,
                          orders == UINT64_MAX
                              ? fmt::format("this block has more orders than can be counted; the search is refused")
                              : fmt::format("this block has {} orders, more than --max-orders {}; raise --max-orders "
                                            "to evaluate them all",
                                            orders, options.max_orders));
    return fail();
  }
  // Every order's makespan is kept (for the median, and twice with --orders-out): refuse a search whose list would
  // not fit in half the machine's memory before allocating it. Under mpirun rank 0 keeps them all, the others their
  // share; every rank refuses when one must.
  driver::Share mine = ranks.share(0, orders);
  {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    double have = pages > 0 && page > 0 ? double(pages) * double(page) : 0;
    double kept = double(ranks.root() ? orders : mine.size());
    double need = kept * sizeof(double) * (options.orders_out.empty() || !ranks.root() ? 1 : 2);
    bool fits = have <= 0 || need <= have / 2;
    if (!ranks.all(fits)) {
      session.diags().error(support::DiagKind::TooManyOrders, blocks[0]->range,
                            fits ? std::string("another rank's machine has too little memory for its share of the "
                                               "orders; search fewer flows at a time")
                                 : fmt::format("this block has {} orders, whose makespans need {} of memory, more "
                                               "than half of this machine's; search fewer flows at a time",
                                               orders, support::format_quantity(need, support::Dim::byte())));
      return fail();
    }
  }
  std::vector<double> values = backend::compute_values(m, compiled->bound);
  std::vector<double> inputs;
  for (ir::ValueId v : call.inputs) inputs.push_back(values[size_t(v)]);
  // --threads: per rank; by default the cores of a node are shared among its ranks.
  int threads = options.threads > 0 ? options.threads : int(ranks.default_threads());
  // The output file is opened before the search, so that a path that cannot be written costs no search (by rank 0
  // alone, which writes it).
  std::FILE* orders_file = nullptr;
  bool opened = true;
  if (!options.orders_out.empty() && ranks.root()) {
    orders_file = std::fopen(options.orders_out.c_str(), "w");
    opened = orders_file != nullptr;
    if (!opened)
      session.diags().error(support::DiagKind::UsageError, {},
                            fmt::format("--orders-out: cannot write `{}`: {}", options.orders_out, std::strerror(errno)));
  }
  if (!ranks.all(opened)) return fail();
  std::atomic<uint64_t> done{0};
  std::atomic<bool> finished{false};
  std::thread progress([&] { show_progress(done, mine.size(), orders, finished); });
  // This rank's orders; under mpirun rank 0 gathers every rank's makespans in order-index order.
  std::vector<double> makespans(size_t(ranks.root() ? orders : mine.size()));
  uint64_t first_error = engine.search_range(inputs, mine.begin, mine.end, threads, &done, makespans.data());
  finished = true;
  progress.join();
  ranks.gather(makespans.data(), 0, orders, 1);
  first_error = ranks.min(first_error);
  if (first_error != UINT64_MAX) {
    if (orders_file) std::fclose(orders_file);
    session.diags().error(support::DiagKind::EngineError, blocks[0]->range, engine.order_error(inputs, first_error));
    return fail();
  }
  if (!ranks.root()) return 0;
  auto result = engine.summarize(makespans, orders_file != nullptr);
  if (orders_file && !write_orders(orders_file, result)) {
    session.diags().error(support::DiagKind::UsageError, {},
                          fmt::format("--orders-out: writing `{}` failed", options.orders_out));
    return fail();
  }
  const auto& flows = engine.flows();
  if (options.eval.format == "json") {
    nlohmann::ordered_json doc = driver::search_summary_json(m, engine, result);
    doc["provenance"] = provenance_json(session, options.eval.sets);
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::string out = fmt::format("search of {} on {}: {} orders\n\n", m.app_name, m.machine_name, result.orders);
  out += fmt::format("fastest  {}  (order #{})\n", backend::format_seconds(result.fastest_s), result.fastest_index);
  out += fmt::format("median   {}\n", backend::format_seconds(result.median_s));
  out += fmt::format("slowest  {}  (order #{})\n", backend::format_seconds(result.slowest_s), result.slowest_index);
  out += fmt::format("\nslowest / fastest  {:.3f}x\nslowest / median   {:.3f}x\n", result.slowest_s / result.fastest_s,
                     result.slowest_s / result.median_s);
  out += "\nfastest order (each source sends its flows left to right):\n";
  for (size_t s = 0; s < result.fastest_order.size(); ++s) {
    std::string list;
    for (int f : result.fastest_order[s]) {
      std::string name = flows[size_t(f)].name;
      std::string dst = engine.component_name(flows[size_t(f)].dst);
      list += (list.empty() ? "" : ", ") + (name.find(" -> ") != std::string::npos ? dst : name);
    }
    out += fmt::format("  {}: {}\n", result.source_names[s], list);
  }
  std::cout << out;
  return 0;
}

}  // namespace gpm::cli
