package handlers

import "github.com/floe/floe/warehouse"

// StorageStatus is the warehouse store's last known health.
type StorageStatus interface {
	Status() warehouse.HealthStatus
}

// storageAlert is the banner sentence while the store does not answer.
func (h *Handlers) storageAlert() string {
	if h.storage == nil {
		return ""
	}
	if st := h.storage.Status(); !st.OK {
		return st.Reason
	}
	return ""
}
