// sweep_command.cpp: `gpmc sweep`: plans the axes, evaluates the points in batches (split over the ranks under
// mpirun), writes CSV, JSON or a table.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/report/report.h"
#include "driver/ranks.h"
#include "driver/sweep.h"
#include "support/csv.h"
#include "support/diagnostic_format.h"
#include "tools/gpmc/commands.h"

namespace gpm::cli {

namespace {

using Clock = std::chrono::steady_clock;

// Points evaluated between two writes of rows (and, under mpirun, split over the ranks and gathered on rank 0).
constexpr uint64_t kBatch = 1 << 16;

// A coordinate as people read it: the word of a word parameter, else the quantity with its unit.
std::string value_text(const driver::SweepAxis& axis, double value) {
  return axis.is_word() ? axis.words[size_t(value)] : support::format_quantity(value, axis.dim);
}

// Writes the rows of one batch (and the header before the first) in the chosen format.
class Writer {
 public:
  Writer(const std::string& format, const driver::Sweep& sweep, const ir::Module& module,
         std::vector<std::string> phase_names, const support::SourceManager& sources)
      : format_(format), sweep_(sweep), module_(module), phase_names_(std::move(phase_names)), sources_(sources) {
    // The nccl model chooses an algorithm and protocol per point, an MPI library an algorithm: a `chosen` column
    // shows them (each such point is evaluated once more in full for it).
    choices_ = ir::has_engine(module, "mpi-nccl") || module.library_choices;
    for (uint64_t i = 0; i < sweep.size() && i < 4096 && !choices_; ++i)
      choices_ = ir::has_engine(sweep.module_at(i), "mpi-nccl") || sweep.module_at(i).library_choices;
  }

  nlohmann::ordered_json provenance;  // JSON: what produced the sweep (before its points)

  void header() {
    if (format_ == "csv") {
      std::vector<std::string> columns;
      for (const auto& axis : sweep_.axes()) columns.push_back(support::csv_field(axis.name));
      columns.push_back("total_s");
      for (const auto& name : phase_names_) columns.push_back(support::csv_field(name));
      if (choices_) columns.push_back("chosen");
      columns.push_back("error");  // empty, or why the point could not be evaluated
      out_ += fmt::format("{}\n", fmt::join(columns, ","));
    } else if (format_ == "json") {
      nlohmann::ordered_json head;
      head["machine"] = module_.machine_name;
      head["app"] = module_.app_name;
      head["varied"] = nlohmann::ordered_json::array();
      for (const auto& axis : sweep_.axes())
        head["varied"].push_back({{"name", axis.name}, {"dimension", axis.is_word() ? "word" : support::dim_name(axis.dim)}});
      head["phases"] = nlohmann::ordered_json::array();
      for (const auto& name : phase_names_) head["phases"].push_back(name);
      if (!provenance.is_null()) head["provenance"] = provenance;
      std::string text = head.dump(2);
      text.pop_back();  // reopen the object: "points" follows
      while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
      out_ += text + ",\n  \"points\": [";
    } else {
      for (const auto& axis : sweep_.axes()) table_.push_back({axis.name});
      table_.push_back({"total"});
      for (const auto& name : phase_names_) table_.push_back({name});
      if (choices_) table_.push_back({"chosen"});
    }
  }

  void rows(uint64_t begin, uint64_t end, const double* totals, const double* phases) {
    size_t dims = sweep_.axes().size(), p = sweep_.phase_count();
    std::vector<double> at(dims);
    for (uint64_t i = begin; i < end; ++i) {
      sweep_.coordinates(i, at.data());
      const double* ph = phases + (i - begin) * p;
      double total = totals[i - begin];
      if (format_ == "csv") {
        csv_coordinates(at.data());
        fmt::format_to(std::back_inserter(out_), "{}", total);
        for (size_t k = 0; k < p; ++k) fmt::format_to(std::back_inserter(out_), ",{}", ph[k]);
        if (choices_) out_ += "," + support::csv_field(choice(i));
        out_ += ",\n";
      } else if (format_ == "json") {
        nlohmann::ordered_json point = json_coordinates(at.data());
        point["total_s"] = total;
        point["phases_s"] = std::vector<double>(ph, ph + p);
        if (choices_) point["chosen"] = choice(i);
        out_ += (i == 0 ? "\n    " : ",\n    ") + point.dump();
      } else {
        size_t c = 0;
        for (size_t k = 0; k < dims; ++k) table_[c++].push_back(value_text(sweep_.axes()[k], at[k]));
        table_[c++].push_back(backend::format_seconds(total));
        for (size_t k = 0; k < p; ++k) table_[c++].push_back(backend::format_seconds(ph[k]));
        if (choices_) table_[c++].push_back(choice(i));
        errors_column_.push_back("");
      }
    }
    flush();
  }

