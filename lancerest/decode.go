package lancerest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/floe/floe/edge"
	"github.com/floe/floe/jsonstrict"
)

// maxBodyBytes caps a request body: a metadata request is an id, a location
// and a few properties, so 1 MiB leaves ample room while one request cannot
// pin much memory.
const maxBodyBytes = 1 << 20

var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// withBody reads the request body (at most maxBodyBytes) and hands it to fn;
// the buffer is reused after fn returns, so fn must not keep the slice.
func withBody(r *http.Request, fn func([]byte) *Error) *Error {
	if r.ContentLength > maxBodyBytes {
		return tooLarge()
	}
	if r.Body == nil || r.Body == http.NoBody {
		return fn(nil)
	}
	buf := bodyPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= 64<<10 { // don't keep huge buffers alive in the pool
			bodyPool.Put(buf)
		}
	}()
	// The edge caps the body at maxBodyBytes (MaxBytesReader) and refuses a
	// longer Content-Length before this runs.
	_, err := buf.ReadFrom(r.Body)
	if errors.As(err, new(*http.MaxBytesError)) {
		return tooLarge()
	}
	if edge.IsBodyTimeout(err) {
		return invalid("the request body did not arrive in time", "Send the whole JSON body with the request, without pauses.")
	}
	if err != nil {
		return invalid("request body could not be read", "Send the whole JSON body with the request.")
	}
	return fn(buf.Bytes())
}

func tooLarge() *Error {
	return &Error{Code: CodeInvalidInput, Status: http.StatusRequestEntityTooLarge,
		Msg:    "request body is too large",
		Detail: fmt.Sprintf("Lance Namespace metadata requests are at most %d bytes; data goes straight to storage through the SDK.", maxBodyBytes)}
}

// decodeJSON fills v from a JSON object body. An absent or blank body, {} and
// the literal null all leave v at its zero value: clients send each of them
// on operations without parameters.
func decodeJSON(body []byte, v any) *Error {
	b := bytes.TrimSpace(body)
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	if b[0] != '{' {
		return invalid("request body must be a JSON object", "Send a JSON object such as {\"id\": [\"bucket\", \"ns\"]}, or no body.")
	}
	if err := jsonstrict.Check(b); err != nil {
		return invalid("request body is refused", err.Error()+".")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return jsonError(err)
	}
	return nil
}

func jsonError(err error) *Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "body"
		}
		return invalid("field "+field+" has the wrong type", fmt.Sprintf("%s must be %s, not a JSON %s.", field, typeName(te.Type.String()), te.Value))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return invalid("request body is not valid JSON", fmt.Sprintf("The JSON breaks at byte %d: %s.", se.Offset, se.Error()))
	}
	return invalid("request body is not valid JSON", "Send a JSON object; "+err.Error()+".")
}

func typeName(goType string) string {
	switch {
	case goType == "string":
		return "a string"
	case goType == "[]string":
		return "an array of strings"
	case strings.HasPrefix(goType, "map["):
		return "an object of string values"
	case goType == "bool", goType == "*bool":
		return "true or false"
	case strings.Contains(goType, "int"):
		return "a non-negative integer"
	}
	return "a " + goType
}

// checkBodyID enforces that an id in the body, when present, is the path's.
func checkBodyID(body, path []string) *Error {
	if body != nil && !sameID(body, path) {
		b, _ := json.Marshal(body)
		p, _ := json.Marshal(path)
		return invalid("id in the body does not match the path: the body names "+string(b)+", the path "+string(p),
			"Send the same identifier in the URL and in the body's id, or leave id out of the body. The path's identifier is form-encoded: a + there is a space, so write a + in a name as %2B.")
	}
	return nil
}

