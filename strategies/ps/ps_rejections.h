#pragma once
// What a parameter-server shard refused: every message it received and did
// not act on (and every CURVE handshake it denied), counted by reason, with
// the description of the last one. Nothing refused is stored.

#include <cstdint>
#include <map>
#include <string>

namespace gradsync {

enum class PsRejectReason {
  malformed,        // frames, header or payload size not the wire format
  unknown_worker,   // a worker index beyond the job's workers
  handshake,        // a CURVE client whose key is not one of the job's workers'
  wrong_identity,   // a worker index already bound to another connection or key
  after_bye,        // a message from a worker that already said bye
  plan_mismatch,    // partition, range, shard or buffer size not the plan's
  stale_step,       // a step already answered, or older than the worker's last
  out_of_window,    // a step beyond the two a shard may hold in flight
  duplicate,        // the same (step, partition) twice from one worker
  wrong_direction,  // a reply or status sent to a server
  wrong_mode,       // not for the shard's --ps-mode (a sum push in async, an init or
                    // gradient in sync), or a gradient for parameters never initialized
};

// "wrong_identity": the key in the records' "reasons" object.
const char* to_string(PsRejectReason reason);

struct PsRejections {
  std::uint64_t total = 0;
  std::map<std::string, std::uint64_t> by_reason;  // only reasons that occurred
  std::string last;                                // why the last one was refused

  void add(PsRejectReason reason, std::string why);
  // Adds another shard's counts (its `last` wins when it has one).
  void merge(const PsRejections& other);
};

}  // namespace gradsync
