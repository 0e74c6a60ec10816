package s3tables

import (
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
)

// getMaintenanceJobStatus reports, per maintenance kind, the last finished
// floe job of that kind on the table: Successful or Failed with its time,
// Disabled when the configuration switches the kind off, Not_Yet_Run when no
// job of the kind has finished.
func (s *Server) getMaintenanceJobStatus(req *request) (any, error) {
	t, err := s.loadTable(req, identity.Read)
	if err != nil {
		return nil, err
	}
	var runs []JobRun
	if s.cfg.Jobs != nil {
		if runs, err = s.cfg.Jobs.TableJobs(req.ctx, t.ID); err != nil {
			return nil, err
		}
	}
	status := make(map[string]jobStatusValue, len(allKinds))
	for _, kind := range allKinds {
		c, err := s.cfg.Store.EffectiveMaintenance(req.ctx, t, kind)
		if err != nil {
			return nil, err
		}
		v := jobStatusValue{Status: "Not_Yet_Run"}
		if !c.Enabled {
			v.Status = "Disabled"
		}
		for _, r := range runs { // newest first: the first finished one decides
			if k, ok := catalog.MaintenanceKindOfJob(r.Type); !ok || k != kind || r.Finished.IsZero() {
				continue
			}
			if c.Enabled {
				v.Status = "Successful"
				if r.State != "succeeded" {
					v.Status, v.FailureMessage = "Failed", r.Error
					if v.FailureMessage == "" {
						v.FailureMessage = "the " + r.Type + " job ended " + r.State
					}
				}
			}
			v.LastRunTimestamp = timestamp(r.Finished)
			break
		}
		status[string(kind)] = v
	}
	return struct {
		TableARN string                    `json:"tableARN"`
		Status   map[string]jobStatusValue `json:"status"`
	}{s.tableARN(t), status}, nil
}

type jobStatusValue struct {
	Status           string `json:"status"`
	LastRunTimestamp string `json:"lastRunTimestamp,omitempty"`
	FailureMessage   string `json:"failureMessage,omitempty"`
}

var allKinds = []catalog.MaintenanceKind{catalog.MaintenanceCompaction, catalog.MaintenanceSnapshots, catalog.MaintenanceUnreferenced}
