package handlers

import (
	"context"
	"strconv"
	"time"

	"github.com/floe/floe/identity"
	"github.com/floe/floe/plugin"
	"github.com/floe/floe/views"
)

// jobRatesView is the Jobs page's throughput panel: one grouped query
// (plugin.JobRates) whatever the number of jobs. Its counts span every
// job, so only a reader of everything sees them.
func (h *Handlers) jobRatesView(ctx context.Context, now time.Time) *views.JobRatesView {
	if h.plugin == nil {
		return nil
	}
	v := &views.JobRatesView{}
	if !h.Can(ctx, identity.Read, identity.Resource{}) {
		v.Hidden = "Throughput counts every job on the server, so it is shown to those who may read everything."
		return v
	}
	rates, err := h.plugin.JobRates(ctx, now)
	if err != nil {
		h.log.Warn("reading job throughput", "err", err)
		v.Error = "The finished jobs could not be counted just now; reload to try again."
		return v
	}
	for _, r := range rates {
		v.Rows = append(v.Rows, jobRateRow(r, now))
	}
	return v
}

// jobRateRow lays out one type's figures and its 24 bars.
func jobRateRow(r plugin.JobTypeRate, now time.Time) views.JobRateRow {
	row := views.JobRateRow{Type: r.JobType, Finished: groupDigits(int64(r.Finished)), Failed: groupDigits(int64(r.Failed)),
		Canceled: groupDigits(int64(r.Canceled)), FailureRate: "—",
		PerHour:    trimFloat(float64(r.Finished)/plugin.RateHours) + " jobs/h",
		StartLabel: now.Add(-plugin.RateHours*time.Hour).UTC().Format("15:04") + " UTC", EndLabel: "now"}
	if r.Finished > 0 {
		row.FailureRate = trimFloat(100*r.FailureRate()) + " %"
	}
	top := 1
	for _, n := range r.PerHour {
		top = max(top, n)
	}
	row.AxisTop = strconv.Itoa(top)
	const (
		left, right  = float64(views.RateLeft), float64(views.RateWidth - views.RateRight)
		upper, lower = float64(views.RateTop), float64(views.RateHeight - views.RateBottom)
	)
	slot := (right - left) / plugin.RateHours
	height := func(n int) float64 { return float64(n) / float64(top) * (lower - upper) }
	hours := r.FailedPerHour
	for i, n := range r.PerHour {
		if n == 0 {
			continue
		}
		from := now.Add(time.Duration(i-plugin.RateHours) * time.Hour).UTC()
		b := views.JobRateBar{X: left + float64(i)*slot + 1, W: slot - 2, H: height(n)}
		b.Y = lower - b.H
		b.FailH = height(hours[i])
		b.FailY = lower - b.FailH
		b.Label = from.Format("15:04") + "–" + from.Add(time.Hour).Format("15:04") + " UTC: " + strconv.Itoa(n) + " finished, " + strconv.Itoa(hours[i]) + " failed"
		row.Bars = append(row.Bars, b)
	}
	return row
}
