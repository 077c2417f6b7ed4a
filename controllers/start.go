package controllers

import (
	"context"

	"k8s.io/client-go/rest"
)

// Start runs the controller in this process until the returned stop function is called; stop
// waits for the manager to finish and returns its error. The playground, the scale harness and
// tests run Gantry this way; `gantry controller` runs the same manager until a signal.
func Start(cfg *rest.Config, mo ManagerOptions, o Options) (stop func() error, err error) {
	mgr, err := NewManager(cfg, mo)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := Setup(ctx, mgr, o); err != nil {
		cancel()
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() error { cancel(); return <-done }, nil
}
