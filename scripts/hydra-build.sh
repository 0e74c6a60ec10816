#!/usr/bin/env bash
# Builds ORY Hydra, the OpenID provider floe's tests sign in through
# (internal/idptest), from the Go module proxy (tools/hydra pins the
# version). The binary is cached outside the clone, so a fresh CI checkout
# reuses it; when it is already there this script does nothing.
#
# Hydra keeps its in-memory database (dsn: memory) in SQLite, which it
# compiles in only with the sqlite build tag, through cgo.
#
# Prints the binary's path on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(awk '$1=="require" && $2=="github.com/ory/hydra/v2" {print $3}' tools/hydra/go.mod)
if [ -z "$version" ]; then
  echo "hydra-build: cannot read the hydra version from tools/hydra/go.mod" >&2
  exit 1
fi
cache=${FLOE_CACHE:-$HOME/.cache/floe}
bin="$cache/hydra-$version"

if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

mkdir -p "$cache"
echo "hydra-build: building hydra $version into $bin (a few minutes the first time)" >&2
tmp="$bin.tmp.$$"
trap 'rm -f "$tmp"' EXIT
(cd tools/hydra && GOFLAGS=-mod=mod CGO_ENABLED=1 \
  nice -n 19 go build -trimpath -tags sqlite,sqlite_omit_load_extension -o "$tmp" github.com/ory/hydra/v2)
mv "$tmp" "$bin"
echo "$bin"
