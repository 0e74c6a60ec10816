package lancerest

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Fuzz targets run as ordinary tests over testdata/fuzz/<Name>/ and the
// seeds below; `go test -fuzz=FuzzIdentifier ./lancerest/` explores further.

func FuzzIdentifier(f *testing.F) {
	for _, s := range [][2]string{
		{"%24", ""}, {"a$b$c", ""}, {"a$$b", ""}, {"a.b", "."}, {"a%2Fb", "/"}, {"$", "$"},
		{"a%00b", ""}, {"%zz", ""}, {"My+Table", ""}, {"a%2Bb+c", ""}, {"a+b", "+"}, {"a%2Bb", "%2B"}, {"a::b", "::"}, {"..", ""}, {"%C3%A9", ""}, {"", ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, raw, rawDelim string) {
		delim, e := parseDelimiter(rawDelim)
		if e != nil {
			if e.Code != CodeInvalidInput || e.status() != 400 {
				t.Fatalf("delimiter error %+v", e)
			}
			return
		}
		parts, e := parseIdentifier(raw, delim)
		if e != nil {
			if e.Code != CodeInvalidInput || e.status() != 400 || e.Detail == "" {
				t.Fatalf("identifier error %+v", e)
			}
			return
		}
		if len(parts) > maxIdentifierParts {
			t.Fatalf("%d parts", len(parts))
		}
		for _, p := range parts {
			if p == "" || !utf8.ValidString(p) || strings.IndexByte(p, 0) >= 0 {
				t.Fatalf("bad part %q in %q", p, parts)
			}
			if strings.Contains(p, delim) {
				t.Fatalf("part %q contains the delimiter %q", p, delim)
			}
		}
		if !strings.Contains(raw, "%") {
			// Form decoding: a + is a space, everything else stays.
			if got, want := joinIdentifier(parts, delim), strings.ReplaceAll(raw, "+", " "); got != want {
				t.Fatalf("round trip %q -> %q -> %q, want %q", raw, parts, got, want)
			}
		}
	})
}

// fuzzBody checks the properties every body decoder shares: errors are code
// 13 with a sentence, and a decoded id equals the path's.
func fuzzBody(f *testing.F, seeds []string, decode func(body []byte, path []string) ([]string, *Error)) {
	for _, s := range append(seeds, "", "null", "{}", " ", "[]", `{"id":null}`, `{"id":["a","b"]}`, `{"id":["x"]}`, `{`, `{"id":[1]}`) {
		f.Add([]byte(s))
	}
	path := []string{"a", "b"}
	f.Fuzz(func(t *testing.T, body []byte) {
		id, e := decode(body, path)
		if e != nil {
			if e.Code != CodeInvalidInput || e.Msg == "" || e.Detail == "" {
				t.Fatalf("error %+v", e)
			}
			return
		}
		if id != nil && !sameID(id, path) {
			t.Fatalf("decoded id %q differs from path %q", id, path)
		}
	})
}

func FuzzDecodeIDOnly(f *testing.F) {
	fuzzBody(f, nil, func(b []byte, p []string) ([]string, *Error) {
		var req idRequest
		if e := decodeJSON(b, &req); e != nil {
			return nil, e
		}
		return req.ID, decodeIDOnly(b, p)
	})
}

func FuzzDecodeCreateNamespace(f *testing.F) {
	fuzzBody(f, []string{`{"mode":"ExistOk"}`, `{"mode":"exist_ok","properties":{"a":"b"}}`, `{"mode":"what"}`, `{"properties":{"a":1}}`},
		func(b []byte, p []string) ([]string, *Error) {
			req, e := decodeCreateNamespace(b, p)
			if e == nil && (req.mode < modeCreate || req.mode > modeOverwrite) {
				panic("mode out of range")
			}
			return req.ID, e
		})
}

func FuzzDecodeDropNamespace(f *testing.F) {
	fuzzBody(f, []string{`{"mode":"Skip","behavior":"Cascade"}`, `{"behavior":"RESTRICT"}`, `{"mode":1}`},
		func(b []byte, p []string) ([]string, *Error) {
			req, e := decodeDropNamespace(b, p)
			return req.ID, e
		})
}

func FuzzDecodeList(f *testing.F) {
	fuzzBody(f, []string{`{"page_token":"x","limit":5}`, `{"limit":"5"}`, `{"include_declared":false}`},
		func(b []byte, p []string) ([]string, *Error) {
			req, e := decodeList(b, p)
			return req.ID, e
		})
}

func FuzzDecodeDeclareTable(f *testing.F) {
	fuzzBody(f, []string{`{"location":"/w/b/ns/t.lance","vend_credentials":true}`, `{"properties":{"k":"v"}}`},
		func(b []byte, p []string) ([]string, *Error) {
			req, e := decodeDeclareTable(b, p)
			return req.ID, e
		})
}

