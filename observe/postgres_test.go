package observe

import (
	"os"
	"testing"

	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/persist/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestPostgres runs the observation store's tests again on PostgreSQL.
func TestPostgres(t *testing.T) {
	persisttest.Run(t, []persisttest.Test{
		{Name: "TestPutGet", Fn: TestPutGet},
		{Name: "TestTypedAttributes", Fn: TestTypedAttributes},
		{Name: "TestEvictionAndPersistence", Fn: TestEvictionAndPersistence},
		{Name: "TestLoadLeavesAttributesInTheDatabase", Fn: TestLoadLeavesAttributesInTheDatabase},
		{Name: "TestReadsThroughUntilLoaded", Fn: TestReadsThroughUntilLoaded},
		{Name: "TestHistoryKeepsChanges", Fn: TestHistoryKeepsChanges},
		{Name: "TestHistoryRetention", Fn: TestHistoryRetention},
		{Name: "TestBucketTotals", Fn: TestBucketTotals},
	})
}
