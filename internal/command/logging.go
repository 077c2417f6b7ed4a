package command

import (
	"io"

	"github.com/go-logr/logr"
	uzap "go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// newLogger is the controller's logger: controller-runtime's zap logger, JSON (or the console
// in development), timestamps to the millisecond (a reconcile takes a few, and whole seconds
// cannot order the lines of a start or a convergence), and key/values added with WithValues
// encoded only once a line is written (lazyWith).
func newLogger(w io.Writer, level zapcore.Level, development bool, more ...zap.Opts) logr.Logger {
	opts := []zap.Opts{zap.WriteTo(w), zap.Level(level), zap.UseDevMode(development),
		func(zo *zap.Options) { zo.TimeEncoder = zapcore.TimeEncoderOfLayout("2006-01-02T15:04:05.000Z07:00") },
		zap.RawZapOpts(uzap.WrapCore(func(c zapcore.Core) zapcore.Core { return lazyWith{c} }))}
	return zap.New(append(opts, more...)...)
}

// lazyWith defers encoding the fields of a core's With until a line is written, with zap's own
// lazy core. controller-runtime gives every reconcile a logger with the controller, the object
// and a reconcile ID (two Withs), and zap encodes those into a fresh buffer each time: 6% of
// all the controller allocated in a first convergence at N=1,000 (docs/performance.md), for
// loggers that a reconcile that goes well never writes to. zap.Logger.WithLazy does this for a
// logger it is called on; controller-runtime calls With through logr, so this core does it for
// every With, chained ones included.
//
// A value given to WithValues is encoded when the first line is written, not when it is given:
// a caller must not change it afterwards (a map, a slice, a pointer's target). The callers
// today, controller-runtime's, give strings and values.
type lazyWith struct{ zapcore.Core }

func (c lazyWith) With(fields []zapcore.Field) zapcore.Core {
	return lazyWith{zapcore.NewLazyWith(c.Core, fields)}
}
