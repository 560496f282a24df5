#pragma once
// Train records for the report tests: small-cnn cpu b8, one per run.

#include <string>

#include "harness/results/result_file.h"

namespace gradsync {

// A measured, correct run at `img_sec` per worker (its median step to
// match); `external`: PyTorch DDP's run, an external reference
// ("external": "pytorch-ddp").
inline StoredRecord small_cnn_train(const std::string& strategy, int workers, double img_sec,
                                    bool external = false) {
  auto value = new_record("train");
  value["strategy"] = strategy;
  value["model"] = "small-cnn";
  value["compute"] = "cpu";
  value["batch_size"] = 8;
  value["correct"] = true;
  if (external) value["external"] = "pytorch-ddp";
  value["results"] = {{"workers", workers},
                      {"img_sec_mean", img_sec},
                      {"img_sec_conf", 0.0},
                      {"exposed_comm_share", 0.25},
                      {"step_median_s", 8.0 / img_sec}};
  return {"fixture.jsonl:" + strategy + std::to_string(workers), value};
}

}  // namespace gradsync
