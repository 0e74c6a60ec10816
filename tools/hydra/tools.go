//go:build tools

// Package hydra pins ORY Hydra, the OpenID provider floe's tests sign in
// through (internal/idptest starts it on loopback with an in-memory
// database). It is built by scripts/hydra-build.sh, never linked into floe.
package hydra

import _ "github.com/ory/hydra/v2"
