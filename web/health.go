package web

import (
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/health"
	"github.com/floe/floe/observe"
	"github.com/floe/floe/plugin"
)

// newHealth builds the table-health service the console shows, or nil when
// there are no observations to judge (a console without workers).
func newHealth(obs *observe.Store, store *catalog.Store, p *plugin.Plugin) *health.Service {
	if obs == nil {
		return nil
	}
	var settings health.SettingsFunc
	if p != nil {
		settings = func(jobType string) map[string]string {
			st, err := p.Settings(jobType)
			if err != nil {
				return nil // not described yet: the workers' defaults
			}
			return st.Values
		}
	}
	return health.New(health.Config{Observations: obs, Tables: store, Settings: settings})
}
