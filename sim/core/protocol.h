// The protocols a collective library moves data with (NCCL's LL, LL128 and
// Simple; HCCL runs Simple alone). One enum for the library model, NCCL's
// tuning model and the comparisons; names exist only at input and output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace collsim {

enum class Protocol : std::uint8_t { LL, LL128, Simple };
inline constexpr int kProtocols = 3;

inline const char* protocolName(Protocol p) {
  return p == Protocol::LL ? "LL" : p == Protocol::LL128 ? "LL128" : "Simple";
}

// As NCCL_PROTO and cluster files spell it ("LL128"); nullopt for none.
inline std::optional<Protocol> protocolOfName(const std::string& name) {
  for (int p = 0; p < kProtocols; ++p)
    if (name == protocolName(Protocol(p))) return Protocol(p);
  return std::nullopt;
}

// As outputs print a run's protocol: "" when it ran none (an ideal library).
inline std::string protocolText(std::optional<Protocol> p) { return p ? protocolName(*p) : ""; }

// A set of protocols, as NCCL_PROTO allows them: a bit each.
struct ProtocolSet {
  std::uint8_t bits = (1u << kProtocols) - 1; // all
  bool has(Protocol p) const { return bits & (1u << int(p)); }
  static ProtocolSet only(Protocol p) { return {std::uint8_t(1u << int(p))}; }
  void add(Protocol p) { bits = std::uint8_t(bits | 1u << int(p)); }
  ProtocolSet without(ProtocolSet o) const { return {std::uint8_t(bits & ~o.bits)}; }
  bool all() const { return bits == (1u << kProtocols) - 1; }
  // "auto" for all of them, else the names joined by commas: "LL,LL128".
  std::string text() const {
    if (all()) return "auto";
    std::string t;
    for (int p = 0; p < kProtocols; ++p)
      if (has(Protocol(p))) t += (t.empty() ? "" : ",") + std::string(protocolName(Protocol(p)));
    return t.empty() ? "none" : t;
  }
};

} // namespace collsim