// normMode lower-cases a mode and drops underscores and hyphens so that
// ExistOk, exist_ok and EXIST_OK compare equal.
func normMode(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '-':
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ---- request bodies ----------------------------------------------------

type idRequest struct {
	ID []string `json:"id"`
}

// decodeIDOnly decodes bodies that carry nothing but an id (DescribeNamespace,
// NamespaceExists, TableExists, DropTable, DeregisterTable).
func decodeIDOnly(body []byte, path []string) *Error {
	if bodyIsPathID(body, path) {
		return nil
	}
	var req idRequest
	if e := decodeJSON(body, &req); e != nil {
		return e
	}
	return checkBodyID(req.ID, path)
}

type createMode int

const (
	modeCreate createMode = iota
	modeExistOk
	modeOverwrite
)

type createNamespaceRequest struct {
	ID         []string          `json:"id"`
	Mode       string            `json:"mode"`
	Properties map[string]string `json:"properties"`

	mode createMode
}

func decodeCreateNamespace(body []byte, path []string) (createNamespaceRequest, *Error) {
	var req createNamespaceRequest
	if e := decodeJSON(body, &req); e != nil {
		return req, e
	}
	if e := checkBodyID(req.ID, path); e != nil {
		return req, e
	}
	switch normMode(req.Mode) {
	case "", "create":
		req.mode = modeCreate
	case "existok":
		req.mode = modeExistOk
	case "overwrite":
		req.mode = modeOverwrite
	default:
		return req, invalid("unknown mode "+quote(req.Mode), "mode is Create, ExistOk or Overwrite.")
	}
	return req, nil
}

type dropNamespaceRequest struct {
	ID       []string `json:"id"`
	Mode     string   `json:"mode"`
	Behavior string   `json:"behavior"`

	skip    bool
	cascade bool
}

func decodeDropNamespace(body []byte, path []string) (dropNamespaceRequest, *Error) {
	var req dropNamespaceRequest
	if e := decodeJSON(body, &req); e != nil {
		return req, e
	}
	if e := checkBodyID(req.ID, path); e != nil {
		return req, e
	}
	switch normMode(req.Mode) {
	case "", "fail":
	case "skip":
		req.skip = true
	default:
		return req, invalid("unknown mode "+quote(req.Mode), "mode is Fail or Skip.")
	}
	switch normMode(req.Behavior) {
	case "", "restrict":
	case "cascade":
		req.cascade = true
	default:
		return req, invalid("unknown behavior "+quote(req.Behavior), "behavior is Restrict or Cascade.")
	}
	return req, nil
}

type listRequest struct {
	ID              []string `json:"id"`
	PageToken       *string  `json:"page_token"`
	Limit           *int     `json:"limit"`
	IncludeDeclared *bool    `json:"include_declared"`
}

// decodeList decodes the optional body of a list operation sent with POST.
func decodeList(body []byte, path []string) (listRequest, *Error) {
	var req listRequest
	if e := decodeJSON(body, &req); e != nil {
		return req, e
	}
	return req, checkBodyID(req.ID, path)
}

type declareTableRequest struct {
	ID              []string          `json:"id"`
	Location        string            `json:"location"`
	VendCredentials *bool             `json:"vend_credentials"`
	Properties      map[string]string `json:"properties"`
}

func decodeDeclareTable(body []byte, path []string) (declareTableRequest, *Error) {
	var req declareTableRequest
	if e := decodeJSON(body, &req); e != nil {
		return req, e
	}
	return req, checkBodyID(req.ID, path)
}

type registerTableRequest struct {
	ID         []string          `json:"id"`
	Location   string            `json:"location"`
	Mode       string            `json:"mode"`
	Properties map[string]string `json:"properties"`

	overwrite bool
}

func decodeRegisterTable(body []byte, path []string) (registerTableRequest, *Error) {
	var req registerTableRequest
	if e := decodeJSON(body, &req); e != nil {
		return req, e
	}
	if e := checkBodyID(req.ID, path); e != nil {
		return req, e
	}
	if req.Location == "" {
		return req, invalid("location is required", "Give the location of the existing Lance dataset to register.")
	}
	switch normMode(req.Mode) {
	case "", "create":
	case "overwrite":
		req.overwrite = true
	default:
		return req, invalid("unknown mode "+quote(req.Mode), "mode is Create or Overwrite.")
	}
	return req, nil
}

type describeTableRequest struct {
	ID                   []string `json:"id"`
	Version              *int64   `json:"version"`
	Tag                  *string  `json:"tag"`
	Branch               *string  `json:"branch"`
	WithTableURI         *bool    `json:"with_table_uri"`
	LoadDetailedMetadata *bool    `json:"load_detailed_metadata"`
	CheckDeclared        *bool    `json:"check_declared"`
	VendCredentials      *bool    `json:"vend_credentials"`
}

func decodeDescribeTable(body []byte, path []string) (describeTableRequest, *Error) {
	if bodyIsPathID(body, path) {
		return describeTableRequest{}, nil // no flags, no version: the plain describe
	}
	if req, ok := describeOnePass(body, path); ok {
		return req, nil // checked and decoded in one pass
	}
	var req describeTableRequest
	if e := decodeJSON(body, &req); e != nil {
		return req, e
	}
	if e := checkBodyID(req.ID, path); e != nil {
		return req, e
	}
	if req.Version != nil && *req.Version < 0 {
		return req, invalid("version must not be negative", "Versions start at 1; leave version out for the latest.")
	}
	return req, nil
}

type renameTableRequest struct {
	ID             []string `json:"id"`
	NewTableName   string   `json:"new_table_name"`
	NewNamespaceID []string `json:"new_namespace_id"`
}

func decodeRenameTable(body []byte, path []string) (renameTableRequest, *Error) {
	var req renameTableRequest
	if e := decodeJSON(body, &req); e != nil {
		return req, e
	}
	if e := checkBodyID(req.ID, path); e != nil {
		return req, e
	}
	if req.NewTableName == "" {
		return req, invalid("new_table_name is required", "Give the table's new name in new_table_name.")
	}
	return req, nil
}

func quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return fmt.Sprintf("%q", s)
}
