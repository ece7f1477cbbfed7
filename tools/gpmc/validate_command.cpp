// validate_command.cpp: `gpmc validate MACHINE APP --measured FILE.csv`: predictions beside measurements, MAPE, WMAPE.
#include <iostream>

#include "tools/gpmc/commands.h"
#include "validate/csv_table.h"
#include "validate/validation.h"
#include "validate/validation_report.h"

namespace gpm::cli {

int run_validate(const CommonOptions& common, const ValidateOptions& options) {
  driver::Session session(options_of(common));
  std::vector<driver::Setting> settings;
  if (!parse_settings(options.sets, settings, session.diags())) return fail(session);
  auto compiled = session.compile(options.machine, options.app, settings);
  if (!compiled) return fail(session);
  validate::CsvTable table;
  if (!validate::read_csv_table(options.measured, "measurements", session.sources(), session.diags(), table))
    return fail(session);
  validate::Validation validation;
  validation.machine = compiled->owners[0]->name;
  validation.app = compiled->owners[1]->name;
  auto backend = options.backend == "jit" ? validate::Backend::Jit : validate::Backend::Interp;
  if (!validate::validate_points(session, *compiled, table, backend, validation)) return fail(session);
  session.diags().flush(std::cerr);  // warnings
  validation.provenance = provenance_json(session, options.sets);
  std::cout << (options.format == "json" ? validate::validation_json(validation)
                                         : validate::validation_table(validation));
  return 0;
}

}  // namespace gpm::cli