func FuzzDecodeRegisterTable(f *testing.F) {
	fuzzBody(f, []string{`{"location":"/w/b/ns/t.lance","mode":"overwrite"}`, `{"location":""}`, `{"location":"x","mode":"Create"}`},
		func(b []byte, p []string) ([]string, *Error) {
			req, e := decodeRegisterTable(b, p)
			if e == nil && req.Location == "" {
				panic("register accepted without location")
			}
			return req.ID, e
		})
}

func FuzzDecodeDescribeTable(f *testing.F) {
	fuzzBody(f, []string{`{"version":3,"with_table_uri":true}`, `{"version":-1}`, `{"load_detailed_metadata":true,"check_declared":false}`},
		func(b []byte, p []string) ([]string, *Error) {
			req, e := decodeDescribeTable(b, p)
			if e == nil && req.Version != nil && *req.Version < 0 {
				panic("negative version accepted")
			}
			return req.ID, e
		})
}

func FuzzDecodeRenameTable(f *testing.F) {
	fuzzBody(f, []string{`{"new_table_name":"t2"}`, `{"new_table_name":"t2","new_namespace_id":["a","c"]}`, `{"new_table_name":7}`},
		func(b []byte, p []string) ([]string, *Error) {
			req, e := decodeRenameTable(b, p)
			if e == nil && req.NewTableName == "" {
				panic("rename accepted without a name")
			}
			return req.ID, e
		})
}

func TestParseIdentifier(t *testing.T) {
	for _, c := range []struct {
		raw, delim string
		want       []string
		ok         bool
	}{
		{"%24", "$", []string{}, true},
		{"$", "$", []string{}, true},
		{"a$b", "$", []string{"a", "b"}, true},
		{"a%24b", "$", []string{"a", "b"}, true},
		{"a.b.c", ".", []string{"a", "b", "c"}, true},
		{"a%2Fb", "/", []string{"a", "b"}, true},
		{"a", "$", []string{"a"}, true},
		{"a$$b", "$", nil, false},
		{"$a", "$", nil, false},
		{"a$", "$", nil, false},
		{"", "$", nil, false},
		{"%zz", "$", nil, false},
		{"a%00", "$", nil, false},
		{"%FF", "$", nil, false},
	} {
		got, e := parseIdentifier(c.raw, c.delim)
		if (e == nil) != c.ok || (c.ok && (got == nil || !sameID(got, c.want))) {
			t.Errorf("parseIdentifier(%q, %q) = %q, %v; want %q ok %v", c.raw, c.delim, got, e, c.want, c.ok)
		}
	}
}

func TestNormMode(t *testing.T) {
	for in, want := range map[string]string{"ExistOk": "existok", "exist_ok": "existok", "EXIST_OK": "existok", "Cascade": "cascade", "": ""} {
		if got := normMode(in); got != want {
			t.Errorf("normMode(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzDecodeVersionBodies(f *testing.F) {
	fuzzBody(f, []string{
		`{"version":1,"manifest_path":"w/b/t.lance/_versions/18446744073709551614.manifest-x","naming_scheme":"V2"}`,
		`{"entries":[{"id":["a","b","t"],"version":2,"manifest_path":"x"}]}`, `{"entries":[{}]}`, `{"entries":[]}`,
		`{"ranges":[{"start_version":1,"end_version":3}]}`, `{"ranges":[{"start_version":0,"end_version":-1}]}`,
		`{"ranges":[{"start_version":3,"end_version":2}]}`, `{"ranges":[{"start_version":-1,"end_version":9}]}`,
	}, func(b []byte, p []string) ([]string, *Error) {
		if req, e := decodeCreateVersion(b, p); e != nil {
			return nil, e
		} else if req.ID != nil && !sameID(req.ID, p) {
			panic("create accepted another table's id")
		}
		if req, e := decodeBatchCreateVersions(b); e == nil {
			if len(req.Entries) == 0 || len(req.Entries) > maxVersionEntries {
				panic("batch outside its bounds")
			}
			for _, en := range req.Entries {
				if len(en.ID) == 0 {
					panic("batch entry without an id")
				}
			}
		} else if e.Code != CodeInvalidInput || e.Detail == "" {
			panic("batch error without a sentence")
		}
		req, ranges, e := decodeDeleteVersions(b, p)
		if e != nil {
			return nil, e
		}
		if len(ranges) == 0 || len(ranges) > maxVersionRanges {
			panic("ranges outside their bounds")
		}
		for _, r := range ranges {
			if r.End != 0 && r.End <= r.Start {
				panic("an empty or inverted range")
			}
		}
		return req.ID, nil
	})
}
