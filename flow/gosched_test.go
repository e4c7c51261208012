package flow_test

import "runtime"

func runtimeGosched() { runtime.Gosched() }
