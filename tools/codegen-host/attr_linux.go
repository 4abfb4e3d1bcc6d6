//go:build linux

package main

import "syscall"

// childAttributes makes the kernel kill the old host when the wrapper dies: the CLI stops a language host by
// killing its process, which would otherwise leave the old host running.
func childAttributes() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
