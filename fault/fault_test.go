package fault

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

func TestKindAndReasonInChain(t *testing.T) {
	err := fmt.Errorf("while listing: %w", &Error{Kind: NotFound, Field: "location", Message: "gone", Err: fs.ErrNotExist})
	if !errors.Is(err, NotFound) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("errors.Is misses the kind or the reason: %v", err)
	}
	if errors.Is(err, AlreadyExists) {
		t.Fatal("matched another kind")
	}
	if KindOf(err) != NotFound || Field(err) != "location" || Message(err, "x") != "gone" {
		t.Fatalf("KindOf/Field/Message = %q %q %q", KindOf(err), Field(err), Message(err, "x"))
	}
	if KindOf(errors.New("boom")) != "" || Message(errors.New("boom"), "fallback") != "fallback" {
		t.Fatal("a server fault has a kind or shows its text")
	}
}

func TestPublicHidesInternalsOfUnavailable(t *testing.T) {
	for _, field := range []string{"database", "storage", ""} {
		err := &Error{Kind: Unavailable, Field: field, Message: "the S3 store at http://10.0.0.7:8333 failed to get s3://b/secret/path"}
		got := Public(err)
		if got == "" || strings.Contains(got, "10.0.0.7") || strings.Contains(got, "s3://") {
			t.Errorf("field %q: public sentence %q", field, got)
		}
	}
	if got := Public(New(Invalid, "name", "name %q is too long", "x")); got != `name "x" is too long` {
		t.Errorf("Invalid's sentence = %q", got)
	}
	if Public(errors.New("driver: connection refused to 10.0.0.7")) != "" {
		t.Error("a server fault's text became public")
	}
}
