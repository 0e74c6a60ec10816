package tasks

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

// newTaskID returns 32 random lower-case hex characters.
func newTaskID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}

// ValidTaskID reports whether s has the shape of a task id.
func ValidTaskID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
