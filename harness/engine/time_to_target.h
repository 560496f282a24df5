#pragma once
// Time to accuracy (`train --target-loss L`): how long, and how many
// samples, training took until its loss reached L.
//
// Every worker notes, for each of its steps, when the step ended (seconds
// since the workers' common start, a barrier after the parameter broadcast)
// and the loss of its batch. The notes make one loss curve, which is smoothed
// over its last `window` steps (kTargetWindowSteps); the target is reached at
// the first point where the window is full and its mean is at most L, with
// the samples of every step up to there.
//   lockstep  synchronous training: step s of the run is step s of every
//             worker, ending when the last of them ends it, at the mean of
//             their losses; each adds workers x batch samples.
//   free      workers at their own pace (asynchronous training): every
//             worker's steps in time order, each adding one batch, smoothed
//             over window x workers of them, so that the window spans about
//             as many samples as in lockstep.

#include <cstdint>
#include <span>
#include <vector>

namespace gradsync {

inline constexpr int kTargetWindowSteps = 10;

enum class Pace { lockstep, free };

struct LossNote {
  double end_s = 0;  // the step's end, seconds since the common start
  double loss = 0;   // the loss of the worker's batch in that step
};

struct TimeToTarget {
  double target_loss = 0;
  int window_steps = kTargetWindowSteps;
  bool reached = false;
  double seconds = 0;         // when reached; else the last note's time
  std::uint64_t samples = 0;  // trained by then (all workers)
  double smoothed_loss = 0;   // at that note (the last one when not reached)
};

// `notes`: one list per worker, each in step order (lockstep uses the steps
// every worker has). `batch`: samples per step of one worker. A window
// holding a loss that is not finite does not reach the target. With fewer
// points than one window the smoothed loss is the mean of all of them and
// the target is not reached.
TimeToTarget time_to_target(std::span<const std::vector<LossNote>> notes, double target_loss,
                            int batch, Pace pace, int window_steps = kTargetWindowSteps);

}  // namespace gradsync
