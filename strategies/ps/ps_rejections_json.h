#pragma once
// What the parameter server's shards refused (strategies/ps/ps_rejections.h), as
// records and ranks exchange it ("ps_rejected" in train and collectives
// records) and as the run's output says it.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "strategies/ps/ps_rejections.h"

namespace gradsync {

// {"total": N, "reasons": {"duplicate": 1, ...}, "last": "why"}
nlohmann::json to_json(const PsRejections& rejections);
PsRejections ps_rejections_from_json(const nlohmann::json& json);

// Every rank's shards added up; each entry is a rank's to_json, or null for a
// rank without a shard. Null when no rank had one (not a ps-zmq run).
nlohmann::json merged_ps_rejections(const std::vector<nlohmann::json>& per_rank);

// "3 messages (duplicate 1, out_of_window 2); last: why", or "none".
std::string ps_rejections_text(const PsRejections& rejections);

}  // namespace gradsync
