#pragma once
// Which address of this host the other hosts of a job reach it at, for
// servers that must tell their peers where to connect (ps-zmq's shards, the
// stall board).

#include <string>

namespace gradsync {

// This host's address for peers on other hosts: the IPv4 address its host
// name resolves to when an interface of this host carries it, otherwise the
// first IPv4 address of an interface that is up and not loopback. Throws
// std::runtime_error when the host has none (only loopback).
std::string this_host_address();

// The address the job's other ranks reach this host at: 127.0.0.1 when every
// rank is on this host (a one-host run may have no other address:
// scripts/mpirun.sh gives it loopback alone), else this_host_address().
std::string address_for_peers(bool job_spans_hosts);

}  // namespace gradsync
