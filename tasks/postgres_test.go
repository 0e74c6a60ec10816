package tasks

import (
	"os"
	"testing"

	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/persist/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestPostgres runs the task service's storage tests again on PostgreSQL:
// records, paging, deletion, restart and the quota under concurrent
// submitters.
func TestPostgres(t *testing.T) {
	persisttest.Run(t, []persisttest.Test{
		{Name: "TestReconcile", Fn: TestReconcile},
		{Name: "TestJobResult", Fn: TestJobResult},
		{Name: "TestJobLinkage", Fn: TestJobLinkage},
		{Name: "TestJobUpdateBeforeLink", Fn: TestJobUpdateBeforeLink},
		{Name: "TestNoRunnerTasksWait", Fn: TestNoRunnerTasksWait},
		{Name: "TestRestart", Fn: TestRestart},
		{Name: "TestRestartAdoptedJob", Fn: TestRestartAdoptedJob},
		{Name: "TestSubmitStoresSubmittedTask", Fn: TestSubmitStoresSubmittedTask},
		{Name: "TestDeleteByState", Fn: TestDeleteByState},
		{Name: "TestTasksBelongToTableID", Fn: TestTasksBelongToTableID},
		{Name: "TestListPages", Fn: TestListPages},
		{Name: "TestQuotaUnderConcurrentSubmitters", Fn: TestQuotaUnderConcurrentSubmitters},
	})
}
