package plugin

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// Every job order pages by a job id: walking the pages of two returns the
// one-page listing exactly, and that listing is in the order asked.
func TestListJobsOrders(t *testing.T) {
	h := newHarness(t, Options{DisableScheduler: true})
	ctx := context.Background()
	types := []string{"lance_compact", "lance_cleanup", "custom_b", "custom_a"}
	for i := range 9 {
		j, err := h.p.SubmitJob(ctx, JobSpec{Type: types[i%len(types)], ObjectID: fmt.Sprintf("t%d", i), DedupeKey: fmt.Sprintf("k%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if _, err := h.p.CancelJob(ctx, j.ID); err != nil { // updated later than created
				t.Fatal(err)
			}
		}
	}
	for _, o := range []JobOrder{{}, {Asc: true}, {Key: JobByUpdated}, {Key: JobByUpdated, Asc: true}, {Key: JobByType}, {Key: JobByType, Asc: true}} {
		all, next, err := h.p.ListJobs(ctx, JobFilter{Order: o, Limit: 100})
		if err != nil || next != "" || len(all) != 9 {
			t.Fatalf("%+v: %d jobs, next %q, %v", o, len(all), next, err)
		}
		for i := 1; i < len(all); i++ {
			a, b := all[i-1], all[i]
			var ok bool
			switch o.Key {
			case JobByType:
				ok = a.Type != b.Type && (a.Type < b.Type) == o.Asc || a.Type == b.Type && !a.CreatedAt.Before(b.CreatedAt)
			case JobByUpdated:
				ok = a.UpdatedAt.Equal(b.UpdatedAt) || a.UpdatedAt.Before(b.UpdatedAt) == o.Asc
			default:
				ok = a.CreatedAt.Equal(b.CreatedAt) || a.CreatedAt.Before(b.CreatedAt) == o.Asc
			}
			if !ok {
				t.Errorf("%+v: %s (%s %v) before %s (%s %v)", o, a.ID, a.Type, a.CreatedAt, b.ID, b.Type, b.CreatedAt)
			}
		}
		var walked []string
		cursor := ""
		for range 10 {
			page, n, err := h.p.ListJobs(ctx, JobFilter{Order: o, Limit: 2, Before: cursor})
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range page {
				walked = append(walked, j.ID)
			}
			if n == "" {
				break
			}
			cursor = n
		}
		var want []string
		for _, j := range all {
			want = append(want, j.ID)
		}
		if !slices.Equal(walked, want) {
			t.Errorf("%+v: pages of two %v, one page %v", o, walked, want)
		}
	}
}
