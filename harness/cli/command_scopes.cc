#include "harness/cli/command_scopes.h"

#include <fmt/format.h>

#include <algorithm>

#include "harness/cli/fusion_flag.h"
#include "harness/cli/split_list.h"
#include "harness/cli/sweep_plan.h"
#include "harness/results/input_text.h"
#include "strategies/core/engine.h"

namespace gradsync {
namespace {

// The entries named in "a,b,c" that the table knows (an unknown name is the
// plan's error, in its own words).
std::vector<const StrategyInfo*> known_entries(const std::string& names) {
  std::vector<const StrategyInfo*> out;
  for (const std::string& name : split_list(names, ','))
    if (const StrategyInfo* entry = strategy_named(name)) out.push_back(entry);
  return out;
}

// The scopes of train's flags that depend on the input stage and fusion
// threshold given (a malformed one is the plan's error: no scope then).
void add_train_stage_scopes(const TrainFlags& flags, std::vector<FlagScope>& scopes) {
  try {
    const bool stage = parse_input(flags.input).active();
    const std::string with_input = "train --input " + flags.input;
    const std::string needs = "is for an input stage (--input decode:TIME, read:SIZE@MBPS or jpeg)";
    scopes.push_back({"--input-threads", stage, with_input, needs});
    scopes.push_back({"--input-prefetch", stage, with_input, needs});
  } catch (const std::invalid_argument&) {
  }
  try {
    scopes.push_back({"--fusion-search-steps", parse_fusion_mb(flags.fusion_mb).automatic,
                      "train --fusion-mb " + flags.fusion_mb, "is for --fusion-mb auto"});
  } catch (const std::invalid_argument&) {
  }
}

// A sweep's run of `strategy` on `compute` with `input` and `fusion` (empty:
// not given), its --train-args after: the train command line it stands for.
std::vector<std::string> sample_run(const std::string& strategy, const std::string& compute,
                                    const std::string& input, const std::string& fusion,
                                    const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {"gradsync",  "train", "--strategy", strategy,
                                   "--compute", compute, "--input",    input};
  if (!fusion.empty()) argv.insert(argv.end(), {"--fusion-mb", fusion});
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

// The scopes of `argv` (a train command line) that do not apply and whose
// flag it gives; none when it does not parse (the run's own error says why).
std::vector<FlagScope> idle_train_scopes(const std::vector<std::string>& argv) {
  CLI::App app{"gradsync", "gradsync"};
  TrainFlags flags;
  StrategyOptions options;
  CLI::App* train = add_train_command(app, flags, options);
  std::vector<std::string> reversed(argv.rbegin(), argv.rend() - 1);  // CLI11's order, no argv[0]
  try {
    app.parse(reversed);
  } catch (const CLI::Error&) {
    return {};
  }
  std::vector<FlagScope> idle;
  for (const FlagScope& scope : train_flag_scopes(*train, flags, options))
    if (!scope.applies && flag_given(*train, scope.flag)) idle.push_back(scope);
  return idle;
}

}  // namespace

std::vector<FlagScope> train_flag_scopes(const CLI::App& train, const TrainFlags& flags,
                                         const StrategyOptions& strategy_options) {
  const ModelOptions& m = flags.plan.settings.model_options;
  const std::string compute = std::string("train --compute ") + to_string(m.compute);
  const bool emulated = m.compute == ComputeMode::emulated;
  std::vector<FlagScope> scopes = {
      {"--device", emulated, compute, "is for --compute emulated"},
      {"--device", !(m.emulate_img_per_sec > 0),
       fmt::format("train --emulate-img-per-sec {}", m.emulate_img_per_sec),
       "is for compute on a device profile, which --emulate-img-per-sec replaces"},
      {"--emulate-img-per-sec", emulated, compute, "is for --compute emulated"},
      {"--time-scale", emulated, compute, "is for --compute emulated"},
      {"--timeline-steps", !flags.plan.timeline_path.empty(), "train without --timeline",
       "is for --timeline"},
  };
  const UpdateRule rule = flags.plan.settings.optimizer.rule;
  const std::string optimizer = std::string("train --optimizer ") + to_string(rule);
  for (const char* flag : {"--beta1", "--beta2", "--adam-eps"})
    scopes.push_back({flag, rule == UpdateRule::adamw, optimizer, "is for --optimizer adamw"});
  scopes.push_back({"--momentum", rule == UpdateRule::sgd, optimizer, "is for --optimizer sgd"});
  add_train_stage_scopes(flags, scopes);
  if (const StrategyInfo* entry = strategy_named(flags.strategy)) {
    const std::vector<const StrategyInfo*> run = {entry};
    for (auto& scope :
         strategy_flag_scopes(train, run, strategy_options, "train --strategy " + flags.strategy))
      scopes.push_back(std::move(scope));
  }
  return scopes;
}

std::vector<FlagScope> collectives_flag_scopes(const CLI::App& collectives,
                                               const CollectivesOptions& o,
                                               const StrategyOptions& strategy_options) {
  // The SMPI build's own run (smpirun started it) is the smpi engine's.
  const std::string engine = engine_info().simulated ? "smpi" : o.engine;
  const bool smpi = engine == "smpi", model = engine == "model";
  const std::string given = "collectives --engine " + engine;
  const std::string for_smpi = "is for --engine smpi";
  const std::string runs = "is for the engines that run the allreduce (native, smpi)";
  std::vector<FlagScope> scopes = {
      {"--cluster", engine != "native", given, "is for --engine smpi or model"},
      {"--workers", engine != "native", given, "is for --engine smpi or model"},
      {"--topology", smpi, given, for_smpi},
      {"--mtu", smpi, given, for_smpi},
      {"--selector", smpi, given, for_smpi},
      {"--smpi-binary", smpi, given, for_smpi},
      {"--platform-dir", smpi, given, for_smpi},
      {"--shared-buffers", smpi, given, for_smpi},
      {"--reduce-rate", smpi, given, for_smpi},
      {"--hosts-per-leaf", smpi && o.topology.kind == "fat-tree",
       smpi ? "collectives --topology " + o.topology.kind : given, "is for --topology fat-tree"},
      {"--oversubscription", smpi && o.topology.kind == "fat-tree",
       smpi ? "collectives --topology " + o.topology.kind : given, "is for --topology fat-tree"},
      {"--iters", !model, given, runs},
      {"--warmup_iters", !model, given, runs},
      {"--check", !model, given, runs},
      {"--memory", !model, given, runs},
      // Under SMPI a rank that waits forever is a deadlock SimGrid reports.
      {"--timeout", !smpi, given, "is off under SMPI, where SimGrid reports a deadlock itself"},
  };
  for (const OwnedOptionFlag& owned : strategy_option_flags())
    if (model && !owned.flag->costed)
      scopes.push_back({std::string(owned.flag->flag), false, given,
                        "is not read by the cost model (it acts on real runs)"});
  // The SMPI launcher runs ps-zmq over MPI unless told a transport
  // (smpi_launch.h), so its ranks would refuse the flags of ZeroMQ's
  // transports: refused here first, in one line.
  StrategyOptions as_run = strategy_options;
  std::string strategies_given = "collectives --strategy " + o.strategies;
  if (smpi && !engine_info().simulated && !flag_given(collectives, "--ps-transport")) {
    as_run.ps.transport = "mpi";
    strategies_given = "collectives --engine smpi --strategy " + o.strategies;
  }
  for (auto& scope : strategy_flag_scopes(collectives, known_entries(o.strategies), as_run,
                                          strategies_given))
    scopes.push_back(std::move(scope));
  return scopes;
}

std::vector<FlagScope> report_flag_scopes(const ReportOptions& options) {
  return {{"--metric", options.format != "json" || !options.csv_path.empty(),
           "report --format json", "is for the markdown tables and --csv"}};
}

std::vector<FlagScope> sweep_flag_scopes(const SweepOptions& o) {
  return {{"--hostfile", o.launcher == "mpirun", "sweep --launcher " + o.launcher,
           "is for --launcher mpirun (srun places ranks in its allocation)"}};
}

void refuse_idle_train_args(const SweepOptions& o) {
  // Every kind of run the sweep makes: each of its strategies on each
  // compute, input stage and fusion threshold. A flag idle on all of them is
  // refused with the first run's reason.
  const std::vector<std::string> extra = split_list(o.train_args, ' ');
  std::vector<std::string> fusions = split_list(o.fusion_mb, ',');
  if (fusions.empty()) fusions.push_back("");
  std::vector<FlagScope> idle;
  std::vector<std::string> acting;
  for (const StrategyInfo* entry : known_entries(o.strategies))
    for (const std::string& spec : split_list(o.models, ','))
      for (const std::string& input : split_list(o.inputs, ','))
        for (const std::string& fusion : fusions) {
          const std::vector<FlagScope> run_idle = idle_train_scopes(
              sample_run(std::string(entry->name), model_spec_compute(spec), input, fusion, extra));
          for (const std::string& word : extra) {
            const std::string flag = word.substr(0, word.find('='));
            if (flag.rfind("--", 0) == 0 &&
                std::none_of(run_idle.begin(), run_idle.end(),
                             [&](const FlagScope& s) { return s.flag == flag; }))
              acting.push_back(flag);
          }
          idle.insert(idle.end(), run_idle.begin(), run_idle.end());
        }
  for (const FlagScope& scope : idle)
    if (std::find(acting.begin(), acting.end(), scope.flag) == acting.end())
      throw std::invalid_argument(fmt::format(
          "{} (in --train-args) does not apply to sweep --strategy {} --models {}: it {}",
          scope.flag, o.strategies, o.models, scope.why));
}

std::vector<std::string> train_args_acting_on(const std::vector<std::string>& command,
                                              const std::vector<std::string>& extra) {
  std::vector<std::string> argv = command;
  argv.insert(argv.end(), extra.begin(), extra.end());
  const std::vector<FlagScope> idle = idle_train_scopes(argv);
  CLI::App app{"gradsync", "gradsync"};
  TrainFlags flags;
  StrategyOptions options;
  const CLI::App* train = add_train_command(app, flags, options);
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < extra.size(); ++i) {
    const std::string name = extra[i].substr(0, extra[i].find('='));
    const bool drop =
        std::any_of(idle.begin(), idle.end(), [&](const FlagScope& s) { return s.flag == name; });
    if (!drop) {
      kept.push_back(extra[i]);
      continue;
    }
    const CLI::Option* option = train->get_option_no_throw(name);
    if (name == extra[i] && option && option->get_items_expected_min() > 0) ++i;  // and its value
  }
  return kept;
}

}  // namespace gradsync
