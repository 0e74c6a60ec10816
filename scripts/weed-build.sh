#!/usr/bin/env bash
# Builds the SeaweedFS `weed` binary that floe's S3 tests start as a real
# S3 store through the Go module proxy (tools/weed pins the version).
# The binary is cached outside the clone, so a fresh CI checkout reuses it;
# when it is already there this script does nothing.
#
# Prints the binary's path on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(awk '$1=="require" && $2=="github.com/seaweedfs/seaweedfs" {print $3}' tools/weed/go.mod)
if [ -z "$version" ]; then
  echo "weed-build: cannot read the seaweedfs version from tools/weed/go.mod" >&2
  exit 1
fi
cache=${FLOE_CACHE:-$HOME/.cache/floe}
bin="$cache/weed-$version"

if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

mkdir -p "$cache"
echo "weed-build: building weed $version into $bin (minutes the first time)" >&2
tmp="$bin.tmp.$$"
trap 'rm -f "$tmp"' EXIT
# The Go defaults choose the module proxy (GOPROXY from go env), as every
# other go command of the build does.
(cd tools/weed && GOFLAGS=-mod=mod \
  nice -n 19 go build -trimpath -o "$tmp" github.com/seaweedfs/seaweedfs/weed)
mv "$tmp" "$bin"
echo "$bin"
