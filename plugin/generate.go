package plugin

// Regenerate plugin/pluginpb from proto/ (protoc at /usr/bin/protoc, the Go
// plugins pinned in go.mod's tool directive).
//go:generate sh -c "cd .. && sh proto/generate.sh"
