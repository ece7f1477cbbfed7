// project_command.cpp: `gpmc project --trace T --from A.gpm --to B.gpm`: a trace's copies priced on another node.
#include <iostream>

#include "project/copy_pricer.h"
#include "support/diagnostic_format.h"
#include "project/projection.h"
#include "project/projection_report.h"
#include "project/trace.h"
#include "tools/gpmc/commands.h"

namespace gpm::cli {

int run_project(const CommonOptions& common, const ProjectOptions& options) {
  support::SourceManager sources;
  support::DiagnosticEngine diags(sources);
  auto failed = [&]() {
    diags.flush(std::cerr);
    return 1;
  };
  project::Trace from_a, on_b;
  if (!project::read_trace(options.trace, "trace", sources, diags, from_a)) return failed();
  bool have_b = !options.measured_on_b.empty();
  if (have_b && !project::read_trace(options.measured_on_b, "trace measured on B", sources, diags, on_b))
    return failed();
  project::CopyPricer model_a(options_of(common), options.from), model_b(options_of(common), options.to);
  project::Projection projection;
  project::CopyPricer* failed_pricer = nullptr;
  if (!project::project_trace(from_a, model_a, model_b, have_b ? &on_b : nullptr, diags, projection, failed_pricer)) {
    if (failed_pricer) {
      failed_pricer->flush_errors(std::cerr);
      std::string message =
          "the errors above come from pricing the trace's copies on `" + failed_pricer->machine_file() + "`";
      support::write_message(std::cerr, "note", message, "gpmc project: " + message + " [note]\n");
    }
    return failed();
  }
  if (options.format == "json") {
    std::vector<const support::SourceManager*> inputs = {&sources};
    for (const auto* pricer : {&model_a, &model_b})
      for (const auto* s : pricer->sources()) inputs.push_back(s);
    std::cout << project::projection_json(projection,
                                          provenance_json(inputs, {options.trace, options.measured_on_b}, {}));
  } else {
    std::cout << project::projection_table(projection);
  }
  return 0;
}

}  // namespace gpm::cli
