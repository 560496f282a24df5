#include "strategies/mpi/tree_pipeline.h"

#include <algorithm>


namespace gradsync {
namespace {

// A non-root node posts the receive of segment j from above once its own send
// of j upwards is complete (the data lands in the same place): post_lag
// iterations after sending it up.
constexpr std::size_t kPostLag = 1;

}  // namespace

template <typename T>
TreePipeline<T>::TreePipeline(const TreeLinks& node, int depth, std::span<T> buffer,
                              std::size_t segment, Tags tags, Waits waits, ElementSum sum,
                              Scratch& scratch, Traffic& traffic)
    : node_(node),
      data_(buffer.data()),
      segments_(split_by_max(buffer.size(), segment)),
      tags_(tags),
      waits_(waits),
      sum_(sum),
      traffic_(traffic) {
  const std::size_t count = segments_.size();
  if (count == 0) return;
  const std::size_t children = node_.children.size();
  const bool root = node_.parent < 0;
  // Segment j comes down `lag_` iterations after it went up: the round trip to the root.
  lag_ = std::max<std::size_t>(kPostLag + 1, 2 * static_cast<std::size_t>(depth) + 2);
  iterations_ = root ? count : count + lag_;
  slot_size_ = segments_.front().count;

  // Scratch: kReceiveWindow slots per child for incoming partial sums.
  slots_ = scratch.get<T>(children * kReceiveWindow * slot_size_);
  from_child_.assign(children, std::vector<MPI_Request>(count, MPI_REQUEST_NULL));
  for (std::size_t c = 0; c < children; ++c)
    for (std::size_t j = 0; j < std::min(kReceiveWindow, count); ++j) post_child_receive(c, j);
  up_.assign(count, MPI_REQUEST_NULL);
  down_.assign(count, MPI_REQUEST_NULL);
}

template <typename T>
T* TreePipeline<T>::slot(std::size_t child, std::size_t j) {
  return slots_ + (child * kReceiveWindow + j % kReceiveWindow) * slot_size_;
}

template <typename T>
void TreePipeline<T>::post_child_receive(std::size_t child, std::size_t j) {
  from_child_[child][j] = irecv_range(slot(child, j), {0, segments_[j].count},
                                      node_.children[child], tags_.up, waits_.going_up.comm,
                                      traffic_);
}

template <typename T>
void TreePipeline<T>::forward_down(std::size_t j) {
  for (int child : node_.children)
    forwarded_.add(
        isend_range(data_, segments_[j], child, tags_.down, waits_.coming_down.comm, traffic_),
        child);
}

template <typename T>
void TreePipeline<T>::step(std::size_t i) {
  const std::size_t count = segments_.size();
  const bool root = node_.parent < 0;
  MPI_Comm comm = waits_.going_up.comm;
  if (i < count) {  // reduce segment i and pass it on
    for (std::size_t c = 0; c < node_.children.size(); ++c) {
      wait_peer(from_child_[c][i], node_.children[c], Direction::from_peer, waits_.going_up);
      sum_(data_ + segments_[i].offset, slot(c, i), segments_[i].count);
      if (i + kReceiveWindow < count) post_child_receive(c, i + kReceiveWindow);
    }
    if (root)
      forward_down(i);
    else
      up_[i] = isend_range(data_, segments_[i], node_.parent, tags_.up, comm, traffic_);
  }
  if (root) return;
  if (i >= kPostLag && i - kPostLag < count) {
    const std::size_t j = i - kPostLag;
    wait_peer(up_[j], node_.parent, Direction::to_peer, waits_.going_up);
    down_[j] = irecv_range(data_, segments_[j], node_.parent, tags_.down, comm, traffic_);
  }
  if (i >= lag_ && i - lag_ < count) {
    const std::size_t j = i - lag_;
    wait_peer(down_[j], node_.parent, Direction::from_peer, waits_.coming_down);
    forward_down(j);
  }
}

template <typename T>
void run_tree_pipelines(std::span<TreePipeline<T>> pipelines) {
  std::size_t iterations = 0;
  for (const TreePipeline<T>& p : pipelines) iterations = std::max(iterations, p.iterations());
  for (std::size_t i = 0; i < iterations; ++i)
    for (TreePipeline<T>& p : pipelines)
      if (i < p.iterations()) p.step(i);
  for (TreePipeline<T>& p : pipelines) p.finish();
}

// The element types the strategies move.
template class TreePipeline<float>;
template class TreePipeline<std::uint16_t>;
template void run_tree_pipelines(std::span<TreePipeline<float>>);
template void run_tree_pipelines(std::span<TreePipeline<std::uint16_t>>);

}  // namespace gradsync
