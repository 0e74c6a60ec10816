package icebergrest

import (
	"testing"

	"github.com/floe/floe/internal/icebergtest"
)

// checkReadable: every metadata file a test of this package made floe write
// must parse with iceberg-go's own parser (newEnv runs it as each test
// ends).
func checkReadable(t testing.TB, root string) { icebergtest.CheckReadable(t, root) }