  // The row of point `i`, which could not be evaluated: its coordinates and why (no times).
  void error_row(uint64_t i, const std::string& message) {
    ++errors;
    size_t dims = sweep_.axes().size(), p = sweep_.phase_count();
    std::vector<double> at(dims);
    sweep_.coordinates(i, at.data());
    if (format_ == "csv") {
      csv_coordinates(at.data());
      out_ += std::string(p + 1 + (choices_ ? 1 : 0), ',') + support::csv_field(message) + "\n";
    } else if (format_ == "json") {
      nlohmann::ordered_json point = json_coordinates(at.data());
      point["total_s"] = nullptr;
      point["phases_s"] = nullptr;
      point["error"] = message;
      out_ += (i == 0 ? "\n    " : ",\n    ") + point.dump();
    } else {
      size_t c = 0;
      for (size_t k = 0; k < dims; ++k) table_[c++].push_back(value_text(sweep_.axes()[k], at[k]));
      for (size_t k = 0; k <= p; ++k) table_[c++].push_back("-");
      if (choices_) table_[c++].push_back("-");
      errors_column_.push_back(message);
    }
    flush();
  }
  uint64_t errors = 0;

  void finish() {
    if (format_ == "json") out_ += (sweep_.size() ? "\n  ],\n" : "],\n") + fmt::format("  \"errors\": {}\n}}\n", errors);
    if (format_ == "table" && errors > 0) {  // the error column, when some point has one
      errors_column_.insert(errors_column_.begin(), "error");
      table_.push_back(std::move(errors_column_));
    }
    if (format_ == "table") {
      size_t rows = table_.empty() ? 0 : table_[0].size();
      for (size_t r = 0; r < rows; ++r) {
        std::string line;
        for (size_t c = 0; c < table_.size(); ++c) {
          size_t width = 0;
          for (const auto& cell : table_[c]) width = std::max(width, cell.size());
          bool left = c >= sweep_.axes().size() + 1;  // phase columns: names are long, values short
          line += (c ? "  " : "") + (left ? fmt::format("{:<{}}", table_[c][r], width)
                                          : fmt::format("{:>{}}", table_[c][r], width));
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out_ += line + "\n";
      }
    }
    flush();
  }

 private:
  // What the nccl model or an MPI library chose at point `i` (the full evaluation of that point), or empty.
  std::string choice(uint64_t i) const {
    const ir::Module& module = sweep_.module_at(i);
    if (!(ir::has_engine(module, "mpi-nccl") || module.library_choices)) return "";
    support::DiagnosticEngine diags(sources_);
    backend::Evaluation e;
    if (!backend::evaluate(module, sweep_.bound_at(i), diags, e)) return "";
    return backend::operation_choices(e);
  }
  // A point's value of each varied parameter: CSV fields (each followed by a comma), or a JSON object.
  void csv_coordinates(const double* at) {
    for (size_t k = 0; k < sweep_.axes().size(); ++k) {
      const auto& axis = sweep_.axes()[k];
      if (axis.is_word()) out_ += support::csv_field(axis.words[size_t(at[k])]) + ",";
      else fmt::format_to(std::back_inserter(out_), "{},", at[k]);
    }
  }
  nlohmann::ordered_json json_coordinates(const double* at) const {
    nlohmann::ordered_json point;
    for (size_t k = 0; k < sweep_.axes().size(); ++k) {
      const auto& axis = sweep_.axes()[k];
      if (axis.is_word()) point[axis.name] = axis.words[size_t(at[k])];
      else point[axis.name] = at[k];
    }
    return point;
  }
  void flush() {
    std::fwrite(out_.data(), 1, out_.size(), stdout);
    out_.clear();
  }
  std::string format_;
  const driver::Sweep& sweep_;
  const ir::Module& module_;
  std::vector<std::string> phase_names_;
  const support::SourceManager& sources_;
  bool choices_ = false;
  std::string out_;
  std::vector<std::vector<std::string>> table_;  // one column each, header first
  std::vector<std::string> errors_column_;        // table: each row's error ("" when none), without its header
};

// A one-line bar on stderr, redrawn at most ten times a second.
class Progress {
 public:
  Progress(bool enabled, uint64_t total) : enabled_(enabled), total_(total), start_(Clock::now()) {}
  void update(uint64_t done) {
    if (!enabled_ || done == 0) return;
    double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    double left = elapsed * double(total_ - done) / double(done);
    if (!shown_ && elapsed + left < 1.0) return;  // short work: no bar at all
    if (shown_ && elapsed - last_ < 0.1 && done < total_) return;
    last_ = elapsed;
    shown_ = true;
    int filled = int(30.0 * double(done) / double(total_));
    std::fprintf(stderr, "\r[%s%s] %5.1f%% %llu/%llu points, %.0f s left ", std::string(size_t(filled), '#').c_str(),
                 std::string(size_t(30 - filled), ' ').c_str(), 100.0 * double(done) / double(total_),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_), std::ceil(left));
  }
  // Rows going to the same terminal: erase the bar first, update() draws it again below them.
  void before_output() {
    if (shown_ && isatty(STDOUT_FILENO)) clear();
  }
  void clear() {
    if (shown_) std::fprintf(stderr, "\r%s\r", std::string(80, ' ').c_str());
  }

