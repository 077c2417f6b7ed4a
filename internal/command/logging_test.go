package command

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/go-logr/logr"
	uzap "go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

type fixedClock struct{}

func (fixedClock) Now() time.Time                         { return time.Date(2026, 11, 26, 23, 0, 0, 0, time.UTC) }
func (fixedClock) NewTicker(d time.Duration) *time.Ticker { return time.NewTicker(d) }

// eagerLogger is the controller's logger as it was before lazyWith: the oracle.
func eagerLogger(w *bytes.Buffer, development bool) logr.Logger {
	return zap.New(zap.WriteTo(w), zap.Level(zapcore.InfoLevel), zap.UseDevMode(development),
		func(zo *zap.Options) { zo.TimeEncoder = zapcore.TimeEncoderOfLayout("2006-01-02T15:04:05.000Z07:00") },
		zap.RawZapOpts(uzap.WithClock(fixedClock{})))
}

func writeSome(l logr.Logger) {
	base := l.WithName("controller").WithValues("controller", "gateway", "controllerGroup", "gateway.networking.k8s.io")
	for i := range 3 {
		r := base.WithValues("Gateway", map[string]string{"name": "web", "namespace": "team-a"}, "namespace", "team-a", "name", "web")
		r = r.WithValues("reconcileID", i)
		if i == 1 {
			r.Info("applied", "objects", 4)
			r.V(1).Info("not written at info")
			r.WithName("status").Error(errors.New("conflict"), "write status", "attempt", i)
		}
	}
	base.Info("started", "workers", 4)
}

// TestLazyWithWritesAsBefore: the logger writes the same lines, byte for byte, as the eager
// logger it replaces, in both encodings.
func TestLazyWithWritesAsBefore(t *testing.T) {
	for _, development := range []bool{false, true} {
		var lazy, eager bytes.Buffer
		// Both from one line: an error's stack trace names it.
		for _, l := range []logr.Logger{newLogger(&lazy, zapcore.InfoLevel, development, zap.RawZapOpts(uzap.WithClock(fixedClock{}))), eagerLogger(&eager, development)} {
			writeSome(l)
		}
		if eager.Len() == 0 || bytes.Count(eager.Bytes(), []byte("\n")) < 3 {
			t.Fatalf("development=%v: the oracle wrote %q", development, eager.String())
		}
		if lazy.String() != eager.String() {
			t.Errorf("development=%v: lines differ\nlazy:\n%s\neager:\n%s", development, lazy.String(), eager.String())
		}
	}
}

// TestLazyWithEncodesNothingUnwritten: a reconcile's loggers that nothing writes to allocate
// less than the eager logger's, which encodes every With into a buffer of its own.
func TestLazyWithEncodesNothingUnwritten(t *testing.T) {
	perReconcile := func(l logr.Logger) func() {
		return func() {
			_ = l.WithValues("Gateway", "team-a/web", "namespace", "team-a", "name", "web").WithValues("reconcileID", "5f6c")
		}
	}
	var sink bytes.Buffer
	lazy := testing.AllocsPerRun(200, perReconcile(newLogger(&sink, zapcore.InfoLevel, false)))
	eager := testing.AllocsPerRun(200, perReconcile(eagerLogger(&sink, false)))
	if lazy >= eager {
		t.Errorf("a reconcile's unwritten loggers: %.0f allocations, the eager logger's %.0f", lazy, eager)
	}
	t.Logf("allocations per reconcile's loggers: lazy %.0f, eager %.0f", lazy, eager)
}
