package handlers

import "testing"

func TestSafeNext(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/buckets/a", "/buckets/a"},
		{"/connect?bucket=x", "/connect?bucket=x"},
		{"", ""},
		{"https://evil.example/", ""},
		{"//evil.example/", ""},
		{`/\evil.example`, ""},
		{"buckets", ""},
		{"/a\r\nSet-Cookie: x", ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := safeNext(tc.in); got != tc.want {
				t.Fatalf("safeNext(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestParentOf(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/buckets/a", "/buckets"},
		{"/buckets/a/namespaces/n", "/buckets/a"},
		{"/buckets/a/namespaces/n/tables/t", "/buckets/a/namespaces/n"},
		{"/buckets/a/namespaces/n/tables/t/data", "/buckets/a/namespaces/n"},
		{"/elsewhere", "/buckets"},
		{"/jobs/j-1", "/jobs"},
	}
	for _, tc := range tests {
		if got, _ := parentOf(tc.in); got != tc.want {
			t.Errorf("parentOf(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSecurity_OpenRedirectNext: next=/%09/evil.example passed the check;
// browsers strip the TAB and land on //evil.example.
func TestSecurity_OpenRedirectNext(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/\t/evil.example", ""},
		{"/\n/evil.example", ""},
		{"/\r/evil.example", ""},
		{"/\x00/evil.example", ""},
		{"/\x7f/evil.example", ""},
		{"/\u0085/evil.example", ""},
		{"/ /evil.example", ""},
		{"/\\/evil.example", ""},
		{"/a\\b", ""},
		{"///evil.example", ""},
		{"/%09/evil.example", "/%09/evil.example"}, // escaped: a path on this site
		{"/buckets/a?x=%2F%2Fevil", "/buckets/a?x=%2F%2Fevil"},
		{"/\xff", ""},
		{"http:/evil.example", ""},
		{"/" + string(make([]byte, maxNextLen)), ""},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := safeNext(tc.in); got != tc.want {
				t.Fatalf("safeNext(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
