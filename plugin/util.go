package plugin

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
)

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}
