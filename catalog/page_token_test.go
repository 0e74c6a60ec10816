package catalog

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/floe/floe/fault"
)

// FuzzParsePageToken: a token is either refused as fault.Invalid or is
// exactly the token PageToken issues for the cursor it stands for, and
// that cursor could be a name (UTF-8 text without control characters).
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
		if len(tok) > MaxPageTokenBytes || !utf8.ValidString(after) || strings.ContainsFunc(after, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Fatalf("accepted %q standing for %q", tok, after)
		}
	})
}
