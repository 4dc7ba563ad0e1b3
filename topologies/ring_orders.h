// Rings along a server's own links, as NCCL's topology search builds them
// on machines without an NVSwitch (DGX-1's hybrid cube-mesh): directed
// Hamiltonian cycles of the devices' link graph, as many as fit on the
// links together (a pair joined by two links can carry two rings each way):
// the search tries sets of cycles, not one cycle after another, since the
// ring that looks best alone can leave no room for the last (on a DGX-1,
// five rings instead of six). A ring through devices in index order would
// cross pairs with no direct link and share links.
#pragma once

#include <utility>
#include <vector>

namespace collsim {

// Up to `most` rings (orders of device indices 0..devices-1, each starting at
// 0), as many as the links admit. A graph with too many cycles to list
// (over 20,000) takes its rings one at a time instead, each leaving the most
// free directions. Empty when the links admit no ring, devices exceed
// kMaxRingSearchDevices, or a search finds none in its first two million
// steps (channels then go in index order).
std::vector<std::vector<int>> ringsAlongLinks(int devices, const std::vector<std::pair<int, int>>& links, int most);

inline constexpr int kMaxRingSearchDevices = 12;

} // namespace collsim
