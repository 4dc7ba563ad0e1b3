#!/usr/bin/env bash
# Configures and builds one flavour of collsim.
#   scripts/build.sh            Release build in build/ (build/collsim)
#   scripts/build.sh asan       ASan+UBSan build in build-asan/
#   scripts/build.sh tsan       ThreadSanitizer build of the tests in build-tsan/
#   scripts/build.sh fuzz       libFuzzer targets, in build-asan/ (needs clang++)
set -euo pipefail
cd "$(dirname "$0")/.."

flavour="${1:-release}"
sanitizer_cxx=$(command -v clang++ || command -v g++)
asan_flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1"
            "-DCMAKE_CXX_COMPILER=$sanitizer_cxx" -DCOLLSIM_SANITIZE=ON)
# With clang the ASan objects also carry libFuzzer's coverage hooks, so the
# fuzz target links from them instead of a build of its own.
[[ "$sanitizer_cxx" == *clang++ ]] && asan_flags+=(-DCOLLSIM_FUZZ=ON)
targets=()
case "$flavour" in
  release) dir=build; flags=(-DCMAKE_BUILD_TYPE=Release) ;;
  # Sanitizer builds: clang (it compiles this code in about half the time
  # g++ takes), -O1 (ASan's advice) and line tables only (-g1: stack traces
  # name file:line), which keeps CI's two extra builds short. The MPI tool is
  # not tested under the sanitizers (Open MPI's own allocations would drown the reports).
  asan)    dir=build-asan; flags=("${asan_flags[@]}"); targets=(collsim collsim_tests) ;;
  # The threads transport, parallel studies and selector check: what runs on several threads.
  tsan)    dir=build-tsan; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1"
                                  "-DCMAKE_CXX_COMPILER=$sanitizer_cxx" -DCOLLSIM_SANITIZE_THREAD=ON)
           targets=(collsim collsim_tests) ;;
  fuzz)    dir=build-asan; flags=("${asan_flags[@]}"); targets=(collsim_fuzz_loaders) ;;
  *) echo "usage: scripts/build.sh [release|asan|tsan|fuzz]" >&2; exit 2 ;;
esac

# Unity builds: the library sources compile in batches, which nearly halves
# a clean build on two cores (4:21 -> 2:24 for ASan); the tests stay one
# file each (tests/CMakeLists.txt).
cmake -S . -B "$dir" -G Ninja -DCOLLSIM_WERROR=ON -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
  "${flags[@]}" >/dev/null
ninja -C "$dir" "${targets[@]}"
