// Package lancetest builds Lance manifest files for tests of the commit
// path: a manifest message recording a version (and a row count), framed as
// Lance frames it (u32 length, message, then the footer: its position, two
// format version numbers and the LANC magic).
package lancetest

import (
	"encoding/binary"

	"google.golang.org/protobuf/proto"

	"github.com/floe/floe/lancemeta/lancepb"
)

// Manifest is a manifest file for version with one fragment of rows rows.
func Manifest(version, rows uint64) []byte {
	msg, err := proto.Marshal(&lancepb.Manifest{
		Version:   version,
		Fields:    []*lancepb.Field{{Name: "id", Id: 0, ParentId: -1, LogicalType: "int64"}},
		Fragments: []*lancepb.DataFragment{{Id: 0, PhysicalRows: rows}},
	})
	if err != nil {
		panic(err) // a message built here always marshals
	}
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(msg)))
	out = append(out, msg...)
	out = binary.LittleEndian.AppendUint64(out, 0) // the message starts the file
	out = binary.LittleEndian.AppendUint16(out, 0)
	out = binary.LittleEndian.AppendUint16(out, 2)
	return append(out, "LANC"...)
}