 private:
  bool enabled_;
  uint64_t total_;
  Clock::time_point start_;
  bool shown_ = false;
  double last_ = 0;
};

// Evaluates the share of this rank of the batch [start, end): the whole batch on one process, into totals[i - start]
// and phases[(i - start) * phase_count + k]; under mpirun a rank's share from the start of the buffers, gathered on
// rank 0 in place. Every point is computed on its own, so the values do not depend on the split. Returns the
// batch's first invalid point (NaN total) over every rank, or UINT64_MAX.
uint64_t run_batch(const driver::Sweep& sweep, const driver::Ranks& ranks, uint64_t start, uint64_t end,
                   unsigned threads, double* totals, double* phases) {
  driver::Share mine = ranks.share(start, end);
  int64_t invalid = mine.size() ? sweep.run(mine.begin, mine.end, threads, totals, phases) : -1;
  ranks.gather(totals, start, end, 1);
  ranks.gather(phases, start, end, sweep.phase_count());
  return ranks.min(invalid < 0 ? UINT64_MAX : uint64_t(invalid));
}

// The first point of [begin, end) whose total is NaN, or -1; the batch starts at point `start`.
int64_t first_invalid(const double* totals, uint64_t start, uint64_t begin, uint64_t end) {
  for (uint64_t i = begin; i < end; ++i)
    if (std::isnan(totals[i - start])) return int64_t(i);
  return -1;
}

// A rank other than 0 under mpirun: its share of every batch, sent to rank 0, which writes everything. It stops
// where rank 0 stops (--strict, at the first invalid point), with the same exit status.
int sweep_share(const driver::Sweep& sweep, const driver::Ranks& ranks, unsigned threads, bool strict) {
  std::vector<double> totals(kBatch), phases(kBatch * sweep.phase_count());
  for (uint64_t start = 0; start < sweep.size(); start += kBatch) {
    uint64_t end = std::min(sweep.size(), start + kBatch);
    if (run_batch(sweep, ranks, start, end, threads, totals.data(), phases.data()) != UINT64_MAX && strict) return 1;
  }
  return 0;
}

}  // namespace

int run_sweep(const CommonOptions& common, const SweepOptions& options) {
  driver::Ranks ranks;  // this process alone, or (under mpirun) one of the ranks sharing the points
  std::string ranks_error;
  bool joined = ranks.start(ranks_error);
  driver::Session session(options_of(common));
  auto& diags = session.diags();
  if (!joined) {
    diags.error(support::DiagKind::UsageError, {}, ranks_error);
    return fail(session);
  }
  std::vector<driver::Setting> settings;
  if (!parse_settings(options.sets, settings, diags)) return fail(session);
  std::vector<driver::VarySpec> specs(options.varies.size());
  for (size_t k = 0; k < specs.size(); ++k)
    if (!driver::parse_vary(options.varies[k], specs[k], diags)) return fail(session);
  if (options.threads > 1024) {
    diags.error(support::DiagKind::UsageError, {}, fmt::format("--threads {}: at most 1024", options.threads));
    return fail(session);
  }
  auto compiled = driver::compile_sweep_base(session, options.machine, options.app, settings, specs);
  if (!compiled) return fail(session);
  std::vector<driver::SweepAxis> axes;
  uint64_t max_points = options.max_points ? options.max_points : driver::kDefaultMaxPoints;
  if (!driver::plan_axes(session, *compiled, specs, max_points, axes)) return fail(session);

  // Parameters that shape the model (stream counts, word parameters, rank counts) are swept by compiling one
  // model per combination of their values; the fast path keeps a single model.
  auto backend = options.backend == "interp" ? driver::Sweep::Backend::Interp : driver::Sweep::Backend::Jit;
  std::vector<std::unique_ptr<driver::Compiled>> shaped;
  std::unique_ptr<driver::Sweep> sweep_owner;
  if (std::none_of(axes.begin(), axes.end(), [](const driver::SweepAxis& a) { return a.shape; })) {
    sweep_owner = std::make_unique<driver::Sweep>(compiled->module, compiled->bound, std::move(axes), backend);
  } else {
    std::vector<driver::SweepVariant> variants;
    std::vector<uint32_t> variant_of_group;
    if (!driver::compile_shape_variants(session, *compiled, axes, shaped, variants, variant_of_group))
      return fail(session);
    sweep_owner = std::make_unique<driver::Sweep>(std::move(variants), std::move(variant_of_group), std::move(axes),
                                                  backend);
  }
  const driver::Sweep& sweep = *sweep_owner;
  // --threads: per rank; by default the cores of a node are shared among its ranks.
  unsigned threads = options.threads ? options.threads : ranks.default_threads();
  if (!ranks.root()) return sweep_share(sweep, ranks, threads, options.strict);
  Writer writer(options.format, sweep, compiled->module,
                driver::sweep_phase_names(session.sources(), compiled->module, shaped), session.sources());
  session.diags().flush(std::cerr);  // warnings, before the rows
  writer.provenance = provenance_json(session, options.sets, options.varies);
  writer.header();
  Progress progress(options.progress && isatty(STDERR_FILENO), sweep.size());
  std::vector<double> totals(kBatch), phases(kBatch * sweep.phase_count());
  const size_t p = sweep.phase_count();
  for (uint64_t start = 0; start < sweep.size(); start += kBatch) {
    uint64_t begin = start, end = std::min(sweep.size(), start + kBatch);
    run_batch(sweep, ranks, start, end, threads, totals.data(), phases.data());
    int64_t invalid = first_invalid(totals.data(), start, begin, end);
    while (invalid >= 0) {
      // The rows before it are written; the interpreter says what is wrong with this point.
      writer.rows(begin, uint64_t(invalid), totals.data() + (begin - start), phases.data() + (begin - start) * p);
      std::fflush(stdout);
      progress.clear();
      backend::Evaluation ignored;
      std::vector<double> where(sweep.axes().size());
      sweep.coordinates(uint64_t(invalid), where.data());
      std::string point;
      for (size_t k = 0; k < where.size(); ++k)
        point += fmt::format("{}{}={}", k ? ", " : "", sweep.axes()[k].name, value_text(sweep.axes()[k], where[k]));
      std::set<int32_t> varied;
      for (const auto& axis : sweep.axes())
        if (axis.slot >= 0) varied.insert(int32_t(axis.slot));
      if (options.strict) {
        if (backend::evaluate(sweep.module_at(uint64_t(invalid)), sweep.bound_at(uint64_t(invalid)), diags, ignored,
                              &varied))
          throw std::logic_error("sweep: a point the interpreter accepts was found invalid");
        diags.note({}, fmt::format("at sweep point {} ({}); the rows before it are written", invalid + 1, point));
        return fail(session);
      }
      // Without --strict the point gets a row that says why, from the interpreter's first diagnostic, and the
      // sweep goes on after it.
      support::DiagnosticEngine point_diags(session.sources());
      if (backend::evaluate(sweep.module_at(uint64_t(invalid)), sweep.bound_at(uint64_t(invalid)), point_diags,
                            ignored, &varied))
        throw std::logic_error("sweep: a point the interpreter accepts was found invalid");
      const support::Diagnostic& first = point_diags.diagnostics().front();
      auto at = point_diags.location(first.range);
      std::string message = at.path.empty() ? "" : fmt::format("{}:{}:{}: ", at.path, at.line, at.column);
      writer.error_row(uint64_t(invalid), message + first.message + " [" + support::diag_kind_name(first.kind) + "]");
      begin = uint64_t(invalid) + 1;
      if (begin >= end) break;
      invalid = first_invalid(totals.data(), start, begin, end);
    }
    if (begin < end) {
      progress.before_output();
      writer.rows(begin, end, totals.data() + (begin - start), phases.data() + (begin - start) * p);
    }
    progress.update(end);
  }
  writer.finish();
  progress.clear();
  if (writer.errors > 0) {
    std::string message = fmt::format("{} of {} sweep points could not be evaluated; their rows say why (--strict "
                                      "stops at the first)",
                                      writer.errors, sweep.size());
    support::write_message(std::cerr, "note", message, "gpmc: note: " + message + "\n");
  }
  return 0;
}

}  // namespace gpm::cli
