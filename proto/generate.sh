#!/bin/sh
# Regenerates plugin/pluginpb and lancemeta/lancepb from proto/. Run from the
# repository root:
#   sh proto/generate.sh
set -eu
protoc -I proto \
  --plugin=protoc-gen-go="$(go tool -n protoc-gen-go)" \
  --plugin=protoc-gen-go-grpc="$(go tool -n protoc-gen-go-grpc)" \
  --go_out=. --go_opt=module=github.com/floe/floe \
  --go-grpc_out=. --go-grpc_opt=module=github.com/floe/floe \
  proto/floe/plugin/v1/plugin.proto
# Lance's manifest, trimmed to what floe reads (see the files' headers).
protoc -I proto \
  --plugin=protoc-gen-go="$(go tool -n protoc-gen-go)" \
  --go_out=. --go_opt=module=github.com/floe/floe \
  proto/lance/file.proto proto/lance/table.proto proto/lance/index.proto
