// run_train (train_command.h): one `gradsync train` run over every rank, in
// its parts: build the strategy; on workers, train and summarize (worker 0
// prints as it goes and writes the trace), on serving ranks, serve; then
// over every rank, the strategy's own account, the wire's truth on an
// emulated cluster, worker 0's summary and record, and the failures every
// rank ends on alike.

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "harness/cli/internal_error.h"
#include "harness/cli/train_command.h"
#include "harness/engine/agreement.h"
#include "harness/engine/cluster_join.h"
#include "harness/engine/errors.h"
#include "harness/engine/gpu_choice.h"
#include "harness/engine/straggler_model.h"
#include "harness/results/chrome_trace.h"
#include "harness/results/cluster_record.h"
#include "harness/results/result_file.h"
#include "harness/results/run_context.h"
#include "harness/results/strategy_options_json.h"
#include "harness/results/train_record.h"
#include "harness/results/train_summary.h"
#include "harness/results/train_text.h"
#include "models/blas_threads.h"

namespace gradsync {
namespace {

void print(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

// How many events the plan's timeline will hold: per traced step about two
// layer events and a pack per tensor, a few per bucket, and with an input
// stage one per loader thread and the wait.
std::size_t expected_events(const TrainPlan& plan, std::size_t tensors) {
  const TrainSettings& s = plan.settings;
  const TimelineWindow window = plan.timeline_window();
  const int total = s.warmup_batches + s.iters * s.batches_per_iter;
  const int traced = window.steps < 0 ? total : std::min(window.steps, total);
  const int input_events = s.input.active() ? s.input.threads + 1 : 0;
  return std::size_t(traced) * (4 * tensors + 16 + input_events);
}

// Servers that own the parameters apply SGD themselves: at one worker's
// rate, since each gradient is one worker's.
StrategyOptions with_server_sgd(const StrategyOptions& flags_options, const OptimizerOptions& sgd) {
  StrategyOptions options = flags_options;
  options.sgd = {.lr = sgd.base_lr, .momentum = sgd.momentum, .weight_decay = sgd.weight_decay};
  return options;
}

// What the whole run needs beside the plan, made once per rank.
struct TrainRunContext {
  const TrainPlan& plan;
  const StrategyInfo& entry;
  StrategyOptions strategy_options;
  std::span<const std::string> command_line;
  const World& world;
  std::optional<ClusterMembership> cluster;
  std::optional<WireMeter> wire;
  TrainSettings settings;  // the plan's, with the GPU chosen
  GpuChoice gpu;
};

// What a worker took away from training; empty on a rank that only serves.
struct WorkerResult {
  std::optional<TrainOutcome> outcome;
  std::optional<TrainSummary> summary;
  std::string timeline_note;
  bool printer = false;  // worker 0, who prints and records
};

std::string header_notes(const TrainRunContext& run) {
  const std::string note = run.entry.train_note ? run.entry.train_note(run.strategy_options) : "";
  return (note.empty() ? "" : note + "\n") +
         (run.cluster ? cluster_text(run.cluster->description, run.cluster->path,
                                     run.settings.model_options.time_scale)
                      : "");
}

// Every worker's part of the timeline, written by worker 0; its note.
std::string write_timeline(const TrainRunContext& run, const World& peers, Timeline& timeline) {
  const auto processes =
      gather_timeline(peers, timeline, run.world.rank(),
                      fmt::format("rank {} ({})", run.world.rank(), run.world.hostname()));
  if (peers.rank() != 0) return "";
  const std::size_t events = write_chrome_trace(
      run.plan.timeline_path, processes, timeline_info(run.plan, peers.size(), run.command_line));
  return timeline_text(events, processes.size(), run.plan.timeline_path);
}

WorkerResult train_worker(TrainRunContext& run, Strategy& strategy) {
  WorkerResult result;
  const World& peers = strategy.peers();
  result.printer = peers.rank() == 0;
  auto model = make_worker_model(run.settings, peers.rank());
  const int blas_threads = share_blas_threads(peers.local_size());
  std::optional<Timeline> timeline;
  if (!run.plan.timeline_path.empty())
    timeline.emplace(run.plan.timeline_window(),
                     expected_events(run.plan, model->parameters().size()));
  if (result.printer)
    print(train_header(run.plan, blas_threads, run.gpu, peers.size(), header_notes(run)));
  const double images = double(run.settings.batch_size) * run.settings.batches_per_iter;
  result.outcome = train(
      strategy, *model, run.settings,
      [&](int iter, double seconds) {
        if (result.printer) print(iteration_text(iter, images / seconds));
      },
      timeline ? &*timeline : nullptr, run.wire ? &*run.wire : nullptr);
  if (timeline) result.timeline_note = write_timeline(run, peers, *timeline);
  result.summary = summarize(*result.outcome, run.plan.settings, peers);
  return result;
}

// Builds the strategy (a GPU chosen, and made current, before any strategy
// that needs one); workers train, serving ranks serve. Returns with the
// strategy closed, which ends dedicated servers' serve(), and this rank's
// part of the strategy's own account of the run.
WorkerResult train_or_serve(TrainRunContext& run, std::string& rank_account) {
  const bool cuda = run.settings.model_options.compute == ComputeMode::cuda;
  if (cuda || run.entry.memory == MemoryKind::device)
    run.gpu = choose_gpu(run.world, gpu_need(run.entry, run.strategy_options, run.world.rank()));
  if (cuda) run.settings.model_options.gpu = run.gpu.ordinal;
  auto strategy = make_strategy(run.entry, run.world, run.strategy_options,
                                cuda ? MemoryKind::device : MemoryKind::host);
  WorkerResult result;
  if (strategy->is_worker())
    result = train_worker(run, *strategy);
  else
    strategy->serve();
  rank_account = strategy->account();
  return result;
}

// Wire truth: every rank's sample (workers' only) to every rank, grouped by host.
std::optional<WireTruth> gather_wire_truth(const TrainRunContext& run, const WorkerResult& result) {
  if (!run.cluster) return std::nullopt;
  std::vector<std::optional<WireSample>> samples;
  const auto sample = result.outcome ? result.outcome->wire : std::nullopt;
  for (const auto& text : run.world.allgather(wire_sample_json(sample).dump()))
    samples.push_back(wire_sample_from_json(nlohmann::json::parse(text)));
  return WireTruth{"step", run.settings.iters * run.settings.batches_per_iter,
                   wire_by_host(run.world.hostnames(), samples)};
}

// Worker 0's summary on the screen, and its record in --out.
void print_and_record(const TrainRunContext& run, const WorkerResult& result,
                      const RunAccount& account, const std::optional<WireTruth>& wire_truth,
                      const AgreedConfig& config) {
  std::string account_text;
  for (const auto& line : account.lines) account_text += line + "\n";
  print(summary_text(*result.summary, run.plan.settings) +
        (wire_truth ? wire_text(*wire_truth) : "") + result.timeline_note + account_text);
  if (run.plan.results_path.empty()) return;
  enter_phase(Phase::writing_results);
  const auto on_cluster =
      run.cluster ? std::optional<TrainOnCluster>({run.cluster->description, *wire_truth})
                  : std::nullopt;
  auto record =
      train_record(run.plan, to_json(run.strategy_options), *result.summary, run.world.size(),
                   collect_run_context(run.world, run.command_line, config), run.gpu,
                   on_cluster ? &*on_cluster : nullptr);
  record.update(account.fields);
  if (!account.failure.empty()) record["correct"] = false;
  append_record(run.plan.results_path, record);
}

// Collective: throws the same AgreedError on every rank when any rank has
// a non-empty line.
void end_alike_on(const World& world, const std::string& line) {
  for (const auto& said : world.allgather(line))
    if (!said.empty()) throw AgreedError(said, 1);
}

// Collective: train_or_serve, with what the workers agreed on among
// themselves (an input stage that failed or outwaited --timeout) made every
// rank's: ranks that only serve, which a dedicated world rank 0 is, leave
// serve() once the workers are gone and learn the line here, so that world
// rank 0 prints it and no rank waits for the others.
WorkerResult train_or_serve_alike(TrainRunContext& run, std::string& rank_account) {
  std::string agreed;
  WorkerResult result;
  try {
    result = train_or_serve(run, rank_account);
  } catch (const AgreedError& e) {
    agreed = e.what();
  }
  end_alike_on(run.world, agreed);
  return result;
}

}  // namespace

void run_train(const TrainPlan& plan, const StrategyOptions& flags_options,
               std::span<const std::string> command_line, const AgreedConfig& config) {
  const StrategyOptions strategy_options = with_server_sgd(flags_options, plan.settings.optimizer);
  World world(MPI_COMM_WORLD, harness_timeout(strategy_options.timeout_s));
  TrainRunContext run{.plan = plan,
                      .entry = *plan.strategy,
                      .strategy_options = strategy_options,
                      .command_line = command_line,
                      .world = world,
                      .cluster = join_cluster(world),
                      .settings = plan.settings};
  if (run.cluster) run.wire = wire_meter(*run.cluster, world, run.entry, run.strategy_options);
  std::string rank_account;  // this rank's part, as Strategy::account() gives it
  const WorkerResult result = train_or_serve_alike(run, rank_account);
  // The strategy's own account, from every rank's part; the workers' step
  // counts (servers that own the parameters) are worker 0's to give.
  const RunAccount account =
      merge_account(run.entry, world.allgather(rank_account),
                    {.options = &run.strategy_options,
                     .worker_steps = result.summary ? result.summary->worker_gradient_steps
                                                    : std::vector<std::uint64_t>{}});
  // Every rank learns the verdict, so that a failed check ends every rank alike.
  const auto verdicts = world.allgather(
      result.summary && result.summary->parameters_identical == false ? result.summary->mismatch
                                                                      : "");
  std::string mismatch;
  for (const auto& v : verdicts)
    if (!v.empty()) mismatch = v;
  const std::optional<WireTruth> wire_truth = gather_wire_truth(run, result);
  if (result.printer) print_and_record(run, result, account, wire_truth, config);
  if (!mismatch.empty()) throw AgreedError("parameters differ across workers: " + mismatch, 1);
  // Only worker 0 has every worker's step count: it tells every rank.
  end_alike_on(world, result.printer ? account.failure : "");
  // Every rank learns it: workers from training, dedicated servers from them.
  end_alike_on(world, result.summary ? result.summary->nonfinite_failure : "");
}

}  // namespace gradsync
