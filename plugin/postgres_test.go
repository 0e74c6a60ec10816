package plugin

import (
	"os"
	"testing"

	"github.com/floe/floe/persist/persisttest"
	"github.com/floe/floe/persist/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestPostgres runs the plugin's job-store tests again on PostgreSQL:
// settings, dedupe, completion, restart adoption, retries and the hammer.
func TestPostgres(t *testing.T) {
	persisttest.Run(t, []persisttest.Test{
		{Name: "TestHelloDescribesAndStoresSettings", Fn: TestHelloDescribesAndStoresSettings},
		{Name: "TestDetectDedupeExecuteComplete", Fn: TestDetectDedupeExecuteComplete},
		{Name: "TestSubmitJobDedupe", Fn: TestSubmitJobDedupe},
		{Name: "TestJobRates", Fn: TestJobRates},
		{Name: "TestListJobsOrders", Fn: TestListJobsOrders},
		{Name: "TestObservationsReachObserve", Fn: TestObservationsReachObserve},
		{Name: "TestRestartAdoptsOrRetriesRunningJobs", Fn: TestRestartAdoptsOrRetriesRunningJobs},
		{Name: "TestRetryThenFail", Fn: TestRetryThenFail},
		{Name: "TestPermanentFailureIsNotRetried", Fn: TestPermanentFailureIsNotRetried},
		{Name: "TestHammer", Fn: TestHammer},
		{Name: "TestLeaseJobRunsOnOtherReplica", Fn: TestLeaseJobRunsOnOtherReplica},
		{Name: "TestLeaseDedupeAcrossReplicas", Fn: TestLeaseDedupeAcrossReplicas},
		{Name: "TestLeaseTakeoverFailsJobOfDeadReplica", Fn: TestLeaseTakeoverFailsJobOfDeadReplica},
		{Name: "TestDetectionClaimOncePerInterval", Fn: TestDetectionClaimOncePerInterval},
		{Name: "TestLeaseCancelFromOtherReplica", Fn: TestLeaseCancelFromOtherReplica},
	})
}
