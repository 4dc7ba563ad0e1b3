// Units: the one vocabulary every folder may include.
//
// Time is an integer number of picoseconds, sizes are bytes, bandwidth is
// bytes per second. Literals (`64_KiB`, `12_GBps`, `1_us`) keep conversions
// out of the code; the parse functions read the same units from YAML and the
// command line and reject anything without a known unit.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace collsim {

using Time = std::int64_t;       // picoseconds
using Bytes = std::uint64_t;     // bytes
using Bandwidth = std::uint64_t; // bytes per second

inline constexpr Time kPsPerNs = 1'000;
inline constexpr Time kPsPerUs = 1'000'000;
inline constexpr Time kPsPerMs = 1'000'000'000;
inline constexpr Time kPsPerSec = 1'000'000'000'000;

namespace literals {
constexpr Bytes operator""_B(unsigned long long v) { return v; }
constexpr Bytes operator""_KiB(unsigned long long v) { return v << 10; }
constexpr Bytes operator""_MiB(unsigned long long v) { return v << 20; }
constexpr Bytes operator""_GiB(unsigned long long v) { return v << 30; }
constexpr Time operator""_ps(unsigned long long v) { return Time(v); }
constexpr Time operator""_ns(unsigned long long v) { return Time(v) * kPsPerNs; }
constexpr Time operator""_us(unsigned long long v) { return Time(v) * kPsPerUs; }
constexpr Time operator""_ms(unsigned long long v) { return Time(v) * kPsPerMs; }
constexpr Bandwidth operator""_GBps(unsigned long long v) { return v * 1'000'000'000ULL; }
constexpr Bandwidth operator""_Gbps(unsigned long long v) { return v * 125'000'000ULL; }
} // namespace literals

// Time to push `bytes` through a channel of `bw` bytes/s, rounded up to a
// whole picosecond so that a transfer never takes zero time by rounding.
inline Time serializationTime(Bytes bytes, Bandwidth bw) {
  unsigned __int128 ps = static_cast<unsigned __int128>(bytes) * kPsPerSec;
  return static_cast<Time>((ps + bw - 1) / bw);
}

inline double toMicroseconds(Time t) { return double(t) / double(kPsPerUs); }
inline double toSeconds(Time t) { return double(t) / double(kPsPerSec); }

// A value that failed to parse; the caller adds file/line context.
struct UnitError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "4096", "64KiB", "1MiB", "1GiB" (binary), "1KB", "1MB", "1GB" (decimal).
Bytes parseBytes(std::string_view text);
// "12GB/s", "12.5GB/s", "100Gbps", "400Mbps" ... (GB = 1e9 bytes, Gb = 1e9 bits).
Bandwidth parseBandwidth(std::string_view text);
// "1us", "500ns", "2ms", "1s", "20ps", and a bare "0".
Time parseTime(std::string_view text);

// A count with an SI suffix: "340M", "1.5B" or "1.5G", "12.6K", "7e9".
double parseCount(std::string_view text);
// Floating-point operations per second: "312TFLOPS", "312 TFLOP/s", "1.2PFLOPS".
double parseFlops(std::string_view text);

// Short human-readable forms: "64KiB", "12GB/s", "1.5us".
std::string formatBytes(Bytes b);
std::string formatBandwidth(Bandwidth bw);
// A network line rate, in bits as NICs and switches are sold: 200Gbps (not 25GB/s).
std::string formatLineRate(Bandwidth bw);
std::string formatTime(Time t);

} // namespace collsim
