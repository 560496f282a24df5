#include "strategies/core/host_address.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include <memory>
#include <stdexcept>
#include <vector>

namespace gradsync {
namespace {

std::string to_text(const in_addr& address) {
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &address, text, sizeof text);
  return text;
}

// The IPv4 addresses of this host's interfaces that are up and not loopback,
// in the order the kernel lists them.
std::vector<std::string> interface_addresses() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return {};
  std::unique_ptr<ifaddrs, decltype(&freeifaddrs)> owner(list, freeifaddrs);
  std::vector<std::string> found;
  for (const ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    if (!(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK)) continue;
    found.push_back(to_text(reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr));
  }
  return found;
}

// The IPv4 addresses this host's name resolves to (empty when it does not).
std::vector<std::string> host_name_addresses() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return {};
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* list = nullptr;
  if (getaddrinfo(name, nullptr, &hints, &list) != 0) return {};
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owner(list, freeaddrinfo);
  std::vector<std::string> found;
  for (const addrinfo* a = list; a; a = a->ai_next)
    found.push_back(to_text(reinterpret_cast<const sockaddr_in*>(a->ai_addr)->sin_addr));
  return found;
}

}  // namespace

std::string this_host_address() {
  const std::vector<std::string> local = interface_addresses();
  if (local.empty())
    throw std::runtime_error(
        "this host has no IPv4 address besides loopback for the other hosts to reach");
  for (const std::string& named : host_name_addresses())
    for (const std::string& address : local)
      if (named == address) return address;
  return local.front();
}

std::string address_for_peers(bool job_spans_hosts) {
  return job_spans_hosts ? this_host_address() : "127.0.0.1";
}

}  // namespace gradsync
