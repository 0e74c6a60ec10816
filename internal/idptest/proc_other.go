//go:build !linux

package idptest

import "syscall"

func procAttr() *syscall.SysProcAttr { return nil }
