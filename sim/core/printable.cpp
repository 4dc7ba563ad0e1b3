#include "sim/core/printable.h"

#include <cstdio>

namespace collsim {

std::size_t utf8SequenceLength(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) n = 3;
  else if (c >= 0xF0 && c <= 0xF4) n = 4;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  char32_t cp = decodeUtf8(s, i, n);
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

char32_t decodeUtf8(std::string_view s, std::size_t i, std::size_t length) {
  auto byte = [&](std::size_t k) { return char32_t(static_cast<unsigned char>(s[k])); };
  if (length == 1) return byte(i);
  char32_t cp = byte(i) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07);
  for (std::size_t k = 1; k < length; ++k) cp = (cp << 6) | (byte(i + k) & 0x3F);
  return cp;
}

bool isControlCodePoint(char32_t c) { return c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F); }

std::string printable(std::string_view text, bool keepNewlines) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::size_t n = utf8SequenceLength(text, i);
    bool control = n > 0 && isControlCodePoint(decodeUtf8(text, i, n));
    if (n > 0 && control && keepNewlines && (text[i] == '\n' || text[i] == '\t')) control = false;
    if (n > 0 && !control) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    std::size_t bad = n == 0 ? 1 : n; // escape the whole control sequence, or one invalid byte
    for (std::size_t k = 0; k < bad; ++k) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned char>(text[i + k]));
      out += hex;
    }
    i += bad;
  }
  return out;
}

} // namespace collsim
