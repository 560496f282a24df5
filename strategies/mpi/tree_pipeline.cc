#include "strategies/mpi/tree_pipeline.h"

#include <algorithm>
#include <stdexcept>

namespace gradsync {

// Why the streams never wait on each other. A node that served them in turn
// (the receive of segment i from its children, then the forwarding of a
// segment that came down) paid, per segment, one segment's transfer up and
// one down in series wherever a segment takes its time on the wire: a leaf
// sent segment i+1 only once an earlier segment had come down, and its
// parent forwarded that one only once segment i had come up. Under SMPI,
// which charges every segment its time at the link's share as a switch port
// does, that put 4 ranks at 3.1x the time of their bytes on a link, where
// 2x is due; the emulated cluster hid it, since tbf lets a segment that fits
// its burst (4 ms of the rate) through at the veth's speed.
//
// Why the sends up are synchronous. With plain sends Open MPI sends a
// segment of up to 64 KiB at once (eager), whether or not its receive is
// posted: freed from the down stream's pace, the leaves sent everything up
// at the link's rate and took it from the streams their parents needed (4
// ranks on the emulated cluster: 2.84 s for 64 MiB, against 2.17 s served
// in turn and 2.17 s with synchronous sends).

std::vector<int> edges_leaving_nodes(int p, int per_node,
                                     const std::function<TreeLinks(int)>& links) {
  const int width = std::max(per_node, 1);
  std::vector<int> leaving((p + width - 1) / width, 0);
  for (int r = 0; r < p; ++r) {
    const TreeLinks node = links(r);
    // Counted at the child's end and the parent's, once each.
    if (node.parent >= 0 && node.parent / width != r / width) {
      ++leaving[r / width];
      ++leaving[node.parent / width];
    }
  }
  return leaving;
}

template <typename T>
TreePipeline<T>::TreePipeline(const TreeLinks& node, std::span<T> buffer, std::size_t segment,
                              TreeTags tags, MPI_Comm comm, ElementSum sum, Scratch& scratch,
                              Traffic& traffic)
    : node_(node),
      data_(buffer.data()),
      segments_(split_by_max(buffer.size(), segment)),
      tags_(tags),
      comm_(comm),
      sum_(sum),
      traffic_(traffic) {
  const std::size_t count = segments_.size();
  if (count == 0) return;
  const std::size_t children = node_.children.size();
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
                                      node_.children[child], tags_.up, comm_, traffic_);
}

// Every child's partial sum of segment i is in: its receive was posted (a
// window ahead) and has completed.
template <typename T>
bool TreePipeline<T>::children_in(std::size_t i) const {
  return std::all_of(
      from_child_.begin(), from_child_.end(),
      [&](const std::vector<MPI_Request>& child) { return child[i] == MPI_REQUEST_NULL; });
}

// Sums the children's parts of segment i into place (left child first) and
// sends the result up; at the root it is final and goes down.
template <typename T>
void TreePipeline<T>::pass_on(std::size_t i) {
  for (std::size_t c = 0; c < node_.children.size(); ++c) {
    sum_(data_ + segments_[i].offset, slot(c, i), segments_[i].count);
    if (i + kReceiveWindow < segments_.size()) post_child_receive(c, i + kReceiveWindow);
  }
  if (root())
    forward_down(i);
  else
    up_[i] = issend_range(data_, segments_[i], node_.parent, tags_.up, comm_, traffic_);
}

template <typename T>
void TreePipeline<T>::forward_down(std::size_t j) {
  for (int child : node_.children)
    forwarded_.add(isend_range(data_, segments_[j], child, tags_.down, comm_, traffic_), child);
}

template <typename T>
bool TreePipeline<T>::done() const {
  return summed_ == segments_.size() && (root() || received_ == segments_.size());
}

template <typename T>
void TreePipeline<T>::heads(std::vector<MPI_Request>& requests, std::vector<int>& peers) {
  head_slots_.clear();
  auto add = [&](MPI_Request& request, int peer) {
    head_slots_.push_back(&request);
    requests.push_back(request);
    peers.push_back(peer);
  };
  if (summed_ < segments_.size())
    for (std::size_t c = 0; c < node_.children.size(); ++c)
      if (from_child_[c][summed_] != MPI_REQUEST_NULL)
        add(from_child_[c][summed_], node_.children[c]);
  if (root()) return;
  if (replaced_ < summed_) add(up_[replaced_], node_.parent);
  if (received_ < replaced_) add(down_[received_], node_.parent);
}

template <typename T>
void TreePipeline<T>::advance(std::span<const MPI_Request> heads) {
  for (std::size_t k = 0; k < heads.size(); ++k) *head_slots_[k] = heads[k];
  head_slots_.clear();
  if (!root()) {
    // A segment whose send up is done gets its final value from above, in place.
    while (replaced_ < summed_ && up_[replaced_] == MPI_REQUEST_NULL) {
      down_[replaced_] =
          irecv_range(data_, segments_[replaced_], node_.parent, tags_.down, comm_, traffic_);
      ++replaced_;
    }
    // A segment that came down goes on to the children.
    while (received_ < replaced_ && down_[received_] == MPI_REQUEST_NULL) forward_down(received_++);
  }
  // Up, with at most kReceiveWindow sends up in flight (the parent posts its
  // receives as far ahead, and a synchronous send completes once matched).
  while (summed_ < segments_.size() && (root() || summed_ < replaced_ + kReceiveWindow) &&
         children_in(summed_))
    pass_on(summed_++);
}

template <typename T>
void run_tree_pipelines(std::span<TreePipeline<T>> pipelines, const Wait& wait) {
  std::vector<MPI_Request> requests;
  std::vector<int> peers;
  std::vector<std::size_t> firsts(pipelines.size() + 1);
  for (TreePipeline<T>& p : pipelines) p.advance({});
  auto all_done = [&] {
    return std::all_of(pipelines.begin(), pipelines.end(),
                       [](const TreePipeline<T>& p) { return p.done(); });
  };
  while (!all_done()) {
    requests.clear();
    peers.clear();
    for (std::size_t k = 0; k < pipelines.size(); ++k) {
      firsts[k] = requests.size();
      pipelines[k].heads(requests, peers);
    }
    firsts[pipelines.size()] = requests.size();
    if (requests.empty())
      throw std::logic_error("tree pipeline: nothing to wait for before the end");
    wait_some(requests, peers, wait);
    const std::span<const MPI_Request> waited(requests);
    for (std::size_t k = 0; k < pipelines.size(); ++k)
      pipelines[k].advance(waited.subspan(firsts[k], firsts[k + 1] - firsts[k]));
  }
  for (TreePipeline<T>& p : pipelines) p.finish(wait);
}

// The element types the strategies move.
template class TreePipeline<float>;
template class TreePipeline<std::uint16_t>;
template void run_tree_pipelines(std::span<TreePipeline<float>>, const Wait&);
template void run_tree_pipelines(std::span<TreePipeline<std::uint16_t>>, const Wait&);

}  // namespace gradsync
