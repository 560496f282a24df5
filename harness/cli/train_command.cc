#include "harness/cli/train_command.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>

#include "models/blas_threads.h"
#include "models/cuda_model.h"
#include "harness/engine/errors.h"
#include "strategies/gpu_strategies.h"
#include "strategies/registry.h"
#include "harness/results/result_file.h"
#include "harness/results/run_context.h"
#include "harness/cli/strategy_flags.h"
#include "harness/results/train_summary.h"

namespace gradsync {
namespace {

void print(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

// Where a GPU was chosen: its ordinal and name (empty: no GPU in this run).
struct GpuChoice {
  int ordinal = -1;
  std::string name;
};

std::string gpu_text(const GpuChoice& gpu) { return fmt::format("GPU {} ({})", gpu.ordinal, gpu.name); }

std::string compute_text(const TrainCommandOptions& o, const ModelOptions& m, int blas_threads,
                         const GpuChoice& gpu) {
  if (m.compute == ComputeMode::cuda)
    return fmt::format("cuda (cuDNN and cuBLAS) on {}, precision {}", gpu_text(gpu), o.precision);
  if (m.compute == ComputeMode::cpu)
    return fmt::format("cpu (real forward and backward, {} BLAS thread(s) per worker)", blas_threads);
  if (m.emulate_img_per_sec > 0) return fmt::format("emulated at {} img/sec per worker", m.emulate_img_per_sec);
  return fmt::format("emulated on {} ({:.1f} TFLOP/s sustained)", m.profile.name,
                     m.profile.flops_per_second / 1e12);
}

// What emulated compute should give one worker: the forced rate, else the
// profile's FLOP/s over forward + backward (3 x forward) FLOPs per image.
double implied_img_per_sec(const TrainSettings& s) {
  const ModelOptions& m = s.model_options;
  if (m.emulate_img_per_sec > 0) return m.emulate_img_per_sec;
  return m.profile.flops_per_second / (3 * describe_model(s.model).forward_flops_per_sample);
}

nlohmann::json train_record(const TrainCommandOptions& o, const StrategyOptions& strategy_options,
                            const TrainSummary& summary, int ranks, const RunContext& context,
                            const GpuChoice& gpu) {
  const TrainSettings& s = o.settings;
  nlohmann::json record = new_record("train");
  record["strategy"] = o.strategy;
  record["strategy_options"] = to_json(strategy_options);
  record["model"] = s.model;
  record["compute"] = o.compute;
  record["precision"] =
      s.model_options.compute == ComputeMode::cuda ? nlohmann::json(o.precision) : nlohmann::json();
  record["gpu"] = gpu.name.empty() ? nlohmann::json() : nlohmann::json(gpu.name);
  record["device_profile"] = s.model_options.compute == ComputeMode::emulated
                                 ? nlohmann::json{{"name", s.model_options.profile.name},
                                                  {"flops_per_second", s.model_options.profile.flops_per_second},
                                                  {"emulate_img_per_sec", s.model_options.emulate_img_per_sec},
                                                  {"implied_img_sec", implied_img_per_sec(s)}}
                                 : nlohmann::json();
  record["batch_size"] = s.batch_size;
  record["workers"] = summary.workers;
  record["ranks"] = ranks;
  record["sync"] = {{"fusion_mb", s.sync.fusion_mb}, {"overlap", s.sync.overlap}};
  record["sgd"] = {{"base_lr", s.sgd.base_lr}, {"momentum", s.sgd.momentum},
                   {"weight_decay", s.sgd.weight_decay}, {"warmup_steps", s.sgd.warmup_steps}};
  record["schedule"] = {{"warmup_batches", s.warmup_batches},
                        {"batches_per_iter", s.batches_per_iter}, {"iters", s.iters}};
  record["results"] = summary;
  record["correct"] = summary.parameters_checked ? nlohmann::json(summary.parameters_identical)
                                                 : nlohmann::json();
  record["context"] = to_json(context);
  return record;
}

std::string summary_text(const TrainSummary& s, const TrainSettings& settings) {
  std::string out;
  if (settings.model_options.compute == ComputeMode::emulated) {
    const double implied = implied_img_per_sec(settings);
    out += fmt::format("Emulated device rate: {:.1f} img/sec per worker; measured {:.1f}% of it\n",
                       implied, 100 * s.img_sec_mean / implied);
  }
  out += fmt::format("Img/sec per worker: {:.1f} +-{:.1f}\n", s.img_sec_mean, s.img_sec_conf);
  out += fmt::format("Total img/sec on {} worker(s): {:.1f} +-{:.1f}\n", s.workers,
                     s.img_sec_mean * s.workers, s.img_sec_conf * s.workers);
  out += fmt::format("Step time (slowest worker, {} steps): mean {:.4f} s, median {:.4f} s, "
                     "p90 {:.4f} s, p99 {:.4f} s\n",
                     s.timed_steps, s.step_mean_s, s.step_median_s, s.step_p90_s, s.step_p99_s);
  // Staging (host<->device copies around a transport) is part of allreduce.
  const std::string staging =
      s.staging_s > 0 ? fmt::format(" (staging host<->device {:.2f} ms)", 1e3 * s.staging_s) : "";
  out += fmt::format("Per step: compute {:.4f} s, allreduce {:.4f} s{}, exposed communication "
                     "{:.4f} s ({:.1f}% of the step)\n",
                     s.compute_s, s.allreduce_s, staging, s.exposed_comm_s,
                     100 * s.exposed_comm_share);
  out += fmt::format("Gradients: {:.1f} MiB in {} bucket(s) per step\n",
                     s.gradient_bytes / 1048576.0, s.buckets_per_step);
  out += fmt::format("Loss: {:.4f} at the first step, {:.4f} at the last\n", s.first_loss, s.last_loss);
  out += s.parameters_checked
             ? fmt::format("Parameters identical on all workers: {}\n",
                           s.parameters_identical ? "yes" : "NO (" + s.mismatch + ")")
             : "Parameters identical on all workers: not checked (no synchronization)\n";
  return out;
}

// What the trace says about the run, beside its events.
nlohmann::json timeline_info(const TrainCommandOptions& o, int workers,
                             std::span<const std::string> command_line) {
  const TrainSettings& s = o.settings;
  std::string command;
  for (const auto& word : command_line) command += (command.empty() ? "" : " ") + word;
  return {{"model", s.model},
          {"compute", o.compute},
          {"strategy", o.strategy},
          {"fusion_mb", s.sync.fusion_mb},
          {"overlap", s.sync.overlap},
          {"batch_size", s.batch_size},
          {"workers", workers},
          {"warmup_batches", s.warmup_batches},
          {"traced_steps", o.timeline_steps == 0 ? "all, warm-up included"
                                                 : fmt::format("the first {} after warm-up",
                                                               o.timeline_steps)},
          {"time_origin", "ts is microseconds since a barrier after the parameter broadcast"},
          {"threads", "tid 0: compute (main) thread, tid 1: communication thread"},
          {"command", command}};
}

// This rank's GPU, chosen on every rank at once: a rank without one makes
// every rank fail alike, with its one line printed once.
GpuChoice choose_gpu(const World& world, bool needs_gpu) {
  GpuChoice gpu;
  std::string error;
  try {
    gpu.ordinal = select_local_gpu(world, needs_gpu);
    if (needs_gpu) gpu.name = gpu_name(gpu.ordinal);
  } catch (const std::exception& e) {
    error = e.what();
  }
  for (const auto& e : world.allgather(error))
    if (!e.empty()) throw AgreedError(e, 1);
  return gpu;
}

Precision parse_precision(const std::string& name) {
  if (name == "tf32") return Precision::tf32;
  if (name == "mixed") return Precision::mixed;
  return Precision::fp32;
}

ComputeMode parse_compute(const std::string& name) {
  if (name == "cuda") return ComputeMode::cuda;
  if (name == "emulated") return ComputeMode::emulated;
  return ComputeMode::cpu;
}

TimelineWindow timeline_window(const TrainCommandOptions& o) {
  if (o.timeline_steps == 0) return {};
  return {.first_step = o.settings.warmup_batches, .steps = o.timeline_steps};
}

}  // namespace

CLI::App* add_train_command(CLI::App& app, TrainCommandOptions& o,
                            StrategyOptions& strategy_options) {
  auto* cmd = app.add_subcommand("train", "Training benchmark: a synthetic CNN under one strategy");
  TrainSettings& s = o.settings;
  cmd->add_option("--model", s.model, "model from `gradsync models`");
  cmd->add_option("--batch-size", s.batch_size, "images per worker per step");
  cmd->add_option("--num-warmup-batches", s.warmup_batches, "untimed steps before the benchmark");
  cmd->add_option("--num-batches-per-iter", s.batches_per_iter, "steps per timed iteration");
  cmd->add_option("--num-iters", s.iters, "timed iterations");
  cmd->add_option("--strategy", o.strategy, "how gradients are synchronized (see `gradsync strategies`)");
  cmd->add_option("--compute", o.compute, "cpu: real compute; emulated: each layer takes the time "
                                          "its FLOPs take on --device; cuda: real compute on this "
                                          "rank's GPU (cuDNN, cuBLAS), gradients and SGD in device "
                                          "memory")
      ->check(CLI::IsMember({"cpu", "emulated", "cuda"}));
  cmd->add_option("--precision", o.precision, "cuda compute's arithmetic: fp32 (strict), tf32 "
                                              "(tensor cores), mixed (fp16 tensor cores, fp32 "
                                              "accumulation); default fp32")
      ->check(CLI::IsMember({"fp32", "tf32", "mixed"}));
  cmd->add_option("--device", o.device, "device profile for emulated compute (see `gradsync models`)");
  cmd->add_option("--emulate-img-per-sec", s.model_options.emulate_img_per_sec,
                  "emulated compute at this single-worker rate instead of a device profile");
  cmd->add_option("--fusion-mb", s.sync.fusion_mb, "fusion bucket threshold in MiB (0: no fusion)");
  cmd->add_option("--overlap", o.overlap, "reduce buckets while backward runs")
      ->check(CLI::IsMember({"on", "off"}));
  cmd->add_option("--lr", s.sgd.base_lr, "learning rate of one worker (scaled by the workers)");
  cmd->add_option("--momentum", s.sgd.momentum, "SGD momentum");
  cmd->add_option("--weight-decay", s.sgd.weight_decay, "L2 weight decay");
  cmd->add_option("--warmup-steps", s.sgd.warmup_steps,
                  "steps of linear learning-rate warm-up to the scaled rate");
  cmd->add_option("--seed", s.model_options.seed, "seed of the initial parameters");
  cmd->add_option("--data-seed", s.data_seed, "seed of the synthetic data");
  cmd->add_option("--out", o.out, "append the run's record to this JSON Lines file")
      ->type_name("FILE");
  cmd->add_option("--timeline", o.timeline,
                  "write a Chrome trace (chrome://tracing, ui.perfetto.dev) of every worker's "
                  "steps to this file")
      ->type_name("FILE");
  cmd->add_option("--timeline-steps", o.timeline_steps,
                  "trace only the first N steps after warm-up (0: every step, warm-up included)");
  add_strategy_flags(*cmd, strategy_options);
  return cmd;
}

void prepare_train(TrainCommandOptions& o, const StrategyOptions&) {
  TrainSettings& s = o.settings;
  (void)parse_strategy_list(o.strategy);  // known and usable here
  (void)describe_model(s.model);          // known
  if (s.batch_size < 1) throw std::invalid_argument("--batch-size must be at least 1");
  if (s.warmup_batches < 0 || s.batches_per_iter < 1 || s.iters < 1)
    throw std::invalid_argument("--num-batches-per-iter and --num-iters must be at least 1, "
                                "--num-warmup-batches at least 0");
  if (s.sync.fusion_mb < 0) throw std::invalid_argument("--fusion-mb must be 0 or more");
  if (s.model_options.emulate_img_per_sec < 0)
    throw std::invalid_argument("--emulate-img-per-sec must be positive");
  s.sync.overlap = o.overlap == "on";
  s.model_options.compute = parse_compute(o.compute);
  if (!o.precision.empty() && s.model_options.compute != ComputeMode::cuda)
    throw std::invalid_argument("--precision " + o.precision + " is for --compute cuda (" +
                                o.compute + " compute runs in fp32)");
  if (s.model_options.compute == ComputeMode::cuda && o.precision.empty()) o.precision = "fp32";
  s.model_options.precision = parse_precision(o.precision);
  if (s.model_options.compute == ComputeMode::cuda && !cuda_compute_built())
    throw std::invalid_argument("--compute cuda: " + cuda_compute_unavailable(0));
  if (s.model_options.compute == ComputeMode::emulated) s.model_options.profile = find_device_profile(o.device);
  if (o.timeline_steps < 0) throw std::invalid_argument("--timeline-steps must be 0 or more");
  if (!o.timeline.empty()) {
    const auto dir = std::filesystem::absolute(o.timeline).parent_path();
    if (!std::filesystem::is_directory(dir))
      throw std::invalid_argument("--timeline " + o.timeline + ": directory " + dir.string() +
                                  " does not exist");
  }
}

void run_train(const TrainCommandOptions& o, const StrategyOptions& strategy_options,
               std::span<const std::string> command_line) {
  const World world;
  std::optional<TrainSummary> summary;
  std::string timeline_note;
  bool printer = false;
  TrainSettings settings = o.settings;
  const bool cuda = settings.model_options.compute == ComputeMode::cuda;
  // A GPU is chosen (and made current) before any strategy that needs one is built.
  GpuChoice gpu;
  if (cuda || find_strategy(o.strategy).memory == MemoryKind::device)
    gpu = choose_gpu(world, !rank_only_serves(o.strategy, strategy_options, world.rank()));
  if (cuda) settings.model_options.gpu = gpu.ordinal;
  {
    auto strategy = make_strategy(o.strategy, world, strategy_options,
                                  cuda ? MemoryKind::device : MemoryKind::host);
    if (!strategy->is_worker()) {
      strategy->serve();
    } else {
      const World& peers = strategy->peers();
      printer = peers.rank() == 0;
      auto model = make_model(settings.model, settings.model_options);
      const int blas_threads = share_blas_threads(peers.local_size());
      std::optional<Timeline> timeline;
      if (!o.timeline.empty()) {
        const TimelineWindow window = timeline_window(o);
        const int total = o.settings.warmup_batches + o.settings.iters * o.settings.batches_per_iter;
        const int traced = window.steps < 0 ? total : std::min(window.steps, total);
        // Per step about: two layer events and a pack per tensor, a few per bucket.
        timeline.emplace(window, std::size_t(traced) * (4 * model->parameters().size() + 16));
      }
      if (printer)
        print(fmt::format("Model: {}\nCompute: {}\nBatch size: {} per worker\nStrategy: {}, fusion "
                          "{} MiB, overlap {}\nNumber of workers: {}\nRunning warmup...\n",
                          o.settings.model,
                          compute_text(o, settings.model_options, blas_threads, gpu),
                          o.settings.batch_size, o.strategy,
                          o.settings.sync.fusion_mb, o.overlap, peers.size()));
      const double images = double(o.settings.batch_size) * o.settings.batches_per_iter;
      auto outcome = train(*strategy, *model, settings, [&](int iter, double seconds) {
        if (!printer) return;
        if (iter == 0) print("Running benchmark...\n");
        print(fmt::format("Iter #{}: {:.1f} img/sec per worker\n", iter, images / seconds));
      }, timeline ? &*timeline : nullptr);
      if (timeline) {
        const auto processes = gather_timeline(
            peers, *timeline, world.rank(), fmt::format("rank {} ({})", world.rank(), world.hostname()));
        if (printer) {
          const std::size_t events = write_chrome_trace(o.timeline, processes,
                                                        timeline_info(o, peers.size(), command_line));
          timeline_note = fmt::format("Timeline: {} events from {} worker(s) written to {} (open in "
                                      "chrome://tracing or ui.perfetto.dev)\n",
                                      events, processes.size(), o.timeline);
        }
      }
      summary = summarize(outcome, o.settings, peers);
    }
  }  // workers close their strategy here, which ends dedicated servers' serve()

  // Every rank learns the verdict, so that a failed check ends every rank alike.
  const auto verdicts = world.allgather(summary && !summary->parameters_identical ? summary->mismatch : "");
  std::string mismatch;
  for (const auto& v : verdicts) if (!v.empty()) mismatch = v;
  if (printer) {
    print(summary_text(*summary, o.settings) + timeline_note);
    if (!o.out.empty())
      append_record(o.out, train_record(o, strategy_options, *summary, world.size(),
                                        collect_run_context(world, command_line), gpu));
  }
  if (!mismatch.empty()) throw AgreedError("parameters differ across workers: " + mismatch, 1);
}

}  // namespace gradsync
