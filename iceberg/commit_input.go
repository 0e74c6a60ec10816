package iceberg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// CommitInput is the body of the REST catalog's POST …/tables/{table} (and
// one entry of a transaction): the spec's CommitTableRequest, requirements
// and updates in the spec's JSON.
//
// It decodes strictly: a body that is null, names a field the spec does not
// have or carries no "updates" is refused, because each of those was a
// client believing it had changed something (iceberg-js 0.8.1 sends
// {"properties": …}) while floe answered 200 and changed nothing.
type CommitInput struct {
	Identifier *struct {
		Namespace []string `json:"namespace"`
		Name      string   `json:"name"`
	} `json:"identifier"`
	// Requirements may be absent or null, meaning none: the spec lists it as
	// required, but leaving it out asks for nothing that could be lost.
	Requirements []json.RawMessage `json:"requirements"`
	// Updates is required; [] is a commit that only checks requirements.
	Updates []json.RawMessage `json:"updates"`
}

// commitFields are CommitTableRequest's fields, for the refusal of others.
var commitFields = []string{"identifier", "requirements", "updates"}

// UnmarshalJSON decodes a CommitTableRequest and refuses what is not one.
// Refusals are *fault.Error (fault.Invalid), so a surface answers them as a bad
// request in its own words.
func (c *CommitInput) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return invalid("updates", "a commit is a JSON object with requirements and updates, not null")
	}
	type wire CommitInput // no methods: decodes without recursing here
	var w wire
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		if f, ok := unknownField(err); ok {
			return invalid(f, "a commit has no field %q: it carries %s only; a change is an entry of updates (properties: {\"action\":\"set-properties\",\"updates\":{…}})",
				f, strings.Join(commitFields, ", "))
		}
		return invalid("updates", "malformed commit: %v", err)
	}
	if w.Updates == nil {
		return invalid("updates", `a commit needs "updates", an array of changes ([] to only check requirements)`)
	}
	if w.Identifier != nil && w.Identifier.Name == "" {
		return invalid("identifier", "the commit's identifier needs a name")
	}
	*c = CommitInput(w)
	return nil
}

// unknownField reads the field name out of encoding/json's "unknown field"
// error, the one error DisallowUnknownFields adds.
func unknownField(err error) (string, bool) {
	const prefix = `json: unknown field "`
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return "", false
	}
	name := strings.TrimSuffix(strings.TrimPrefix(msg, prefix), `"`)
	return name, true
}

// checkIdentifier refuses a single-table commit whose body names another
// table than the path: it is the client's mistake, and applying the
// updates to either table would be a guess.
func (c CommitInput) checkIdentifier(namespace []string, name string) error {
	if c.Identifier == nil {
		return nil
	}
	if c.Identifier.Name != name || !slices.Equal(c.Identifier.Namespace, namespace) {
		return invalid("identifier", "the commit's identifier %s.%s is not the table it was sent to (%s.%s)",
			strings.Join(c.Identifier.Namespace, "."), c.Identifier.Name, strings.Join(namespace, "."), name)
	}
	return nil
}

// Table property bounds. Properties are stored in every metadata file and
// in the catalog row, and read on every load and commit, so one client's
// commit must not make them cost more than any real table needs.
const (
	// MaxTableProperties bounds the keys of one table. Engines set a few
	// dozen; a thousand is far past any real table (a 200,000-key commit
	// wrote a 5 MB metadata file every later commit had to copy).
	MaxTableProperties = 1000
	// MaxPropertyKeyBytes bounds one key: keys are dotted names like
	// write.parquet.compression-codec.
	MaxPropertyKeyBytes = 1024
	// MaxPropertyValueBytes bounds one value: values are settings, ids and
	// short documents, not data.
	MaxPropertyValueBytes = 64 << 10
	// MaxPropertiesBytes bounds keys and values together.
	MaxPropertiesBytes = 1 << 20
)

// checkProperties refuses a property set past the bounds above, naming the
// first key that breaks one.
func checkProperties(props map[string]string) error {
	if len(props) > MaxTableProperties {
		return fmt.Errorf("a table may have at most %d properties, this commit leaves %d; keep bulky settings elsewhere", MaxTableProperties, len(props))
	}
	total := 0
	for k, v := range props {
		switch {
		case k == "":
			return errors.New("a property key must not be empty")
		case len(k) > MaxPropertyKeyBytes:
			return fmt.Errorf("property key %q… is %d bytes; keys are at most %d", k[:32], len(k), MaxPropertyKeyBytes)
		case len(v) > MaxPropertyValueBytes:
			return fmt.Errorf("property %q has a %d-byte value; values are at most %d", k, len(v), MaxPropertyValueBytes)
		}
		total += len(k) + len(v)
	}
	if total > MaxPropertiesBytes {
		return fmt.Errorf("the table's properties would take %d bytes; at most %d are kept", total, MaxPropertiesBytes)
	}
	return nil
}
