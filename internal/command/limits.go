package command

import (
	"github.com/spf13/pflag"

	"gantry.dev/gantry/render"
)

// AddLimitFlags adds the render budget flags, shared by `gantry controller` and `gantry render`
// so that a render that fails in the cluster fails the same way offline.
func AddLimitFlags(f *pflag.FlagSet, l *render.Limits) {
	d := render.DefaultLimits
	f.DurationVar(&l.Timeout, "render-timeout", d.Timeout, "wall time one render (a Gateway's, or one route's) may take")
	f.IntVar(&l.MaxBytes, "render-max-bytes", d.MaxBytes, "bytes of text one render may produce, include and tpl results included")
	f.IntVar(&l.MaxObjects, "render-max-objects", d.MaxObjects, "objects one render may produce")
	f.IntVar(&l.MaxLoop, "render-max-loop", d.MaxLoop, "elements one until, untilStep or seq may produce")
	f.IntVar(&l.MaxSteps, "render-max-steps", d.MaxSteps, "loop iterations and template calls one render may make")
	f.IntVar(&l.MaxAlloc, "render-max-alloc", d.MaxAlloc, "bytes of lists and maps the template functions of one render may build")
}
