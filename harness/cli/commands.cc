#include "harness/cli/commands.h"

#include <iostream>

#include "harness/cli/command_scopes.h"
#include "harness/cli/flag_scope.h"
#include "harness/cli/internal_error.h"
#include "harness/cli/models_command.h"
#include "harness/cli/output_check.h"
#include "harness/cli/results_lock.h"
#include "harness/cli/run_config.h"

namespace gradsync {

void add_commands(CLI::App& app, Commands& c) {
  app.require_subcommand(1);
  app.option_defaults()->always_capture_default();
  c.collectives = add_collectives_command(app, c.collectives_options, c.strategy_options);
  c.train = add_train_command(app, c.train_flags, c.strategy_options);
  c.sweep = add_sweep_command(app, c.sweep_options);
  c.report = add_report_command(app, c.report_options);
  c.compare = add_compare_command(app, c.compare_options);
  c.strategies = add_strategies_command(app, c.strategies_options);
  c.calibrate = add_calibrate_command(app, c.calibrate_options);
  c.simulate = add_simulate_command(app, c.simulate_options);
  c.models = add_models_command(app, c.models_as_json);
  for (CLI::App* writer : {c.collectives, c.train}) add_wait_flag(*writer, c.wait_for_writer);
}

void check_commands(const CLI::App& app, const Commands& c) {
  check_finite_numbers(app);
  if (*c.sweep) {
    (void)plan_sweep(c.sweep_options, "gradsync");
    refuse_out_of_scope(*c.sweep, sweep_flag_scopes(c.sweep_options));
    refuse_idle_train_args(c.sweep_options);
  }
  if (*c.simulate) check_simulate_command(*c.simulate, c.simulate_options);
  if (*c.train)
    refuse_out_of_scope(*c.train, train_flag_scopes(*c.train, c.train_flags, c.strategy_options));
  if (*c.collectives)
    refuse_out_of_scope(
        *c.collectives,
        collectives_flag_scopes(*c.collectives, c.collectives_options, c.strategy_options));
  if (*c.report) refuse_out_of_scope(*c.report, report_flag_scopes(c.report_options));
}

int run_plain_command(const Commands& c, const std::vector<std::string>& command_line,
                      const std::string& self) {
  enter_phase(*c.calibrate  ? Phase::calibrating
              : *c.simulate ? Phase::simulating
              : *c.sweep    ? Phase::setting_up
                            : Phase::reporting);
  if (*c.compare) return run_compare(c.compare_options, std::cout);
  if (*c.strategies) std::cout << run_strategies(c.strategies_options);
  if (*c.models) std::cout << (c.models_as_json ? models_json() : models_listing());
  if (*c.report) run_report(c.report_options, std::cout);
  if (*c.calibrate) run_calibrate(c.calibrate_options, std::cout);
  if (*c.simulate) {
    const ResultsLock lock =
        lock_output_folder(c.simulate_options.out, "gradsync simulate", c.simulate_options.wait);
    run_simulate(*c.simulate, c.simulate_options, command_line, std::cout);
  }
  if (*c.sweep) return run_sweep(c.sweep_options, self);
  return 0;
}

}  // namespace gradsync
