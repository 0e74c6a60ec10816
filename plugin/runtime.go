package plugin

import (
	"time"

	"github.com/floe/floe/plugin/pluginpb"
)

// Runtime is the scheduler's settings for one job type.
type Runtime struct {
	Enabled              bool
	DetectionInterval    time.Duration
	DetectionTimeout     time.Duration
	ExecutionTimeout     time.Duration
	MaxJobsPerDetection  int
	GlobalConcurrency    int
	PerWorkerConcurrency int
	Retries              int
	RetryBackoff         time.Duration
}

// Fallbacks when a descriptor leaves a runtime value at zero.
const (
	defaultDetectionInterval   = 10 * time.Minute
	defaultDetectionTimeout    = 2 * time.Minute
	defaultExecutionTimeout    = time.Hour
	defaultMaxJobsPerDetection = 100
	defaultGlobalConcurrency   = 4
	defaultPerWorkerConc       = 1
	defaultRetryBackoff        = 30 * time.Second
	// maxRetryBackoff caps exponential backoff so a retry still happens today.
	maxRetryBackoff = time.Hour
)

func runtimeFromProto(r *pluginpb.RuntimeDefaults) Runtime {
	sec := func(n int32, d time.Duration) time.Duration {
		if n <= 0 {
			return d
		}
		return time.Duration(n) * time.Second
	}
	pos := func(n int32, d int) int {
		if n <= 0 {
			return d
		}
		return int(n)
	}
	return Runtime{
		Enabled:              r.GetEnabled(),
		DetectionInterval:    sec(r.GetDetectionIntervalSeconds(), defaultDetectionInterval),
		DetectionTimeout:     sec(r.GetDetectionTimeoutSeconds(), defaultDetectionTimeout),
		ExecutionTimeout:     sec(r.GetExecutionTimeoutSeconds(), defaultExecutionTimeout),
		MaxJobsPerDetection:  pos(r.GetMaxJobsPerDetection(), defaultMaxJobsPerDetection),
		GlobalConcurrency:    pos(r.GetGlobalConcurrency(), defaultGlobalConcurrency),
		PerWorkerConcurrency: pos(r.GetPerWorkerConcurrency(), defaultPerWorkerConc),
		Retries:              max(0, int(r.GetRetries())),
		RetryBackoff:         sec(r.GetRetryBackoffSeconds(), defaultRetryBackoff),
	}
}

// runtimeJSON is the stored form (seconds, so the row reads well in sqlite3).
type runtimeJSON struct {
	Enabled                  bool `json:"enabled"`
	DetectionIntervalSeconds int  `json:"detection_interval_seconds"`
	DetectionTimeoutSeconds  int  `json:"detection_timeout_seconds"`
	ExecutionTimeoutSeconds  int  `json:"execution_timeout_seconds"`
	MaxJobsPerDetection      int  `json:"max_jobs_per_detection"`
	GlobalConcurrency        int  `json:"global_concurrency"`
	PerWorkerConcurrency     int  `json:"per_worker_concurrency"`
	Retries                  int  `json:"retries"`
	RetryBackoffSeconds      int  `json:"retry_backoff_seconds"`
}

func (r Runtime) toJSON() runtimeJSON {
	return runtimeJSON{r.Enabled, int(r.DetectionInterval / time.Second), int(r.DetectionTimeout / time.Second),
		int(r.ExecutionTimeout / time.Second), r.MaxJobsPerDetection, r.GlobalConcurrency, r.PerWorkerConcurrency,
		r.Retries, int(r.RetryBackoff / time.Second)}
}

func (j runtimeJSON) runtime() Runtime {
	return runtimeFromProto(&pluginpb.RuntimeDefaults{
		Enabled: j.Enabled, DetectionIntervalSeconds: int32(j.DetectionIntervalSeconds),
		DetectionTimeoutSeconds: int32(j.DetectionTimeoutSeconds), ExecutionTimeoutSeconds: int32(j.ExecutionTimeoutSeconds),
		MaxJobsPerDetection: int32(j.MaxJobsPerDetection), GlobalConcurrency: int32(j.GlobalConcurrency),
		PerWorkerConcurrency: int32(j.PerWorkerConcurrency), Retries: int32(j.Retries),
		RetryBackoffSeconds: int32(j.RetryBackoffSeconds),
	})
}

// ValidateRuntime checks scheduler settings; keys match the form's names.
func ValidateRuntime(rt Runtime) map[string]string {
	errs := map[string]string{}
	if rt.DetectionInterval < 10*time.Second {
		errs["detection_interval_seconds"] = "Detection interval must be at least 10 seconds."
	}
	if rt.DetectionTimeout < time.Second {
		errs["detection_timeout_seconds"] = "Detection timeout must be at least 1 second."
	}
	if rt.ExecutionTimeout < time.Second {
		errs["execution_timeout_seconds"] = "Execution timeout must be at least 1 second."
	}
	if rt.MaxJobsPerDetection < 1 || rt.MaxJobsPerDetection > 10000 {
		errs["max_jobs_per_detection"] = "Max jobs per detection must be between 1 and 10000."
	}
	if rt.GlobalConcurrency < 1 || rt.GlobalConcurrency > 1000 {
		errs["global_concurrency"] = "Global concurrency must be between 1 and 1000."
	}
	if rt.PerWorkerConcurrency < 1 || rt.PerWorkerConcurrency > 1000 {
		errs["per_worker_concurrency"] = "Per-worker concurrency must be between 1 and 1000."
	}
	if rt.Retries < 0 || rt.Retries > 100 {
		errs["retries"] = "Retries must be between 0 and 100."
	}
	if rt.RetryBackoff < 0 || rt.RetryBackoff > 24*time.Hour {
		errs["retry_backoff_seconds"] = "Retry backoff must be between 0 seconds and 24 hours."
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}
