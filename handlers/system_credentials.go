package handlers

import (
	"time"

	"github.com/floe/floe/catalog"
)

// systemMark is how a credential floe made for itself is shown: a label for
// its badge and the sentence the revoke confirmation says, naming what
// stops working. Credentials people made get none.
type systemMark struct {
	Label   string
	Warning string
}

// tokenMarks marks the worker tokens floe serve minted for its bundled
// workers. tokens is newest first; serve mints a new token at every start,
// so only the newest of each kind can be the running worker's.
func tokenMarks(tokens []catalog.WorkerToken) map[string]systemMark {
	out := map[string]systemMark{}
	seen := map[catalog.SystemRole]bool{}
	for _, t := range tokens {
		var worker string
		switch t.System {
		case catalog.SystemBundledLanceWorker:
			worker = "Lance"
		case catalog.SystemBundledIcebergWorker:
			worker = "Iceberg"
		default:
			continue
		}
		m := systemMark{Label: "system: bundled " + worker + " worker"}
		if !seen[t.System] {
			m.Warning = "Revoke " + t.Name + "? This is the bundled " + worker + " worker's token: the worker loses its connection at once and stays disconnected until floe restarts (which mints a new token), so " + worker + " maintenance waits until then."
		} else {
			m.Warning = "Revoke " + t.Name + "? It is a bundled " + worker + " worker token from an earlier start of floe; the running worker uses a newer one, so nothing should stop working."
		}
		seen[t.System] = true
		out[t.ID] = m
	}
	return out
}

// keyMark marks an API key floe made for itself, or returns false.
func keyMark(k catalog.APIKey) (systemMark, bool) {
	if _, worker, ok := k.MintedFor(); ok {
		return systemMark{Label: "system: minted for worker " + worker,
			Warning: "Revoke " + k.Name + "? floe minted it for worker " + worker + "'s jobs: until floe mints that worker a new key (at the latest when this one expires, " + expiryWords(k.ExpiresAt) + "), its jobs on " + bucketWords(k.Bucket) + " fail when they call the catalog. To stop the worker, revoke its worker token instead."}, true
	}
	if k.System == catalog.SystemDemoSeed {
		return systemMark{Label: "system: demo seeder",
			Warning: "Revoke " + k.Name + "? floe made it for seeding the demo table and it expires on its own (" + expiryWords(k.ExpiresAt) + "); a seeding run still in progress fails, nothing else uses it."}, true
	}
	return systemMark{}, false
}

func bucketWords(b string) string {
	if b == "" {
		return "every bucket"
	}
	return "bucket " + b
}

// expiryWords is a credential's expiry for a sentence.
func expiryWords(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}
