#!/usr/bin/env bash
# Fetches the LibTorch 2.x headers that the second half of the test matrix
# runs on: Debian trixie's libtorch-dev (2.6) as a package file, unpacked with
# dpkg -x into a prefix of its own. The system's packages stay bookworm's:
# apt reads a source list, a package list and a cache of this script's, never
# the system's state. The prefix is kept between runs (the headers are 50 MB);
# a fresh clone fetches it again. Prints the prefix.
#
# Usage: tools/fetch-libtorch.sh [PREFIX]
#   PREFIX   default $TORCHTIDY_LIBTORCH2_PREFIX, else
#            ${XDG_CACHE_HOME:-$HOME/.cache}/torch-tidy/libtorch-2.6
# The headers are then in PREFIX/usr/include (and torch/csrc/api/include
# below it), TorchConfig.cmake in PREFIX/usr/lib/<triplet>/cmake/Torch.
set -euo pipefail

suite=trixie
want=2.6
cache=${XDG_CACHE_HOME:-${HOME:-/root}/.cache}
prefix=${1:-${TORCHTIDY_LIBTORCH2_PREFIX:-$cache/torch-tidy/libtorch-$want}}
stamp=$prefix/.torch-tidy-fetched
if [ -f "$stamp" ]; then
  echo "$prefix"
  exit 0
fi

# The Debian archive this machine already uses, with trixie for bookworm.
sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && sources+=("$f")
done
uri=$(awk '
  FNR == 1 { uris = "" }
  /^[[:space:]]*$/ { uris = "" }
  /^URIs:/ { uris = $2 }
  /^Suites:/ { if (uris != "" && $0 ~ /[[:space:]]bookworm([[:space:]]|$)/) { print uris; exit } }
  /^deb[[:space:]]/ {
    for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) break
    if ($(i + 1) == "bookworm") { print $i; exit }
  }' "${sources[@]}" /dev/null)
if [ -z "$uri" ]; then
  echo "fetch-libtorch: no Debian bookworm archive in /etc/apt's sources to take $suite from" >&2
  exit 1
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
echo "deb [signed-by=$keyring] $uri $suite main" > "$work/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
  -o APT::Sandbox::User=root -q)
echo "fetch-libtorch: libtorch-dev from $suite" >&2
apt-get "${apt_opts[@]}" update >&2
(cd "$work/debs" && apt-get "${apt_opts[@]}" download libtorch-dev >&2)
deb=$(ls "$work"/debs/libtorch-dev_*.deb)
version=$(dpkg-deb -f "$deb" Version)
case "$version" in
  "$want".*) ;;
  *) echo "fetch-libtorch: $suite has libtorch-dev $version, not $want.x" >&2; exit 1 ;;
esac
rm -rf "$prefix.partial"
mkdir -p "$prefix.partial"
dpkg -x "$deb" "$prefix.partial"
echo "$version" > "$prefix.partial/.torch-tidy-fetched"
rm -rf "$prefix"
mv "$prefix.partial" "$prefix"
echo "fetch-libtorch: libtorch-dev $version in $prefix" >&2
echo "$prefix"
