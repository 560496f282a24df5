// Both builds: the NCCL strategies' availability, from the GPU floor's probe.
#include "gpu/probe.h"
#include "strategies/nccl/nccl.h"

namespace gradsync {

Availability nccl_availability() {
  const GpuProbe probe = probe_gpus();
  if (!probe.built) return {false, probe.detail};
  if (probe.visible_gpus == 0) return {false, "built, " + probe.detail};
  return {true, "NCCL " + probe.nccl_version + ", " + probe.detail};
}

}  // namespace gradsync
