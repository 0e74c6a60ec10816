package iceberg

// Limits on what a schema may be. A schema is read on every load, every
// commit and every visit to the table page, and the cost of each grows with
// its size and much faster with its depth, so one client's schema must not
// be able to cost the server more than any real table needs.

import (
	"fmt"
	"regexp"
	"strconv"
)

const (
	// MaxSchemaDepth bounds how deeply structs, lists and maps nest. Real
	// schemas (event payloads, protobuf mirrors) stay well under ten levels;
	// 32 keeps a margin and stops a 3,000-level schema that cost 32 s to
	// create and 150 s to render.
	MaxSchemaDepth = 32
	// MaxSchemaFields bounds the number of fields a schema holds, nested ones
	// included. Wide feature tables run to a few thousand columns; ten
	// thousand covers them with room to spare.
	MaxSchemaFields = 10_000
	// MaxFieldNameBytes bounds one field name. Engines quote names in SQL and
	// paths; no legitimate name comes near a kilobyte.
	MaxFieldNameBytes = 1024
	// MaxDecimalPrecision is the Iceberg spec's limit: decimals are stored in
	// at most 16 bytes, which hold 38 decimal digits.
	MaxDecimalPrecision = 38
	// MaxFixedLength bounds fixed[L]. Every value of the column takes L bytes;
	// past 1 MiB a value is a blob, and binary is the type for blobs.
	MaxFixedLength = 1 << 20
)

// checkSchemaLimits refuses a schema past the limits above, or with a
// primitive type that is out of range, with a sentence naming the field.
func checkSchemaLimits(fields []Field) error {
	count := 0
	return checkTypeLimits(Type{Struct: fields}, "", 0, &count)
}

func checkTypeLimits(t Type, at string, depth int, count *int) error {
	if t.Primitive != "" {
		if err := checkPrimitive(t.Primitive); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		return nil
	}
	if depth > MaxSchemaDepth {
		return fmt.Errorf("%s: the schema nests deeper than %d levels of struct, list and map; flatten it", at, MaxSchemaDepth)
	}
	switch {
	case t.List != nil:
		*count++
		if err := checkCount(*count); err != nil {
			return err
		}
		return checkTypeLimits(t.List.Element, at+".element", depth+1, count)
	case t.Map != nil:
		*count += 2
		if err := checkCount(*count); err != nil {
			return err
		}
		if err := checkTypeLimits(t.Map.Key, at+".key", depth+1, count); err != nil {
			return err
		}
		return checkTypeLimits(t.Map.Value, at+".value", depth+1, count)
	}
	for _, f := range t.Struct {
		*count++
		if err := checkCount(*count); err != nil {
			return err
		}
		name := f.Name
		if len(name) > MaxFieldNameBytes {
			return fmt.Errorf("field %d: the name is %d bytes; names are at most %d", f.ID, len(name), MaxFieldNameBytes)
		}
		p := name
		if at != "" {
			p = at + "." + name
		}
		if err := checkTypeLimits(f.Type, p, depth+1, count); err != nil {
			return err
		}
	}
	return nil
}

func checkCount(n int) error {
	if n > MaxSchemaFields {
		return fmt.Errorf("the schema has more than %d fields; split the table", MaxSchemaFields)
	}
	return nil
}

var (
	decimalRe = regexp.MustCompile(`^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$`)
	fixedRe   = regexp.MustCompile(`^fixed\[\s*(\d+)\s*\]$`)
)

// checkPrimitive accepts the spec's primitive types, with decimal precision
// and fixed length in range.
func checkPrimitive(p string) error {
	switch p {
	case "boolean", "int", "long", "float", "double", "date", "time", "timestamp", "timestamptz",
		"timestamp_ns", "timestamptz_ns", "string", "uuid", "binary", "unknown", "variant", "geometry", "geography":
		return nil
	}
	if m := decimalRe.FindStringSubmatch(p); m != nil {
		prec, err1 := strconv.Atoi(m[1])
		scale, err2 := strconv.Atoi(m[2])
		if err1 != nil || prec < 1 || prec > MaxDecimalPrecision {
			return fmt.Errorf("%s: decimal precision must be 1 to %d", p, MaxDecimalPrecision)
		}
		if err2 != nil || scale > prec {
			return fmt.Errorf("%s: decimal scale must be 0 to the precision (%d)", p, prec)
		}
		return nil
	}
	if m := fixedRe.FindStringSubmatch(p); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 || n > MaxFixedLength {
			return fmt.Errorf("%s: fixed length must be 1 to %d bytes; use binary for longer values", p, MaxFixedLength)
		}
		return nil
	}
	return fmt.Errorf("unknown type %q", p)
}

// checkLimits applies the schema and property limits to a metadata file a
// client asks us to register.
func (m *tableMetadata) checkLimits() error {
	if err := checkProperties(m.Properties); err != nil {
		return err
	}
	for _, s := range m.Schemas {
		if err := checkSchemaLimits(s.Fields); err != nil {
			return fmt.Errorf("schema %d: %w", s.SchemaID, err)
		}
	}
	return nil
}
