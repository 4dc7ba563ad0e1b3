// Text from input made safe to echo on a terminal: control characters
// (C0 but newline and tab, DEL, C1) and bytes that are not UTF-8 become
// \xNN, so a scenario name or a file path cannot send terminal escapes.
#pragma once

#include <string>
#include <string_view>

namespace collsim {

// The length of the UTF-8 sequence at `s[i]`, or 0 if it is not valid UTF-8
// (overlong forms, surrogates and code points above U+10FFFF are not).
std::size_t utf8SequenceLength(std::string_view s, std::size_t i);
// True when `c`, the code point of a valid sequence, is a control character.
bool isControlCodePoint(char32_t c);
// The first code point of a valid sequence.
char32_t decodeUtf8(std::string_view s, std::size_t i, std::size_t length);

// `text` with every control character and invalid byte written as \xNN
// (keeping newlines when `keepNewlines`).
std::string printable(std::string_view text, bool keepNewlines = true);

} // namespace collsim
