package valkeytest

import "syscall"

// The signals that pause and resume a server process.
var (
	stopSignal = syscall.SIGSTOP
	contSignal = syscall.SIGCONT
)
