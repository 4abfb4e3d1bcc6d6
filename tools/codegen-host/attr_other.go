//go:build !linux

package main

import "syscall"

// childAttributes: only Linux can tie the old host's life to the wrapper's; elsewhere the old host exits when the
// engine it reports to goes away.
func childAttributes() *syscall.SysProcAttr {
	return nil
}
