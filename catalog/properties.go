package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
)

// Property bounds of namespaces and Lance tables, the Iceberg library's for
// Iceberg tables: properties are stored in the row and read on every
// describe, so one client must not make them cost more than any real
// namespace or table needs.
const (
	MaxProperties         = 1000     // keys per namespace or table
	MaxPropertyKeyBytes   = 1024     // dotted names like write.parquet.compression-codec
	MaxPropertyValueBytes = 64 << 10 // settings, ids and short documents, not data
	MaxPropertiesBytes    = 1 << 20  // keys and values together
)

// ReservedPropertyPrefix starts the properties floe itself sets and reads
// (floe.managed_versioning, floe.stats_source); people do not edit them.
const ReservedPropertyPrefix = "floe."

// CheckProperties refuses a property set past the bounds, naming the first
// key that breaks one; what names the owner, "namespace" or "table".
func CheckProperties(what string, props map[string]string) error {
	if len(props) > MaxProperties {
		return Invalid("properties", fmt.Sprintf("a %s may have at most %d properties, this change leaves %d", what, MaxProperties, len(props)))
	}
	total := 0
	for k, v := range props {
		switch {
		case strings.TrimSpace(k) == "":
			return Invalid("key", "a property key must not be empty")
		case len(k) > MaxPropertyKeyBytes:
			return Invalid("key", fmt.Sprintf("a property key is at most %d bytes; this one is %d", MaxPropertyKeyBytes, len(k)))
		case len(v) > MaxPropertyValueBytes:
			return Invalid("value", fmt.Sprintf("property %q has a %d-byte value; values are at most %d", k, len(v), MaxPropertyValueBytes))
		}
		total += len(k) + len(v)
	}
	if total > MaxPropertiesBytes {
		return Invalid("value", fmt.Sprintf("the %s's properties would take %d bytes; at most %d are kept", what, total, MaxPropertiesBytes))
	}
	return nil
}

// UpdateTableProperties removes then sets properties of a Lance table in
// floe's catalog (what the Lance REST's DescribeTable answers) if its
// version token still matches (fault.Conflict otherwise; "" skips the
// check). An Iceberg table's properties live in its metadata and change
// only through a commit; keys under ReservedPropertyPrefix are floe's.
func (s *Store) UpdateTableProperties(ctx context.Context, id, expectedToken string, removals []string, updates map[string]string) (Table, error) {
	for _, k := range append(append([]string{}, removals...), keysOf(updates)...) {
		if strings.HasPrefix(k, ReservedPropertyPrefix) {
			return Table{}, Invalid("key", fmt.Sprintf("%s… properties are set by floe itself; pick another key", ReservedPropertyPrefix))
		}
	}
	var t Table
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		var err error
		t, err = s.scanTable(tx.QueryRowContext(ctx, `SELECT `+tableColumns+` FROM tables WHERE id = ?`, id))
		if err == sql.ErrNoRows {
			return newErr(fault.NotFound, "table", "the table no longer exists; it may have been dropped")
		}
		if err != nil {
			return dbErr("get table", err)
		}
		if t.Format != FormatLance {
			return newErr(fault.Conflict, "table", "table %q is %s: its properties change through a commit of its metadata", t.Name, t.Format)
		}
		if expectedToken != "" && t.VersionToken != expectedToken {
			return newErr(fault.Conflict, "version_token", "table %q changed since it was read; reload it and try again", t.Name)
		}
		props := map[string]string{}
		for k, v := range t.Properties {
			props[k] = v
		}
		for _, k := range removals {
			delete(props, k)
		}
		for k, v := range updates {
			props[k] = v
		}
		if err := CheckProperties("table", props); err != nil {
			return err
		}
		t.Properties = props
		t, err = s.updateEntry(ctx, tx, t)
		return err
	})
	if err != nil {
		return Table{}, err
	}
	s.tableChanged(t.ID)
	return t, nil
}

func keysOf(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
