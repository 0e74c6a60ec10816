package sessions

import (
	"os"
	"testing"

	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/persist/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestPostgres runs the session store's tests again on PostgreSQL, where
// replicas share the sessions.
func TestPostgres(t *testing.T) {
	persisttest.Run(t, []persisttest.Test{{Name: "TestSessions", Fn: TestSessions}})
}
