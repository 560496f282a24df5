#pragma once
// What a parameter-server shard saw of asynchronous training (--ps-mode
// async|ssp): how many steps of each worker it applied, and how stale the
// workers ran. Two measures of staleness, both taken by the shard:
//   lead   when a worker's parameters leave for its next step: how many steps
//          it has completed beyond the slowest worker still training (ssp
//          bounds it by --ps-staleness; sync would be 0)
//   delay  when a worker's gradient step is applied: how many other workers'
//          steps the shard applied since that worker's parameters left (the
//          delay tau of asynchronous SGD; W - 1 on average for W workers in
//          lockstep)

#include <cstdint>
#include <vector>

namespace gradsync {

struct PsStalenessStat {
  std::uint64_t max = 0;
  double sum = 0;
  std::uint64_t count = 0;
  void add(std::uint64_t value) {
    max = value > max ? value : max;
    sum += static_cast<double>(value);
    ++count;
  }
  double mean() const { return count ? sum / static_cast<double>(count) : 0; }
};

struct PsAsyncStats {
  std::vector<std::uint64_t> steps;  // per worker: gradient steps applied in full
  PsStalenessStat lead;
  PsStalenessStat delay;
};

}  // namespace gradsync
