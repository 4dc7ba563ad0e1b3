#!/usr/bin/env bash
# Installs the Debian packages collsim needs, only those that are missing.
set -euo pipefail

packages=(cmake ninja-build g++ clang libboost-graph-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev doctest-dev
          libopenmpi-dev openmpi-bin python3-matplotlib)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "collsim setup: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "collsim setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
