package catalog

import (
	"errors"
	"strings"
	"testing"

	"github.com/floe/floe/fault"
)

// FuzzParsePageToken: a token is either refused as fault.Invalid or is
// exactly the token PageToken issues for the cursor it stands for, and
// that cursor is a name.
func FuzzParsePageToken(f *testing.F) {
	for _, s := range []string{"", "zzzz", "\x00", "p1.", "p1.YTI", "p1.YS5i", "p1.QUJD", "p1.%21", strings.Repeat("A", 5000), PageToken("ns.sub-level_2")} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		after, err := ParsePageToken(tok)
		if err != nil {
			if !errors.Is(err, fault.Invalid) || err.Error() == "" {
				t.Fatalf("refusal %v is not fault.Invalid with a sentence", err)
			}
			return
		}
		if PageToken(after) != tok {
			t.Fatalf("%q parses to %q, which is issued as %q", tok, after, PageToken(after))
		}
		if len(tok) > MaxPageTokenBytes || strings.ContainsFunc(after, func(r rune) bool { return !strings.ContainsRune("abcdefghijklmnopqrstuvwxyz0123456789_-.", r) }) {
			t.Fatalf("accepted %q standing for %q", tok, after)
		}
	})
}
