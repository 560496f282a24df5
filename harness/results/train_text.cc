#include "harness/results/train_text.h"

#include <fmt/core.h>

#include <algorithm>

#include "harness/results/input_text.h"

namespace gradsync {
namespace {

std::string compute_text(const ModelOptions& m, int blas_threads, const GpuChoice& gpu) {
  if (m.compute == ComputeMode::cuda)
    return fmt::format("cuda (cuDNN and cuBLAS) on GPU {} ({}), precision {}", gpu.ordinal,
                       gpu.name, to_string(m.precision));
  if (m.compute == ComputeMode::cpu)
    return fmt::format("cpu (real forward and backward, {} BLAS thread(s) per worker)",
                       blas_threads);
  if (m.emulate_img_per_sec > 0)
    return fmt::format("emulated at {} img/sec per worker", m.emulate_img_per_sec);
  return fmt::format("emulated on {} ({:.1f} TFLOP/s sustained)", m.profile.name,
                     m.profile.flops_per_second / 1e12);
}

// ", slowed x16 (time scale)" when the time scale is not 1.
std::string slowed_text(const ModelOptions& m) {
  return m.time_scale != 1 ? fmt::format(", slowed x{:.6g} (time scale)", m.time_scale) : "";
}

std::string mib(double bytes) { return fmt::format("{:.1f} MiB", bytes / 1048576.0); }

// The input stage's line: its spec, what the loader measured, its capacity
// and the exposed input, as the exposed-communication line has it.
std::string input_stage_text(const InputSummary& in, int batch) {
  return fmt::format(
      "Input {}, {} loader thread(s) per worker, prefetch {}: loader {:.3f} ms per image, "
      "{:.2f} ms per batch of {}; capacity {:.1f} img/sec per worker (threads / loader time per "
      "image); exposed input {:.4f} s per step ({:.1f}% of the step)\n",
      input_text(in.spec), in.spec.threads, in.spec.prefetch, 1e3 * in.loader_s_per_image,
      1e3 * in.loader_s_per_batch, batch, in.capacity_img_sec, in.wait_s, 100 * in.wait_share);
}

// "Fusion auto: 16 MiB after 41 untimed steps; per candidate ...".
std::string fusion_search_text(const FusionSearchOutcome& f) {
  if (!f.skip_reason.empty()) return fmt::format("Fusion auto: {}\n", f.skip_reason);
  return fmt::format(
      "Fusion auto: {:.4g} MiB after {} untimed steps; per candidate (MiB: ms per step, slowest "
      "worker's median) {}\n",
      f.search.chosen_mb, f.steps, fusion_candidates_text(f.search));
}

// "Optimizer: adamw (...)\n" for a rule other than SGD, the default (whose
// header stays the one the DDP reference prints too).
std::string optimizer_text(const OptimizerOptions& o) {
  if (o.rule == UpdateRule::sgd) return "";
  return fmt::format("Optimizer: {} (beta1 {:g}, beta2 {:g}, eps {:g}, weight decay {:g})\n",
                     to_string(o.rule), o.beta1, o.beta2, o.eps, o.weight_decay);
}

}  // namespace

std::string fusion_candidates_text(const FusionSearchResult& search) {
  std::string text;
  for (const FusionCandidate& c : search.candidates)
    text += fmt::format("{}{:.4g}: {:.1f}", text.empty() ? "" : ", ", c.mb, 1e3 * c.step_s);
  return text;
}

std::string train_header(const TrainPlan& plan, int blas_threads, const GpuChoice& gpu, int workers,
                         const std::string& more) {
  const TrainSettings& s = plan.settings;
  return fmt::format(
      "Model: {}\nCompute: {}{}\n{}Batch size: {} per worker\nStrategy: {}, fusion {}, overlap "
      "{}{}\n{}Number of workers: {}\n{}Running warmup...\n",
      s.model, compute_text(s.model_options, blas_threads, gpu), slowed_text(s.model_options),
      gpu.placement.empty()
          ? ""
          : fmt::format("GPU placement: GPU {}, {}\n", gpu.ordinal, gpu.placement),
      s.batch_size, plan.strategy->name,
      s.fusion_search_steps
          ? fmt::format("auto (searched first, {} steps per candidate)", *s.fusion_search_steps)
          : fmt::format("{} MiB", s.sync.fusion_mb),
      on_off(s.sync.overlap),
      s.sync.order == SyncOrder::arrival ? "" : fmt::format(", {} order", to_string(s.sync.order)),
      optimizer_text(s.optimizer), workers, more);
}

std::string iteration_text(int iter, double img_sec_per_worker) {
  return fmt::format("{}Iter #{}: {:.1f} img/sec per worker\n",
                     iter == 0 ? "Running benchmark...\n" : "", iter, img_sec_per_worker);
}

std::string summary_text(const TrainSummary& s, const TrainSettings& settings) {
  std::string out;
  const double k = settings.model_options.time_scale;
  if (settings.model_options.compute == ComputeMode::emulated) {
    const double implied = implied_img_per_sec(settings);
    const std::string slowed =
        k != 1 ? fmt::format(", slowed x{:.6g} to {:.1f}", k, implied / k) : "";
    out +=
        fmt::format("Emulated device rate: {:.1f} img/sec per worker{}; measured {:.1f}% of it\n",
                    implied, slowed, 100 * s.img_sec_mean * k / implied);
  }
  if (s.fusion_search) out += fusion_search_text(*s.fusion_search);
  out += fmt::format("Img/sec per worker: {:.1f} +-{:.1f}\n", s.img_sec_mean, s.img_sec_conf);
  out += fmt::format("Total img/sec on {} worker(s): {:.1f} +-{:.1f}\n", s.workers,
                     s.img_sec_mean * s.workers, s.img_sec_conf * s.workers);
  if (k != 1)
    out += fmt::format(
        "Represented img/sec per worker (measured x {:.6g}): {:.1f} +-{:.1f}; total {:.1f} "
        "+-{:.1f}\n",
        k, s.img_sec_mean * k, s.img_sec_conf * k, s.img_sec_mean * k * s.workers,
        s.img_sec_conf * k * s.workers);
  out += fmt::format(
      "Step time (slowest worker, {} steps): mean {:.4f} s, median {:.4f} s, "
      "p90 {:.4f} s, p99 {:.4f} s\n",
      s.timed_steps, s.step_mean_s, s.step_median_s, s.step_p90_s, s.step_p99_s);
  // Staging (host<->device copies around a transport) is part of allreduce.
  const std::string staging =
      s.staging_s > 0 ? fmt::format(" (staging host<->device {:.2f} ms)", 1e3 * s.staging_s) : "";
  out += fmt::format(
      "Per step: compute {:.4f} s, allreduce {:.4f} s{}, exposed communication "
      "{:.4f} s ({:.1f}% of the step)\n",
      s.compute_s, s.allreduce_s, staging, s.exposed_comm_s, 100 * s.exposed_comm_share);
  if (s.input) out += input_stage_text(*s.input, s.batch_size);
  if (settings.straggler.rank >= 0)
    out += fmt::format("Straggler: worker {} computes {:.6g}x slower\n", settings.straggler.rank,
                       settings.straggler.factor);
  out += fmt::format("Gradients: {:.1f} MiB in {} bucket(s) per step\n",
                     s.gradient_bytes / 1048576.0, s.buckets_per_step);
  constexpr double MiB = 1048576.0;
  if (s.workers > 1)
    out += fmt::format(
        "Traffic per worker and step: {:.1f} MiB sent, {:.1f} MiB received (a bandwidth-optimal "
        "allreduce sends {:.1f} MiB)\n",
        s.bytes_sent_per_step / MiB, s.bytes_received_per_step / MiB,
        allreduce_bytes_per_step(s) / MiB);
  const WorkerMemory& m = s.memory;
  out += fmt::format(
      "Memory per worker: {:.1f} MiB (parameters {:.1f}, gradients {:.1f}, optimizer state "
      "{:.1f}, gathered buffers {:.1f})\n",
      m.total_bytes() / MiB, m.parameters_bytes / MiB, m.gradients_bytes / MiB,
      m.optimizer_bytes / MiB, m.gathered_bytes / MiB);
  out += fmt::format("Loss: {:.4f} at the first step, {:.4f} at the last\n", s.first_loss,
                     s.last_loss);
  if (const auto& t = s.time_to_target)
    out += t->reached
               ? fmt::format("Time to loss {:.6g}: {:.3f} s, {} samples (loss over the last {} steps "
                             "of every worker: {:.4f})\n",
                             t->target_loss, t->seconds, t->samples, t->window_steps,
                             t->smoothed_loss)
               : fmt::format("Time to loss {:.6g}: not reached in {} samples (loss over the last {} "
                             "steps of every worker: {:.4f})\n",
                             t->target_loss, t->samples, t->window_steps, t->smoothed_loss);
  out += s.parameters_identical
             ? fmt::format("Parameters identical on all workers: {}\n",
                           *s.parameters_identical ? "yes" : "NO (" + s.mismatch + ")")
             : s.worker_gradient_steps.empty()
                 ? "Parameters identical on all workers: not checked (no synchronization)\n"
                 : "Parameters identical on all workers: not checked (the PS shards own them; "
                   "each worker holds the last it pulled)\n";
  if (!s.nonfinite_failure.empty())
    out += fmt::format("Not finite, the run ended (the record says correct: false): {}\n",
                       s.nonfinite_failure);
  if (!s.disturbance.empty())
    out += fmt::format("Disturbed run, not clean (the record says correct: false): {}\n",
                       s.disturbance);
  return out;
}

std::string wire_text(const WireTruth& wire) {
  const HostWire* host = wire.busiest();
  if (!host) return "Link bytes per step: not read (no worker on any cluster host read its link)\n";
  const double per = std::max(1, wire.timed_repeats);
  const auto ratio = host->ratio();
  return fmt::format(
      "Link bytes per step (busiest host {}): tx {}, rx {}; its strategies counted {} sent, {} "
      "received (link/counted {})\n",
      host->host, mib(host->link->tx / per), mib(host->link->rx / per),
      mib(host->counted.bytes_sent / per), mib(host->counted.bytes_received / per),
      ratio ? fmt::format("{:.2f}", *ratio) : "n/a");
}

std::string timeline_text(std::size_t events, std::size_t workers, const std::string& file) {
  return fmt::format(
      "Timeline: {} events from {} worker(s) written to {} (open in "
      "chrome://tracing or ui.perfetto.dev)\n",
      events, workers, file);
}

}  // namespace gradsync
