package views

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The console's Content-Security-Policy (web/middleware.go) forbids inline
// script and style, so behaviour lives in static/js and looks in
// static/css. This test keeps the templates honest about both.
func TestTemplatesHaveNoInlineScriptOrStyle(t *testing.T) {
	files, err := filepath.Glob("*.templ")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates found: %v", err)
	}
	forbidden := []struct {
		re  *regexp.Regexp
		why string
	}{
		{regexp.MustCompile(`<style`), "inline <style> block"},
		{regexp.MustCompile(`\sstyle=`), "inline style attribute"},
		{regexp.MustCompile(`<script(\s[^>]*)?>[^<]+</script>`), "inline script body"},
		{regexp.MustCompile(`<script(?:\s(?:[^s>]|s[^r>])*)?>`), "script without src"},
		{regexp.MustCompile(`\shx-on`), "hx-on handler"},
		{regexp.MustCompile(`\son[a-z]+=`), "inline event handler"},
		{regexp.MustCompile(`javascript:`), "javascript: URL"},
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, fb := range forbidden {
			if loc := fb.re.FindIndex(b); loc != nil {
				t.Errorf("%s: %s at byte %d: %q", f, fb.why, loc[0], b[loc[0]:min(loc[1]+20, len(b))])
			}
		}
	}
}
